//! Query strings, endpoint URLs, error bodies and error messages: everything decided before or
//! after the wire, without a network.

use std::time::Duration;

use chrono::{TimeZone, Utc};
use crmdash::api::{
    ApiError, Client, ContactInclude, ContactQuery, ContactSort, DealInclude, DealQuery, DealSort,
    ErrorKind, ListQuery, Paging, ProjectInclude, ProjectQuery, ProjectSort, SortDirection,
    check_base_url, parse_error_body, parse_retry_after,
};
use reqwest::StatusCode;
use reqwest::header::{HeaderMap, HeaderValue};
use secrecy::SecretString;

fn pairs<Q: ListQuery>(q: &Q) -> Vec<(&'static str, String)> {
    q.to_pairs().unwrap()
}

fn client(base: &str) -> Client {
    Client::new(base, SecretString::from("tok")).unwrap()
}

#[test]
fn contact_query_in_a_stable_order_with_includes_deduped() {
    let q = ContactQuery {
        email: Some(" a@b.c ".into()),
        full_name: Some("Ada Lovelace".into()),
        created_after: Some(Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap()),
        updated_after: Some(Utc.with_ymd_and_hms(2026, 2, 3, 4, 5, 6).unwrap()),
        sort_by: Some(ContactSort::LastName),
        sort_direction: Some(SortDirection::Desc),
        include: vec![
            ContactInclude::AssignedUsers,
            ContactInclude::Accounts,
            ContactInclude::AssignedUsers,
        ],
        paging: Paging {
            page: Some(2),
            per_page: Some(25),
        },
    };
    let expected: Vec<(&str, String)> = vec![
        ("email", "a@b.c".into()),
        ("full_name", "Ada Lovelace".into()),
        ("created_after", "2026-01-02T03:04:05Z".into()),
        ("updated_after", "2026-02-03T04:05:06Z".into()),
        ("sort_by", "last_name".into()),
        ("sort_direction", "desc".into()),
        ("include", "accounts,assigned_users".into()),
        ("page", "2".into()),
        ("per_page", "25".into()),
    ];
    assert_eq!(pairs(&q), expected);
    assert_eq!(pairs(&q), pairs(&q.clone()), "equal queries, equal pairs");
}

#[test]
fn contact_paging_is_sent_only_when_set_and_blank_filters_are_not_sent() {
    assert!(pairs(&ContactQuery::default()).is_empty());
    let q = ContactQuery {
        email: Some("   ".into()),
        full_name: Some(String::new()),
        ..ContactQuery::default()
    };
    assert!(pairs(&q).is_empty());
}

#[test]
fn deal_and_project_queries() {
    let q = DealQuery {
        name: Some("Big one".into()),
        status: Some("won".into()),
        sort_by: Some(DealSort::Value),
        sort_direction: Some(SortDirection::Asc),
        include: vec![
            DealInclude::AssignedUser,
            DealInclude::Account,
            DealInclude::Contacts,
            DealInclude::AssignedUsers,
            DealInclude::Account,
        ],
        paging: Paging {
            page: Some(1),
            per_page: Some(100),
        },
    };
    let got = pairs(&q);
    assert_eq!(
        got.iter().map(|(k, _)| *k).collect::<Vec<_>>(),
        [
            "name",
            "status",
            "sort_by",
            "sort_direction",
            "include",
            "page",
            "per_page"
        ]
    );
    assert_eq!(got[4].1, "account,contacts,assigned_user,assigned_users");
    assert_eq!(got[2].1, "value");

    let p = ProjectQuery {
        status: Some("active".into()),
        sort_by: Some(ProjectSort::EndDate),
        include: vec![ProjectInclude::Members, ProjectInclude::Owner],
        paging: Paging {
            page: None,
            per_page: Some(1),
        },
        ..ProjectQuery::default()
    };
    assert_eq!(
        pairs(&p),
        vec![
            ("status", "active".to_string()),
            ("sort_by", "end_date".to_string()),
            ("include", "owner,members".to_string()),
            ("per_page", "1".to_string()),
        ]
    );
}

#[test]
fn wire_enums_are_exactly_the_seeds_lists() {
    let names = |v: Vec<&str>| v.join(",");
    assert_eq!(
        names(ContactSort::ALL.iter().map(|s| s.as_str()).collect()),
        "created_at,updated_at,first_name,last_name,email"
    );
    assert_eq!(
        names(DealSort::ALL.iter().map(|s| s.as_str()).collect()),
        "created_at,updated_at,name,status,value"
    );
    assert_eq!(
        names(ProjectSort::ALL.iter().map(|s| s.as_str()).collect()),
        "created_at,updated_at,name,status,start_date,end_date"
    );
    assert_eq!(
        ContactInclude::choices(),
        "accounts, assigned_user, assigned_users"
    );
    assert_eq!(
        DealInclude::choices(),
        "account, contacts, assigned_user, assigned_users"
    );
    assert_eq!(ProjectInclude::choices(), "owner, members");
    assert_eq!("desc".parse::<SortDirection>(), Ok(SortDirection::Desc));
    let e = "sideways".parse::<SortDirection>().unwrap_err();
    assert!(e.contains("asc, desc"), "{e}");
    assert_eq!(SortDirection::Asc.flipped(), SortDirection::Desc);
}

#[test]
fn bad_paging_and_filters_are_refused_before_any_request() {
    for (page, per_page, field) in [
        (None, Some(0), "per_page"),
        (None, Some(101), "per_page"),
        (Some(0), None, "page"),
    ] {
        let q = DealQuery {
            paging: Paging { page, per_page },
            ..DealQuery::default()
        };
        let e = q.to_pairs().unwrap_err();
        assert_eq!(e.kind, ErrorKind::InvalidRequest);
        assert!(e.field_errors.contains_key(field), "{e}");
        assert!(e.to_string().contains(field), "{e}");
    }
    let long = DealQuery {
        name: Some("x".repeat(10_000)),
        ..DealQuery::default()
    };
    assert!(long.to_pairs().unwrap_err().to_string().contains("10000"));
    let ctl = ProjectQuery {
        name: Some("a\u{7}b".into()),
        ..ProjectQuery::default()
    };
    assert!(ctl.to_pairs().is_err());
    let unicode = ContactQuery {
        full_name: Some("مرحبا 👋 Zoë".into()),
        ..ContactQuery::default()
    };
    assert_eq!(pairs(&unicode)[0].1, "مرحبا 👋 Zoë");
}

#[tokio::test]
async fn invalid_per_page_sends_no_request() {
    // Port 9 on loopback: nothing listens; a sent request would fail as a network error.
    let c = client("http://127.0.0.1:9");
    let q = ProjectQuery {
        paging: Paging {
            page: None,
            per_page: Some(101),
        },
        ..ProjectQuery::default()
    };
    let e = c.list_projects(&q).await.unwrap_err();
    assert_eq!((e.kind, e.attempts), (ErrorKind::InvalidRequest, 0));
}

#[test]
fn endpoints_join_under_any_base_and_encode_path_segments() {
    for base in [
        "https://crm.example.com",
        "https://crm.example.com/",
        "https://crm.example.com/?x=1#frag",
    ] {
        assert_eq!(
            client(base).endpoint(&["contacts"]).as_str(),
            "https://crm.example.com/public/v1/contacts",
            "{base}"
        );
    }
    for base in ["https://example.com/crm", "https://example.com/crm/"] {
        assert_eq!(
            client(base).endpoint(&["deals"]).as_str(),
            "https://example.com/crm/public/v1/deals"
        );
    }
    let c = client("http://127.0.0.1:8080/");
    assert_eq!(
        c.endpoint(&["appointments", "a/b c", "reschedule"])
            .as_str(),
        "http://127.0.0.1:8080/public/v1/appointments/a%2Fb%20c/reschedule"
    );
    assert_eq!(
        c.endpoint(&["appointments", "50%?#ü", "reschedule"]).path(),
        "/public/v1/appointments/50%25%3F%23%C3%BC/reschedule"
    );
}

#[tokio::test]
async fn dot_segment_ids_are_refused() {
    let c = client("http://127.0.0.1:9");
    for id in ["", "  ", ".", ".."] {
        let e = c
            .reschedule_appointment(&crate::ticket(), id, &serde_json::Map::new())
            .await
            .unwrap_err();
        assert_eq!(e.kind, ErrorKind::InvalidRequest, "{id:?}");
    }
}

#[test]
fn base_urls_are_checked() {
    assert!(check_base_url("https://crm.example.com").is_ok());
    assert!(check_base_url("http://localhost:3000").is_ok());
    assert!(check_base_url("http://[::1]:3000").is_ok());
    assert!(check_base_url("http://127.0.0.2").is_ok());
    for bad in [
        "http://crm.example.com",
        "ftp://crm.example.com",
        "not a url",
        "https://user:pw@crm.example.com",
    ] {
        let e = check_base_url(bad).unwrap_err();
        assert_eq!(e.kind, ErrorKind::InvalidRequest, "{bad}");
    }
    assert!(Client::new("https://x.example", SecretString::from("  ")).is_err());
    // crmdash adds /public/v1 itself: a base URL with it says so and names the fix.
    assert!(check_base_url("https://crm.example.com/tenant").is_ok());
    for (given, fix) in [
        (
            "http://127.0.0.1:8080/public/v1",
            "use http://127.0.0.1:8080",
        ),
        (
            "https://crm.example.com/tenant/public/v1/",
            "use https://crm.example.com/tenant",
        ),
    ] {
        let e = check_base_url(given).unwrap_err();
        assert!(e.message.ends_with(fix), "{given}: {}", e.message);
    }
}

#[test]
fn error_bodies_of_every_shape() {
    let msg = |b: &str| parse_error_body(b.as_bytes()).0;
    assert_eq!(msg(r#"{"message":"Nope."}"#).as_deref(), Some("Nope."));
    assert_eq!(
        msg(r#"{"error":"bad token"}"#).as_deref(),
        Some("bad token")
    );
    assert_eq!(
        msg(r#"{"error":{"message":"quota","code":7}}"#).as_deref(),
        Some("quota")
    );
    assert_eq!(
        msg(r#"{"type":"about:blank","title":"Bad Request","detail":"per_page too big"}"#)
            .as_deref(),
        Some("Bad Request: per_page too big")
    );
    assert_eq!(msg(r#"{"title":"Gone"}"#).as_deref(), Some("Gone"));
    assert_eq!(
        msg(r#"{"errors":[{"status":"422","detail":"email taken"}]}"#).as_deref(),
        Some("email taken")
    );
    assert_eq!(
        msg("{\"message\":\"line one\\nline\\ttwo  \"}").as_deref(),
        Some("line one line two")
    );
    assert_eq!(msg(r#""just a string""#).as_deref(), Some("just a string"));
    for none in [
        "",
        "<html>oops</html>",
        "{}",
        r#"{"message":""}"#,
        "[1]",
        "null",
    ] {
        assert_eq!(msg(none), None, "{none}");
    }

    let (m, fields) = parse_error_body(
        br#"{"message":"The given data was invalid.","errors":{"email":["The email must be valid.","Taken."],"phone":"Too short"}}"#,
    );
    assert_eq!(m.as_deref(), Some("The given data was invalid."));
    assert_eq!(fields["email"], ["The email must be valid.", "Taken."]);
    assert_eq!(fields["phone"], ["Too short"]);
    let (m, _) = parse_error_body(br#"{"errors":{"email":["required"]}}"#);
    assert_eq!(m.as_deref(), Some("email: required"));
}

fn response_error(status: u16, headers: &[(&'static str, &str)], body: &str) -> ApiError {
    let mut h = HeaderMap::new();
    for (k, v) in headers {
        h.insert(*k, HeaderValue::from_str(v).unwrap());
    }
    crmdash::api::error::from_response(StatusCode::from_u16(status).unwrap(), &h, body.as_bytes())
}

#[test]
fn errors_from_responses_name_status_kind_and_best_message() {
    let cases = [
        (401, "", ErrorKind::Unauthorized, "Unauthorized"),
        (403, r#"{"message":"scope"}"#, ErrorKind::Forbidden, "scope"),
        (
            404,
            "<html><h1>404</h1></html>",
            ErrorKind::NotFound,
            "Not Found",
        ),
        (
            409,
            r#"{"error":"key in use"}"#,
            ErrorKind::Conflict,
            "key in use",
        ),
        (
            422,
            r#"{"message":"invalid"}"#,
            ErrorKind::Validation,
            "invalid",
        ),
        (400, "", ErrorKind::Validation, "Bad Request"),
        (429, "", ErrorKind::RateLimited, "Too Many Requests"),
        (500, "", ErrorKind::Server, "Internal Server Error"),
        (
            502,
            "<html>Bad gateway</html>",
            ErrorKind::Server,
            "Bad Gateway",
        ),
        (
            503,
            "Service Unavailable",
            ErrorKind::Server,
            "Service Unavailable",
        ),
        (418, "", ErrorKind::Other, "I'm a teapot"),
    ];
    for (status, body, kind, needle) in cases {
        let e = response_error(status, &[], body);
        assert_eq!((e.kind, e.status), (kind, Some(status)), "{status}");
        let shown = e.to_string();
        assert!(shown.contains(needle), "{status}: {shown}");
        assert!(shown.contains(&status.to_string()), "{shown}");
        assert!(!shown.contains('\n'));
    }
    let r = response_error(302, &[("location", "https://elsewhere.example/login")], "");
    assert_eq!(r.kind, ErrorKind::Redirect);
    assert!(
        r.to_string().contains("https://elsewhere.example/login"),
        "{r}"
    );
    let ra = response_error(429, &[("retry-after", "7")], "");
    assert_eq!(ra.retry_after, Some(Duration::from_secs(7)));
    assert!(ra.to_string().contains("7s"), "{ra}");
}

#[test]
fn retry_after_in_seconds_or_as_an_http_date() {
    assert_eq!(parse_retry_after("120"), Some(Duration::from_secs(120)));
    assert_eq!(parse_retry_after(" 0 "), Some(Duration::ZERO));
    assert_eq!(
        parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT"),
        Some(Duration::ZERO),
        "a past date means now"
    );
    let later = (Utc::now() + chrono::Duration::seconds(600))
        .format("%a, %d %b %Y %H:%M:%S GMT")
        .to_string();
    let d = parse_retry_after(&later).unwrap();
    assert!(
        d > Duration::from_secs(500) && d <= Duration::from_secs(600),
        "{d:?}"
    );
    for bad in ["", "soon", "-5", "1.5"] {
        assert_eq!(parse_retry_after(bad), None, "{bad}");
    }
}

#[test]
fn display_is_one_line_and_says_when_a_write_may_have_landed() {
    let mut e = ApiError::new(ErrorKind::Timeout, "no answer\nat all");
    assert_eq!(e.to_string(), "Timed out: no answer at all");
    e.outcome_unknown = true;
    let shown = e.to_string();
    assert!(shown.contains("may have been applied") && shown.contains("Idempotency-Key"));
    assert!(!shown.contains('\n'));
    let long = ApiError::new(ErrorKind::Server, "x".repeat(5000));
    assert!(long.to_string().chars().count() < 400);
}
