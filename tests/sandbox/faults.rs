//! Every fault kind of the sandbox, observed through the typed client (and its retries) over
//! real HTTP, plus the control endpoint that sets faults from another process.

use std::time::Duration;

use crmdash::api::{
    Client, ClientOptions, ContactQuery, DealQuery, ErrorKind, IdempotencyKey, NewContact,
    ProjectQuery,
};
use crmdash::sandbox::{
    DEFAULT_REDIRECT, FaultKind, FaultRule, Sandbox, SandboxConfig, SandboxHandle,
};
use secrecy::SecretString;
use serde_json::{Map, Value, json};

fn opts() -> ClientOptions {
    ClientOptions {
        backoff_base: Duration::from_millis(10),
        request_timeout: Duration::from_secs(5),
        deadline: Duration::from_secs(30),
        ..Default::default()
    }
}

async fn start() -> (SandboxHandle, Client) {
    let sb = Sandbox::start(SandboxConfig::default())
        .await
        .expect("sandbox starts");
    let client =
        Client::with_options(&sb.base_url(), SecretString::from(sb.token()), opts()).unwrap();
    (sb, client)
}

fn client_with(sb: &SandboxHandle, o: ClientOptions) -> Client {
    Client::with_options(&sb.base_url(), SecretString::from(sb.token()), o).unwrap()
}

fn count(sb: &SandboxHandle, method: &str, path: &str) -> usize {
    sb.requests()
        .iter()
        .filter(|r| r.method == method && r.path == path)
        .count()
}

fn new_contact(email: &str) -> NewContact {
    NewContact {
        first_name: Some("Ngozi".into()),
        last_name: Some("Okafor".into()),
        email: Some(email.into()),
        phone: Some("+234 803 123 4567".into()),
        extra: Map::new(),
    }
}

#[tokio::test]
async fn server_errors_with_html_bodies() {
    let (sb, client) = start().await;
    // 500 is not retried: the client reports it with the status, not the HTML.
    sb.faults()
        .inject("GET", "/deals", FaultKind::ServerError { status: 500 }, 1);
    let e = client.list_deals(&DealQuery::default()).await.unwrap_err();
    assert_eq!((e.kind, e.status), (ErrorKind::Server, Some(500)));
    assert!(!e.message.contains("<html"), "{}", e.message);
    assert_eq!(count(&sb, "GET", "/public/v1/deals"), 1);
    // 503 on a read is retried, and the second attempt succeeds.
    sb.clear_requests();
    sb.faults()
        .inject("GET", "/deals", FaultKind::ServerError { status: 503 }, 1);
    assert_eq!(
        client
            .list_deals(&DealQuery::default())
            .await
            .unwrap()
            .data
            .len(),
        25
    );
    assert_eq!(count(&sb, "GET", "/public/v1/deals"), 2);
    // Targeted: other routes are untouched.
    sb.faults().add(
        FaultRule::new(FaultKind::ServerError { status: 502 })
            .on("GET", "/deals")
            .always(),
    );
    assert!(client.list_projects(&ProjectQuery::default()).await.is_ok());
    let e = client.list_deals(&DealQuery::default()).await.unwrap_err();
    assert_eq!(e.status, Some(502));
    assert_eq!(e.attempts, 4, "three retries, then the error");
    sb.faults().clear();
    assert!(client.list_deals(&DealQuery::default()).await.is_ok());
}

#[tokio::test]
async fn rate_limited_with_retry_after() {
    let (sb, client) = start().await;
    sb.faults().inject(
        "GET",
        "/contacts",
        FaultKind::RateLimited {
            retry_after_secs: 1,
        },
        1,
    );
    assert!(client.list_contacts(&ContactQuery::default()).await.is_ok());
    assert_eq!(count(&sb, "GET", "/public/v1/contacts"), 2);
    sb.faults().add(
        FaultRule::new(FaultKind::RateLimited {
            retry_after_secs: 0,
        })
        .always(),
    );
    let e = client
        .list_contacts(&ContactQuery::default())
        .await
        .unwrap_err();
    assert_eq!((e.kind, e.status), (ErrorKind::RateLimited, Some(429)));
    assert_eq!(e.retry_after, Some(Duration::ZERO));
}

#[tokio::test]
async fn create_committed_but_answer_dropped_is_retried_without_duplicate() {
    let (sb, client) = start().await;
    sb.faults()
        .inject("POST", "/contacts", FaultKind::DropAfterCommit, 1);
    let key = IdempotencyKey::random();
    let created = client
        .create_contact(&crate::ticket(), &new_contact("dropped@example.ng"), &key)
        .await
        .unwrap();
    assert!(
        created.replayed,
        "the retry is answered from the stored result"
    );
    assert_eq!(
        sb.contacts_with_email("dropped@example.ng"),
        1,
        "exactly one contact"
    );
    let posts: Vec<_> = sb
        .requests()
        .into_iter()
        .filter(|r| r.method == "POST")
        .collect();
    assert_eq!(posts.len(), 2);
    assert!(
        posts
            .iter()
            .all(|r| r.idempotency_key.as_deref() == Some(key.as_str()))
    );
    assert_eq!(
        posts[0].body, posts[1].body,
        "the retry resends the same body"
    );
}

#[tokio::test]
async fn create_after_503_and_cut_body_leaves_one_contact() {
    let (sb, client) = start().await;
    sb.faults().inject(
        "POST",
        "/contacts",
        FaultKind::ServerError { status: 503 },
        1,
    );
    sb.faults()
        .inject("POST", "/contacts", FaultKind::CutMidBody, 1);
    let created = client
        .create_contact(
            &crate::ticket(),
            &new_contact("retry@example.ng"),
            &IdempotencyKey::random(),
        )
        .await
        .unwrap();
    assert_eq!(created.status, 201);
    assert_eq!(count(&sb, "POST", "/public/v1/contacts"), 3);
    assert_eq!(sb.contacts_with_email("retry@example.ng"), 1);
}

#[tokio::test]
async fn reschedule_dropped_after_commit_is_not_retried() {
    let (sb, client) = start().await;
    sb.faults().inject(
        "POST",
        "/appointments/*/reschedule",
        FaultKind::DropAfterCommit,
        1,
    );
    let body = json!({"start_time": "2026-04-01T12:00:00Z"})
        .as_object()
        .unwrap()
        .clone();
    let e = client
        .reschedule_appointment(&crate::ticket(), "apt_000007", &body)
        .await
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Network);
    assert!(
        e.outcome_unknown,
        "the user must be told it may have happened"
    );
    assert_eq!(
        count(&sb, "POST", "/public/v1/appointments/apt_000007/reschedule"),
        1
    );
    assert_eq!(
        sb.appointment("apt_000007").unwrap()["start_time"],
        "2026-04-01T12:00:00.000000Z"
    );
}

#[tokio::test]
async fn broken_bodies() {
    let (sb, client) = start().await;
    // A complete 200 whose JSON is cut short.
    sb.faults()
        .inject("GET", "/deals", FaultKind::TruncatedJson, 1);
    let e = client.list_deals(&DealQuery::default()).await.unwrap_err();
    assert_eq!((e.kind, e.status), (ErrorKind::BadResponse, Some(200)));
    // 200 with HTML.
    sb.faults().inject("GET", "/deals", FaultKind::NonJson, 1);
    let e = client.list_deals(&DealQuery::default()).await.unwrap_err();
    assert_eq!(e.kind, ErrorKind::BadResponse);
    assert!(e.message.contains("JSON"), "{}", e.message);
    // Connection cut in the middle of the body: a read retries and gets the page.
    sb.clear_requests();
    sb.faults()
        .inject("GET", "/projects", FaultKind::CutMidBody, 1);
    assert_eq!(
        client
            .list_projects(&ProjectQuery::default())
            .await
            .unwrap()
            .data
            .len(),
        25
    );
    assert_eq!(count(&sb, "GET", "/public/v1/projects"), 2);
    // ...and when every attempt is cut, a network error.
    sb.faults().add(
        FaultRule::new(FaultKind::CutMidBody)
            .on("GET", "/projects")
            .always(),
    );
    let e = client
        .list_projects(&ProjectQuery::default())
        .await
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Network);
    assert_eq!(e.status, Some(200));
}

#[tokio::test]
async fn ten_megabyte_body() {
    let (sb, client) = start().await;
    sb.faults().inject(
        "GET",
        "/deals",
        FaultKind::HugeBody {
            bytes: 10 * 1024 * 1024,
        },
        1,
    );
    // Within the default limit: valid JSON, decoded.
    assert_eq!(
        client
            .list_deals(&DealQuery::default())
            .await
            .unwrap()
            .data
            .len(),
        25
    );
    // Over a smaller limit: refused.
    let small = client_with(
        &sb,
        ClientOptions {
            max_body_bytes: 1024 * 1024,
            ..opts()
        },
    );
    sb.faults().inject(
        "GET",
        "/deals",
        FaultKind::HugeBody {
            bytes: 10 * 1024 * 1024,
        },
        1,
    );
    let e = small.list_deals(&DealQuery::default()).await.unwrap_err();
    assert_eq!(e.kind, ErrorKind::BadResponse);
    assert!(e.message.contains("limit"), "{}", e.message);
}

#[tokio::test]
async fn latency_and_hang() {
    let (sb, _client) = start().await;
    let impatient = client_with(
        &sb,
        ClientOptions {
            request_timeout: Duration::from_millis(300),
            deadline: Duration::from_secs(10),
            ..opts()
        },
    );
    // Slow once: the attempt times out, the retry is served.
    sb.faults()
        .inject("GET", "/deals", FaultKind::Latency { ms: 3000 }, 1);
    assert!(impatient.list_deals(&DealQuery::default()).await.is_ok());
    assert_eq!(count(&sb, "GET", "/public/v1/deals"), 2);
    // Never answers: a timeout; for a create the outcome is unknown.
    sb.faults().add(FaultRule::new(FaultKind::Hang).always());
    let e = impatient
        .list_deals(&DealQuery::default())
        .await
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Timeout);
    let e = impatient
        .create_contact(
            &crate::ticket(),
            &new_contact("hang@example.ng"),
            &IdempotencyKey::random(),
        )
        .await
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Timeout);
    assert!(e.outcome_unknown);
    // Latency set at start applies to every request and changes nothing else.
    let slow = Sandbox::start(SandboxConfig {
        latency: Some(Duration::from_millis(50)),
        ..Default::default()
    })
    .await
    .unwrap();
    let c = client_with(&slow, opts());
    assert_eq!(
        c.list_deals(&DealQuery::default())
            .await
            .unwrap()
            .data
            .len(),
        25
    );
    sb.shutdown().await;
}

#[tokio::test]
async fn redirect_and_revoked_token() {
    let (sb, client) = start().await;
    sb.faults().inject(
        "GET",
        "/contacts",
        FaultKind::Redirect {
            location: DEFAULT_REDIRECT.into(),
            status: 302,
        },
        1,
    );
    let e = client
        .list_contacts(&ContactQuery::default())
        .await
        .unwrap_err();
    assert_eq!((e.kind, e.status), (ErrorKind::Redirect, Some(302)));
    assert_eq!(e.location.as_deref(), Some(DEFAULT_REDIRECT));
    assert_eq!(
        count(&sb, "GET", "/public/v1/contacts"),
        1,
        "never followed"
    );
    sb.faults()
        .inject("POST", "/contacts", FaultKind::Unauthorized, 1);
    let e = client
        .create_contact(
            &crate::ticket(),
            &new_contact("revoked@example.ng"),
            &IdempotencyKey::random(),
        )
        .await
        .unwrap_err();
    assert_eq!((e.kind, e.status), (ErrorKind::Unauthorized, Some(401)));
    assert_eq!(sb.contacts_with_email("revoked@example.ng"), 0);
}

#[tokio::test]
async fn control_endpoint_sets_faults_and_shows_requests() {
    let (sb, client) = start().await;
    let http = reqwest::Client::new();
    let url = |p: &str| format!("{}/_sandbox/{p}", sb.base_url());
    let r = http
        .post(url("faults"))
        .json(&json!({"kind": "hang"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401, "the control endpoint needs the token");

    let r = http
        .post(url("faults"))
        .bearer_auth(sb.token())
        .json(&json!({"kind": "server_error", "status": 500, "method": "GET", "path": "/deals", "times": 2}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let rule: Value = r.json().await.unwrap();
    assert!(rule["data"]["id"].as_u64().unwrap() > 0);
    let listed: Value = http
        .get(url("faults"))
        .bearer_auth(sb.token())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(listed["data"][0]["times"], 2);
    for _ in 0..2 {
        assert_eq!(
            client
                .list_deals(&DealQuery::default())
                .await
                .unwrap_err()
                .status,
            Some(500)
        );
    }
    assert!(
        client.list_deals(&DealQuery::default()).await.is_ok(),
        "used up after two"
    );

    let bad = http
        .post(url("faults"))
        .bearer_auth(sb.token())
        .json(&json!({"kind": "explode"}))
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), 422);
    let bad = http
        .post(url("faults"))
        .bearer_auth(sb.token())
        .json(&json!({"kind": "server_error", "status": 200}))
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), 422);

    client
        .create_contact(
            &crate::ticket(),
            &new_contact("ctl@example.ng"),
            &IdempotencyKey::from_stable("ctl-1").unwrap(),
        )
        .await
        .unwrap();
    let log: Value = http
        .get(url("requests"))
        .bearer_auth(sb.token())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let entries = log["data"].as_array().unwrap();
    assert_eq!(entries.len(), 4, "control requests are not recorded");
    let post = entries.iter().find(|e| e["method"] == "POST").unwrap();
    assert_eq!(post["idempotency_key"], "ctl-1");
    assert!(post["body"].as_str().unwrap().contains("ctl@example.ng"));
    assert!(!log.to_string().contains(&sb.token()));

    let apt: Value = http
        .get(url("appointments/apt_000001"))
        .bearer_auth(sb.token())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(apt["data"]["id"], "apt_000001");

    assert_eq!(
        http.post(url("reset"))
            .bearer_auth(sb.token())
            .send()
            .await
            .unwrap()
            .status(),
        204
    );
    assert_eq!(sb.contacts_with_email("ctl@example.ng"), 0);
    assert!(sb.requests().is_empty());
    let stats: Value = http
        .get(url("stats"))
        .bearer_auth(sb.token())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(stats["contacts"], 1000);
}

#[tokio::test]
async fn large_data_set_pages_like_the_small_one() {
    let sb = Sandbox::start(SandboxConfig {
        contacts: 100_000,
        ..Default::default()
    })
    .await
    .unwrap();
    let client = client_with(&sb, opts());
    let mut q = ContactQuery::default();
    q.paging.per_page = Some(100);
    q.paging.page = Some(1000);
    let p = client.list_contacts(&q).await.unwrap();
    let m = p.meta.unwrap();
    assert_eq!((m.total, m.last_page), (Some(100_000), Some(1000)));
    assert_eq!(p.data.len(), 100);
    q.sort_by = Some(crmdash::api::ContactSort::LastName);
    q.sort_direction = Some(crmdash::api::SortDirection::Desc);
    for page in [1, 500, 1000] {
        q.paging.page = Some(page);
        assert_eq!(client.list_contacts(&q).await.unwrap().data.len(), 100);
    }
    q.full_name = Some("müller".into());
    q.paging.page = Some(1);
    let p = client.list_contacts(&q).await.unwrap();
    assert!(p.meta.unwrap().total.unwrap() > 100);
    assert!(
        p.data
            .iter()
            .all(|c| c.full_name().to_lowercase().contains("müller"))
    );
}
