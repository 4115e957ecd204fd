//! The fault matrix through the real `crmdash` binary: one test per fault of the sandbox, each
//! asserting no panic, a bounded run, a message naming the cause and the documented exit code
//! (0 ok, 1 other, 3 unauthorized, 6 network/server/rate limit/undecodable).

use crate::cli_support;

use std::net::TcpListener;

use cli_support::{Env, Run, fault, run};
use crmdash::sandbox::FaultKind;

/// `deals list` (JSON on stdout) with `rule` active.
fn deals(env: &Env) -> Run {
    run(env.cmd(&["deals", "list", "--format", "json", "--per-page", "5"]))
}

fn gets(env: &Env) -> usize {
    env.requests_to("GET", "deals").len()
}

/// A successful list: valid JSON with the page's records.
fn assert_listed(out: &Run) {
    let v = out.json();
    let rows = v.as_array().unwrap_or_else(|| panic!("{v}"));
    assert_eq!(rows.len(), 5, "{}", out.stdout);
}

#[test]
fn gateway_errors_with_html_bodies_are_retried_then_exit_6() {
    let env = Env::new();
    env.fault(
        fault(FaultKind::ServerError { status: 502 })
            .on("GET", "/deals")
            .times(1),
    );
    let out = deals(&env).code(0);
    assert_listed(&out);
    assert_eq!(gets(&env), 2, "one retry after the 502");

    env.fault(
        fault(FaultKind::ServerError { status: 503 })
            .on("GET", "/deals")
            .always(),
    );
    let out = deals(&env).code(6);
    let line = out.error_line();
    assert!(line.contains("Server error (503)"), "{line}");
    assert!(!line.contains('<'), "no HTML in the message: {line}");
    assert_eq!(gets(&env), 2 + 4, "1 attempt + 3 retries");
}

#[test]
fn rate_limits_wait_for_retry_after_then_exit_6() {
    let env = Env::new();
    env.fault(
        fault(FaultKind::RateLimited {
            retry_after_secs: 1,
        })
        .on("GET", "/deals")
        .times(1),
    );
    assert_listed(&deals(&env).code(0));
    env.fault(
        fault(FaultKind::RateLimited {
            retry_after_secs: 1,
        })
        .on("GET", "/deals")
        .always(),
    );
    let out = deals(&env).code(6);
    let line = out.error_line();
    assert!(
        line.contains("Rate limited (429)") && line.contains("wait 1s"),
        "{line}"
    );
}

#[test]
fn a_create_whose_answer_is_lost_after_commit_exists_once() {
    let env = Env::new();
    env.fault(
        fault(FaultKind::DropAfterCommit)
            .on("POST", "/contacts")
            .times(1),
    );
    let email = "lost.answer@example.com";
    let out = run(env.cmd(&[
        "contacts",
        "create",
        "--first-name",
        "Lost",
        "--email",
        email,
        "--format",
        "json",
    ]))
    .code(0);
    assert_eq!(out.json()["email"], email);
    assert_eq!(env.sb.contacts_with_email(email), 1, "never duplicated");
    let posts = env.requests_to("POST", "contacts");
    assert_eq!(posts.len(), 2, "retried once");
    assert_eq!(
        posts[0].idempotency_key, posts[1].idempotency_key,
        "the retry reuses the key"
    );
}

#[test]
fn a_create_dropped_on_every_attempt_is_answered_by_the_replay_and_exists_once() {
    let env = Env::new();
    // The sandbox replays a known key before the fault layer: the retry gets the first answer.
    env.fault(
        fault(FaultKind::DropAfterCommit)
            .on("POST", "/contacts")
            .always(),
    );
    let email = "always.lost@example.com";
    let out = run(env.cmd(&["contacts", "create", "--email", email])).code(0);
    assert!(out.stderr.contains("replayed"), "{}", out.stderr);
    assert_eq!(out.json()["email"], email);
    assert_eq!(env.sb.contacts_with_email(email), 1);
    let posts = env.requests_to("POST", "contacts");
    assert_eq!(posts.len(), 2);
    assert_eq!(posts[0].idempotency_key, posts[1].idempotency_key);
}

#[test]
fn json_cut_short_in_a_complete_answer_exits_6_without_retrying() {
    let env = Env::new();
    env.fault(fault(FaultKind::TruncatedJson).on("GET", "/deals").times(1));
    let out = deals(&env).code(6);
    let line = out.error_line();
    assert!(line.contains("Bad response (200)"), "{line}");
    assert_eq!(gets(&env), 1, "the same bytes would come again");
    assert!(out.stdout.is_empty(), "no partial output: {}", out.stdout);
}

#[test]
fn a_connection_cut_mid_body_is_retried_then_exits_6() {
    let env = Env::new();
    env.fault(fault(FaultKind::CutMidBody).on("GET", "/deals").times(1));
    assert_listed(&deals(&env).code(0));
    assert_eq!(gets(&env), 2);
    env.fault(fault(FaultKind::CutMidBody).on("GET", "/deals").always());
    let out = deals(&env).code(6);
    let line = out.error_line();
    assert!(line.contains("connection broke"), "{line}");
    assert!(out.stdout.is_empty(), "no partial output: {}", out.stdout);
}

#[test]
fn a_ten_megabyte_answer_is_read_whole() {
    let env = Env::new();
    env.fault(
        fault(FaultKind::HugeBody {
            bytes: crmdash::sandbox::HUGE_BODY_BYTES,
        })
        .on("GET", "/deals")
        .times(1),
    );
    assert_listed(&deals(&env).code(0));
    assert_eq!(gets(&env), 1);
}

#[test]
fn three_seconds_of_latency_is_waited_for() {
    let env = Env::new();
    env.fault(
        fault(FaultKind::Latency { ms: 3000 })
            .on("GET", "/deals")
            .times(1),
    );
    assert_listed(&deals(&env).code(0));
    assert_eq!(gets(&env), 1, "well under the 20 s per-attempt limit");
}

#[test]
fn a_server_that_is_down_exits_6_naming_the_connection() {
    let env = Env::new();
    // A port that was just free: nothing listens there.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let out = run(env.bare().env("CRMDASH_TOKEN", env.sb.token()).args([
        "--base-url",
        &format!("http://127.0.0.1:{port}"),
        "deals",
        "list",
    ]))
    .code(6);
    let line = out.error_line();
    assert!(line.contains("Network error: cannot connect"), "{line}");
}

/// Slow by nature: the binary has no timeout override, so this runs into its own limits
/// (20 s per attempt, one retry of a timeout, 60 s per operation). One request only.
#[test]
fn a_server_that_never_answers_is_given_up_within_the_deadline() {
    let env = Env::new();
    env.fault(fault(FaultKind::Hang).on("GET", "/deals").always());
    let started = std::time::Instant::now();
    let out = deals(&env).code(6);
    let line = out.error_line();
    assert!(line.contains("Timed out"), "{line}");
    assert_eq!(gets(&env), 2, "a timeout is retried once");
    // A bound, not a speed measurement: the contract's 60 s plus process start-up.
    assert!(started.elapsed().as_secs() < 90, "{:?}", started.elapsed());
}

#[test]
fn a_200_that_is_not_json_exits_6_quoting_its_start() {
    let env = Env::new();
    env.fault(fault(FaultKind::NonJson).on("GET", "/deals").times(1));
    let out = deals(&env).code(6);
    let line = out.error_line();
    assert!(line.contains("Bad response (200)"), "{line}");
    assert!(line.contains("<!DOCTYPE html>"), "names what came: {line}");
    assert_eq!(gets(&env), 1);
}

#[test]
fn a_redirect_is_not_followed_names_its_location_and_exits_1() {
    let env = Env::new();
    // A second host the redirect points at: it must never see a request.
    let other = TcpListener::bind("127.0.0.1:0").unwrap();
    other.set_nonblocking(true).unwrap();
    let location = format!(
        "http://127.0.0.1:{}/public/v1/deals",
        other.local_addr().unwrap().port()
    );
    env.fault(
        fault(FaultKind::Redirect {
            location: location.clone(),
            status: 302,
        })
        .on("GET", "/deals")
        .always(),
    );
    let out = deals(&env).code(1);
    let line = out.error_line();
    assert!(line.contains("Redirected (302)"), "{line}");
    assert!(line.contains(&location), "{line}");
    assert_eq!(gets(&env), 1, "not retried");
    match other.accept() {
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
        Ok(_) => panic!("the redirect target was contacted"),
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn a_token_revoked_mid_session_exits_3_and_says_to_log_in() {
    let env = Env::new();
    assert_listed(&deals(&env).code(0));
    env.fault(fault(FaultKind::Unauthorized).always());
    let out = deals(&env).code(3);
    let line = out.error_line();
    assert!(
        line.contains("Unauthorized (401)") && line.contains("crmdash login"),
        "{line}"
    );
    assert!(line.contains("revoked"), "the server's words: {line}");
    assert_eq!(gets(&env), 2, "a 401 is not retried");
    let out = run(env.cmd(&["contacts", "create", "--email", "after.revoke@example.com"])).code(3);
    out.error_line();
    assert_eq!(env.sb.contacts_with_email("after.revoke@example.com"), 0);
}
