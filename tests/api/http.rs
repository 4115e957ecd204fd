//! The client over real HTTP on 127.0.0.1: headers, the five operations' requests, and the
//! retry policy of reads and creates as the server sees it (attempt counts, same key and body).

use crate::api_wire;

use std::sync::{Arc, Mutex};

use api_wire::{Reply, TOKEN, assert_no_token, http, json_ok, serve};
use crmdash::api::{
    ContactQuery, DealInclude, DealQuery, ErrorKind, IdempotencyKey, NewContact, Paging,
    ProjectQuery, RequestEvent,
};
use serde_json::json;

fn new_contact() -> NewContact {
    NewContact {
        first_name: Some("Ada".into()),
        last_name: Some("Lovelace".into()),
        email: Some("ada@example.com".into()),
        phone: Some("+44 20 7946 0000".into()),
        extra: serde_json::Map::new(),
    }
}

#[tokio::test]
async fn every_request_carries_the_headers_and_the_token_stays_hidden() {
    let server =
        serve(|_| json_ok(r#"{"data":[{"id":"d1","value":"10.5"}],"meta":{"total":1}}"#)).await;
    let client = server.client();
    let q = DealQuery {
        name: Some("Big deal".into()),
        include: vec![DealInclude::Contacts, DealInclude::Account],
        paging: Paging {
            page: Some(2),
            per_page: Some(50),
        },
        ..DealQuery::default()
    };
    let page = client.list_deals(&q).await.unwrap();
    assert_eq!(page.data[0].value.as_ref().unwrap().display(), "10.50");
    assert_eq!(page.meta.unwrap().total, Some(1));

    let seen = &server.seen()[0];
    assert_eq!(seen.method, "GET");
    assert_eq!(
        seen.target,
        "/public/v1/deals?name=Big+deal&include=account%2Ccontacts&page=2&per_page=50"
    );
    assert_eq!(
        seen.header("authorization"),
        Some(format!("Bearer {TOKEN}").as_str())
    );
    assert_eq!(seen.header("accept"), Some("application/json"));
    assert!(seen.header("user-agent").unwrap().starts_with("crmdash/"));
    assert_eq!(
        seen.header("content-type"),
        None,
        "no body, no content type"
    );

    let debug = format!("{client:?}");
    assert!(!debug.contains(TOKEN), "{debug}");
    assert!(debug.contains("127.0.0.1"));
}

#[tokio::test]
async fn lists_of_contacts_and_projects_use_their_paths() {
    let server = serve(|n| match n {
        0 => json_ok(r#"[{"id":"c1","email":"a@b.c"}]"#),
        _ => json_ok(
            r#"{"data":[{"id":"p1","start_date":"2026-01-01"}],"current_page":1,"last_page":1}"#,
        ),
    })
    .await;
    let client = server.client();
    let contacts = client
        .list_contacts(&ContactQuery::default())
        .await
        .unwrap();
    assert_eq!(contacts.data[0].email.as_deref(), Some("a@b.c"));
    let projects = client
        .list_projects(&ProjectQuery::default())
        .await
        .unwrap();
    assert_eq!(projects.data[0].id, "p1");
    assert!(!projects.has_next());
    let targets: Vec<String> = server.seen().into_iter().map(|s| s.target).collect();
    assert_eq!(targets, ["/public/v1/contacts", "/public/v1/projects"]);
}

#[tokio::test]
async fn reads_retry_gateway_errors_then_succeed_and_report_each_retry() {
    let server = serve(|n| match n {
        0 => http(
            "502 Bad Gateway",
            &[("Content-Type", "text/html")],
            "<html>bad gateway</html>",
        ),
        1 => http("503 Service Unavailable", &[], "<html>down</html>"),
        2 => http("504 Gateway Timeout", &[], ""),
        _ => json_ok(r#"{"data":[]}"#),
    })
    .await;
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = events.clone();
    let client = server
        .client()
        .with_observer(Arc::new(move |e: &RequestEvent| {
            if let RequestEvent::Retrying {
                attempt,
                max_attempts,
                ..
            } = e
            {
                sink.lock().unwrap().push((*attempt, *max_attempts));
            }
        }));
    let page = client.list_deals(&DealQuery::default()).await.unwrap();
    assert!(page.data.is_empty());
    assert_eq!(server.attempts(), 4);
    assert_eq!(*events.lock().unwrap(), [(2, 4), (3, 4), (4, 4)]);
}

#[tokio::test]
async fn reads_give_up_after_three_retries_with_the_last_status() {
    let server = serve(|_| {
        http(
            "503 Service Unavailable",
            &[],
            "<html><body>maintenance</body></html>",
        )
    })
    .await;
    let err = server
        .client()
        .list_deals(&DealQuery::default())
        .await
        .unwrap_err();
    assert_eq!(server.attempts(), 4);
    assert_eq!(
        (err.kind, err.status, err.attempts),
        (ErrorKind::Server, Some(503), 4)
    );
    assert!(err.to_string().contains("Service Unavailable"), "{err}");
    assert!(!err.outcome_unknown, "a read has no outcome to lose");
    assert_no_token(&err);
}

#[tokio::test]
async fn other_errors_are_not_retried() {
    for (status, kind) in [
        ("500 Internal Server Error", ErrorKind::Server),
        ("401 Unauthorized", ErrorKind::Unauthorized),
        ("404 Not Found", ErrorKind::NotFound),
        ("422 Unprocessable Entity", ErrorKind::Validation),
    ] {
        let server = serve(move |_| http(status, &[], r#"{"message":"no luck"}"#)).await;
        let err = server
            .client()
            .list_projects(&ProjectQuery::default())
            .await
            .unwrap_err();
        assert_eq!((server.attempts(), err.kind), (1, kind), "{status}");
        assert!(err.to_string().contains("no luck"), "{err}");
        assert_no_token(&err);
    }
}

#[tokio::test]
async fn rate_limits_honour_retry_after_capped() {
    // Retry-After: 3600 would outlast the 3 s deadline; capped at 50 ms it is retried.
    let server = serve(|n| match n {
        0 => http("429 Too Many Requests", &[("Retry-After", "3600")], ""),
        _ => json_ok("[]"),
    })
    .await;
    server
        .client()
        .list_contacts(&ContactQuery::default())
        .await
        .unwrap();
    assert_eq!(server.attempts(), 2);

    let always = serve(|_| {
        http(
            "429 Too Many Requests",
            &[("Retry-After", "1")],
            "{\"message\":\"slow down\"}",
        )
    })
    .await;
    let err = always
        .client()
        .list_contacts(&ContactQuery::default())
        .await
        .unwrap_err();
    assert_eq!((always.attempts(), err.kind), (4, ErrorKind::RateLimited));
    assert!(err.to_string().contains("slow down"), "{err}");
}

#[tokio::test]
async fn creates_retry_with_the_same_key_and_the_same_body() {
    let server = serve(|n| match n {
        0 => http("503 Service Unavailable", &[], ""),
        1 => Reply::Drop,
        _ => http(
            "201 Created",
            &[
                ("Content-Type", "application/json"),
                ("Idempotent-Replayed", "true"),
            ],
            r#"{"data":{"id":"c-77","first_name":"Ada","email":"ada@example.com"}}"#,
        ),
    })
    .await;
    let key = IdempotencyKey::random();
    let mut contact = new_contact();
    contact.extra.insert("tags".into(), json!(["import"]));
    let created = server
        .client()
        .create_contact(&crate::ticket(), &contact, &key)
        .await
        .unwrap();
    assert_eq!(created.status, 201);
    assert!(created.replayed);
    assert_eq!(created.record.unwrap().id, "c-77");

    let seen = server.seen();
    assert_eq!(seen.len(), 3);
    let expected = serde_json::to_vec(&contact.to_body()).unwrap();
    for s in &seen {
        assert_eq!(
            (s.method.as_str(), s.target.as_str()),
            ("POST", "/public/v1/contacts")
        );
        assert_eq!(s.header("idempotency-key"), Some(key.as_str()));
        assert_eq!(s.header("content-type"), Some("application/json"));
        assert_eq!(s.body, expected, "identical body on every attempt");
    }
    let sent: serde_json::Value = serde_json::from_slice(&seen[0].body).unwrap();
    assert_eq!(sent["tags"], json!(["import"]));
    assert_eq!(sent["phone"], json!("+44 20 7946 0000"));
}

#[tokio::test]
async fn creates_never_retry_a_client_error() {
    for (status, kind) in [
        ("400 Bad Request", ErrorKind::Validation),
        ("409 Conflict", ErrorKind::Conflict),
        ("422 Unprocessable Entity", ErrorKind::Validation),
    ] {
        let server = serve(move |_| {
            http(
                status,
                &[("Content-Type", "application/json")],
                r#"{"message":"The given data was invalid.","errors":{"email":["The email has already been taken."]}}"#,
            )
        })
        .await;
        let err = server
            .client()
            .create_contact(&crate::ticket(), &new_contact(), &IdempotencyKey::random())
            .await
            .unwrap_err();
        assert_eq!((server.attempts(), err.kind), (1, kind), "{status}");
        assert_eq!(
            err.field_errors["email"],
            ["The email has already been taken."]
        );
        assert!(
            !err.outcome_unknown,
            "the server answered: nothing was created"
        );
        assert_no_token(&err);
    }
}

#[tokio::test]
async fn a_create_whose_answer_is_lost_reports_an_unknown_outcome() {
    let server = serve(|_| Reply::Drop).await;
    let err = server
        .client()
        .create_contact(&crate::ticket(), &new_contact(), &IdempotencyKey::random())
        .await
        .unwrap_err();
    assert_eq!((server.attempts(), err.kind), (4, ErrorKind::Network));
    assert!(err.outcome_unknown, "{err:?}");
    assert!(err.to_string().contains("Idempotency-Key"), "{err}");
    assert_no_token(&err);
}

#[tokio::test]
async fn a_create_that_times_out_is_retried_once_and_stays_unknown() {
    let server = serve(|_| Reply::Hang).await;
    let err = server
        .client()
        .create_contact(&crate::ticket(), &new_contact(), &IdempotencyKey::random())
        .await
        .unwrap_err();
    assert_eq!((server.attempts(), err.kind), (2, ErrorKind::Timeout));
    assert!(err.outcome_unknown);
    let seen = server.seen();
    assert_eq!(
        seen[0].header("idempotency-key"),
        seen[1].header("idempotency-key")
    );
}

#[tokio::test]
async fn a_created_contact_whose_body_is_odd_is_still_created() {
    let server = serve(|n| match n {
        0 => http("201 Created", &[], ""),
        1 => json_ok(r#"{"status":"queued"}"#),
        _ => http("202 Accepted", &[], r#"{"data":null}"#),
    })
    .await;
    let client = server.client();
    let key = IdempotencyKey::from_stable("import-row-17").unwrap();
    let empty = client
        .create_contact(&crate::ticket(), &new_contact(), &key)
        .await
        .unwrap();
    assert_eq!(
        (
            empty.status,
            empty.record.is_none(),
            empty.undecoded.is_none()
        ),
        (201, true, true)
    );
    let odd = client
        .create_contact(&crate::ticket(), &new_contact(), &key)
        .await
        .unwrap();
    assert!(odd.record.is_none());
    assert!(odd.undecoded.unwrap().message.contains("no id"));
    let null = client
        .create_contact(&crate::ticket(), &new_contact(), &key)
        .await
        .unwrap();
    assert_eq!((null.status, null.record.is_none()), (202, true));
    assert!(
        server
            .seen()
            .iter()
            .all(|s| s.header("idempotency-key") == Some("import-row-17"))
    );
}
