//! Faults over real HTTP on 127.0.0.1: reschedule's cautious retries, timeouts and the
//! operation deadline, redirects, oversized, cut and undecodable bodies, refused connections.

use crate::api_wire;

use std::time::Duration;

use api_wire::{
    Reply, TOKEN, assert_no_token, fast_options, http, json_ok, raw_response, refused_base, serve,
};
use crmdash::api::{Client, ClientOptions, DealQuery, ErrorKind, IdempotencyKey, NewContact};
use secrecy::SecretString;
use serde_json::{Map, Value, json};

const APPOINTMENT: &str = r#"{"data":{"id":"a/b c","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-02T00:00:00Z"}}"#;

fn reschedule_body() -> Map<String, Value> {
    let Value::Object(m) = json!({"starts_at": "2026-12-01T09:00:00Z", "note": "moved"}) else {
        unreachable!()
    };
    m
}

fn client_with(base: &str, opts: ClientOptions) -> Client {
    Client::with_options(base, SecretString::from(TOKEN), opts).unwrap()
}

#[tokio::test]
async fn reschedule_sends_the_body_as_given_to_the_encoded_path() {
    let server = serve(|_| json_ok(APPOINTMENT)).await;
    let appt = server
        .client()
        .reschedule_appointment(&crate::ticket(), "a/b c", &reschedule_body())
        .await
        .unwrap();
    assert_eq!(appt.id, "a/b c");
    let seen = &server.seen()[0];
    assert_eq!(seen.method, "POST");
    assert_eq!(seen.target, "/public/v1/appointments/a%2Fb%20c/reschedule");
    assert_eq!(seen.header("content-type"), Some("application/json"));
    assert_eq!(seen.header("idempotency-key"), None);
    let sent: Map<String, Value> = serde_json::from_slice(&seen.body).unwrap();
    assert_eq!(sent, reschedule_body());
}

#[tokio::test]
async fn reschedule_retries_only_when_told_to_come_back() {
    let server = serve(|n| match n {
        0 => http("503 Service Unavailable", &[("Retry-After", "0")], ""),
        1 => http("429 Too Many Requests", &[("Retry-After", "1")], ""),
        _ => json_ok(APPOINTMENT),
    })
    .await;
    let client = server.client();
    client
        .reschedule_appointment(&crate::ticket(), "a1", &reschedule_body())
        .await
        .unwrap();
    assert_eq!(server.attempts(), 3);

    for reply in [
        http("503 Service Unavailable", &[], "<html>down</html>"),
        http("502 Bad Gateway", &[], ""),
        http("429 Too Many Requests", &[], ""),
        http("500 Internal Server Error", &[("Retry-After", "1")], ""),
    ] {
        let shown = format!("{reply:?}");
        let server = serve(move |_| reply.clone()).await;
        let err = server
            .client()
            .reschedule_appointment(&crate::ticket(), "a1", &reschedule_body())
            .await
            .unwrap_err();
        assert_eq!(server.attempts(), 1, "{shown}");
        assert!(!err.outcome_unknown, "the server answered");
    }
}

#[tokio::test]
async fn reschedule_is_not_repeated_once_it_may_have_arrived() {
    for reply in [Reply::Drop, Reply::Hang] {
        let server = serve(move |_| reply.clone()).await;
        let err = server
            .client()
            .reschedule_appointment(&crate::ticket(), "a1", &reschedule_body())
            .await
            .unwrap_err();
        assert_eq!(server.attempts(), 1);
        assert!(err.outcome_unknown, "{err:?}");
        assert!(err.to_string().contains("may have been applied"), "{err}");
        assert_no_token(&err);
    }
}

#[tokio::test]
async fn refused_connections_are_retried_and_their_outcome_is_known() {
    let base = refused_base().await;
    let client = client_with(&base, fast_options());
    let err = client
        .reschedule_appointment(&crate::ticket(), "a1", &reschedule_body())
        .await
        .unwrap_err();
    assert_eq!((err.kind, err.attempts), (ErrorKind::Network, 4));
    assert!(!err.outcome_unknown, "never connected, so never applied");
    assert!(err.to_string().contains("cannot connect"), "{err}");
    let err = client.list_deals(&DealQuery::default()).await.unwrap_err();
    assert_eq!((err.kind, err.attempts), (ErrorKind::Network, 4));
    assert_no_token(&err);
}

#[tokio::test]
async fn reads_retry_a_timeout_once() {
    let server = serve(|_| Reply::Hang).await;
    let err = server
        .client()
        .list_deals(&DealQuery::default())
        .await
        .unwrap_err();
    assert_eq!(
        (server.attempts(), err.kind, err.attempts),
        (2, ErrorKind::Timeout, 2)
    );
    assert!(!err.outcome_unknown);

    let recovers = serve(|n| if n == 0 { Reply::Hang } else { json_ok("[]") }).await;
    recovers
        .client()
        .list_deals(&DealQuery::default())
        .await
        .unwrap();
    assert_eq!(recovers.attempts(), 2);
}

#[tokio::test]
async fn the_operation_deadline_bounds_everything() {
    let server = serve(|_| Reply::Hang).await;
    let opts = ClientOptions {
        request_timeout: Duration::from_secs(30),
        deadline: Duration::from_millis(400),
        ..fast_options()
    };
    let err = client_with(&server.base, opts)
        .list_deals(&DealQuery::default())
        .await
        .unwrap_err();
    assert_eq!((err.kind, server.attempts()), (ErrorKind::Timeout, 1));
    assert!(err.to_string().contains("400ms"), "{err}");

    // A Retry-After longer than what is left of the deadline ends the operation at once.
    let slow = serve(|_| http("503 Service Unavailable", &[("Retry-After", "30")], "")).await;
    let opts = ClientOptions {
        deadline: Duration::from_secs(2),
        max_retry_after: Duration::from_secs(30),
        ..fast_options()
    };
    let err = client_with(&slow.base, opts)
        .list_deals(&DealQuery::default())
        .await
        .unwrap_err();
    assert_eq!((err.kind, slow.attempts()), (ErrorKind::Server, 1));
    assert_eq!(err.retry_after, Some(Duration::from_secs(30)));
}

#[tokio::test]
async fn redirects_are_not_followed_and_name_their_location() {
    let server = serve(|_| {
        http(
            "302 Found",
            &[("Location", "https://login.example.net/sso")],
            "",
        )
    })
    .await;
    let client = server.client();
    let err = client.list_deals(&DealQuery::default()).await.unwrap_err();
    assert_eq!((err.kind, err.status), (ErrorKind::Redirect, Some(302)));
    assert_eq!(
        err.location.as_deref(),
        Some("https://login.example.net/sso")
    );
    assert!(
        err.to_string().contains("https://login.example.net/sso"),
        "{err}"
    );
    let err = client
        .create_contact(
            &crate::ticket(),
            &NewContact::default(),
            &IdempotencyKey::random(),
        )
        .await
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Redirect);
    assert_eq!(server.attempts(), 2, "one per operation, never followed");
}

#[tokio::test]
async fn bodies_over_the_limit_are_refused() {
    let big = format!("[{}]", vec![r#"{"id":"x"}"#; 200].join(","));
    let declared = big.clone();
    let server = serve(move |_| json_ok(&declared)).await;
    let opts = ClientOptions {
        max_body_bytes: 1024,
        ..fast_options()
    };
    let err = client_with(&server.base, opts.clone())
        .list_deals(&DealQuery::default())
        .await
        .unwrap_err();
    assert_eq!((err.kind, server.attempts()), (ErrorKind::BadResponse, 1));
    assert!(err.to_string().contains("limit"), "{err}");

    // Without Content-Length (read to the end): refused while streaming.
    let streamed = big.clone();
    let chunked = serve(move |_| {
        let mut bytes = b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n".to_vec();
        bytes.extend_from_slice(streamed.as_bytes());
        Reply::Send(bytes)
    })
    .await;
    let err = client_with(&chunked.base, opts)
        .list_deals(&DealQuery::default())
        .await
        .unwrap_err();
    assert_eq!((err.kind, chunked.attempts()), (ErrorKind::BadResponse, 1));
}

#[tokio::test]
async fn a_body_cut_mid_way_is_retried_on_a_read() {
    let full = r#"{"data":[{"id":"d1"},{"id":"d2"}]}"#;
    let server = serve(move |n| {
        if n == 0 {
            Reply::Send(raw_response(
                "200 OK",
                &[],
                &full.as_bytes()[..12],
                full.len(),
            ))
        } else {
            json_ok(full)
        }
    })
    .await;
    let page = server
        .client()
        .list_deals(&DealQuery::default())
        .await
        .unwrap();
    assert_eq!((page.data.len(), server.attempts()), (2, 2));
}

#[tokio::test]
async fn complete_but_undecodable_bodies_are_bad_responses_naming_the_first_bytes() {
    for (body, needle) in [
        (
            r#"{"data":[{"id":"d1"},{"id""#,
            r#"{\"data\":[{\"id\":\"d1\"}"#,
        ),
        (
            "<html><body>Welcome to nginx</body></html>",
            "Welcome to nginx",
        ),
        ("", "empty"),
    ] {
        let server = serve(move |_| json_ok(body)).await;
        let err = server
            .client()
            .list_deals(&DealQuery::default())
            .await
            .unwrap_err();
        assert_eq!(
            (err.kind, err.status),
            (ErrorKind::BadResponse, Some(200)),
            "{body}"
        );
        assert_eq!(server.attempts(), 1, "the same bytes would come again");
        assert!(err.to_string().contains(needle), "{err}");
        assert!(!err.to_string().contains('\n'));
        assert_no_token(&err);
    }
}
