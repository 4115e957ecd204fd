//! The fault matrix through the dashboard: the app and its effect engine against the sandbox
//! (real HTTP on 127.0.0.1), one test per fault. Each asserts on the app's state and screen:
//! the error in plain words with the retry key, the typed filter kept, and the data back once
//! the fault clears.

use std::net::TcpListener;
use std::time::Duration;

use crmdash::api::{Client, ClientOptions, IdempotencyKey, NewContact};
use crmdash::app::{Effect, Message, RequestId};
use crmdash::config::Settings;
use crmdash::runtime::{DashboardOptions, Engine, build_engine};
use crmdash::sandbox::{FaultKind, FaultRule, Sandbox, SandboxConfig, SandboxHandle};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use secrecy::SecretString;

const QUIET: Duration = Duration::from_millis(300);
const SIZE: (u16, u16) = (120, 30);

/// Short limits so the hang and retry rows stay quick; the defaults are tested by the CLI rows.
fn quick() -> ClientOptions {
    ClientOptions {
        request_timeout: Duration::from_millis(700),
        deadline: Duration::from_secs(3),
        backoff_base: Duration::from_millis(20),
        max_retry_after: Duration::from_secs(1),
        ..ClientOptions::default()
    }
}

fn engine_for(base_url: &str, token: &str, opts: ClientOptions) -> Engine {
    let client = Client::with_options(base_url, SecretString::from(token.to_string()), opts)
        .expect("client");
    let opts = DashboardOptions {
        profile: "test".into(),
        base_url: base_url.to_string(),
        client: Some(client),
        settings: Settings::default(),
        state_file: None,
        log_path: None,
        demo: false,
    };
    build_engine(&opts, SIZE)
}

/// A sandbox and a loaded dashboard (the Deals tab's first page on screen).
async fn start(opts: ClientOptions) -> (SandboxHandle, Engine) {
    let sb = Sandbox::start(SandboxConfig::default()).await.unwrap();
    let mut e = engine_for(&sb.base_url(), &sb.token(), opts);
    e.start();
    e.settle(QUIET).await;
    assert_loaded(&e);
    (sb, e)
}

fn key(e: &mut Engine, code: KeyCode) {
    e.handle(Message::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

fn assert_loaded(e: &Engine) {
    let tab = e.app.tab();
    assert_eq!(tab.error, None);
    assert_eq!(tab.records().len(), 25, "a full page of deals");
}

fn screen(e: &Engine) -> String {
    let mut t = Terminal::new(TestBackend::new(SIZE.0, SIZE.1)).unwrap();
    t.draw(|f| crmdash::ui::render(&e.app, f)).unwrap();
    let buf = t.backend().buffer();
    let mut out = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            out.push_str(buf[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

fn deals(rule: FaultRule) -> FaultRule {
    rule.on("GET", "/deals")
}

/// Opens the filter bar and types a name filter that matches many deals ("a"): the typed
/// text must survive every fault.
async fn type_filter(e: &mut Engine) {
    key(e, KeyCode::Char('/'));
    key(e, KeyCode::Char('a'));
    e.settle(QUIET).await;
}

fn filter_text(e: &Engine) -> String {
    e.app.tab().filter_bar.fields[0].input.value().to_string()
}

/// With the fault active on every request: refresh, and the error shows in words, with the
/// retry key, the filter kept. Then the fault clears, `r` brings the data back.
async fn fails_then_recovers(sb: &SandboxHandle, e: &mut Engine, words: &[&str]) -> String {
    type_filter(e).await;
    key(e, KeyCode::Esc);
    e.settle(QUIET).await;
    let error = e.app.tab().error.clone().expect("an error is shown");
    for w in words {
        assert!(error.contains(w), "{w:?} missing from: {error}");
    }
    if error.starts_with("Server error") {
        assert!(!error.contains('<'), "no HTML in the message: {error}");
    }
    let s = screen(e);
    // The last good rows stay, marked stale, with the retry key.
    assert!(s.contains("STALE") && s.contains("r retry"), "{s}");
    assert_eq!(filter_text(e), "a", "the typed filter is kept");
    sb.faults().clear();
    key(e, KeyCode::Char('r'));
    e.settle(QUIET).await;
    let tab = e.app.tab();
    assert_eq!(tab.error, None, "recovered");
    assert!(!tab.records().is_empty());
    assert!(
        tab.records()
            .iter()
            .all(|r| r.cells[0].text.to_lowercase().contains('a')),
        "the filter still applies"
    );
    assert_eq!(e.app.status.error, None);
    error
}

#[tokio::test]
async fn gateway_errors_recover_by_themselves_or_after_r() {
    let (sb, mut e) = start(quick()).await;
    sb.faults()
        .add(deals(FaultRule::new(FaultKind::ServerError { status: 502 })).times(1));
    key(&mut e, KeyCode::Char('r'));
    e.settle(QUIET).await;
    assert_loaded(&e);
    sb.faults()
        .add(FaultRule::new(FaultKind::ServerError { status: 503 }).always());
    fails_then_recovers(&sb, &mut e, &["Server error (503)"]).await;
}

#[tokio::test]
async fn rate_limits_show_the_wait_then_recover() {
    let (sb, mut e) = start(quick()).await;
    sb.faults().add(
        FaultRule::new(FaultKind::RateLimited {
            retry_after_secs: 1,
        })
        .always(),
    );
    fails_then_recovers(&sb, &mut e, &["Rate limited (429)", "wait 1s"]).await;
}

#[tokio::test]
async fn a_create_whose_answer_is_lost_after_commit_exists_once() {
    let (sb, mut e) = start(quick()).await;
    sb.faults().add(
        FaultRule::new(FaultKind::DropAfterCommit)
            .on("POST", "/contacts")
            .times(1),
    );
    let email = "dash.lost@example.com";
    e.run(vec![Effect::CreateContact {
        id: RequestId(77),
        contact: NewContact {
            first_name: Some("Dash".into()),
            email: Some(email.into()),
            ..NewContact::default()
        },
        key: IdempotencyKey::random(),
    }]);
    let mut retried = false;
    loop {
        match e.next_message().await {
            Message::Retrying { .. } => retried = true,
            // Each attempt is also logged for the request log (`W`).
            Message::RequestLogged(_) | Message::WriteAdmitted { .. } => {}
            Message::ContactCreated { result, .. } => {
                assert!(result.is_ok(), "{:?}", result.as_ref().as_ref().err());
                break;
            }
            other => panic!("{other:?}"),
        }
    }
    assert!(retried, "the lost answer was retried");
    assert_eq!(sb.contacts_with_email(email), 1, "never duplicated");
}

#[tokio::test]
async fn json_cut_short_is_a_bad_response() {
    let (sb, mut e) = start(quick()).await;
    sb.faults()
        .add(FaultRule::new(FaultKind::TruncatedJson).always());
    fails_then_recovers(&sb, &mut e, &["Bad response (200)"]).await;
}

#[tokio::test]
async fn a_connection_cut_mid_body_recovers_by_itself_or_after_r() {
    let (sb, mut e) = start(quick()).await;
    sb.faults()
        .add(deals(FaultRule::new(FaultKind::CutMidBody)).times(1));
    key(&mut e, KeyCode::Char('r'));
    e.settle(QUIET).await;
    assert_loaded(&e);
    sb.faults()
        .add(FaultRule::new(FaultKind::CutMidBody).always());
    fails_then_recovers(&sb, &mut e, &["connection broke"]).await;
}

#[tokio::test]
async fn a_ten_megabyte_answer_is_shown() {
    let (sb, mut e) = start(ClientOptions::default()).await;
    sb.faults().add(
        deals(FaultRule::new(FaultKind::HugeBody {
            bytes: crmdash::sandbox::HUGE_BODY_BYTES,
        }))
        .times(1),
    );
    key(&mut e, KeyCode::Char('r'));
    e.settle(QUIET).await;
    assert_loaded(&e);
}

#[tokio::test]
async fn a_ten_megabyte_answer_over_a_smaller_limit_is_refused_in_words() {
    let opts = ClientOptions {
        max_body_bytes: 1024 * 1024,
        ..quick()
    };
    let (sb, mut e) = start(opts).await;
    sb.faults().add(
        FaultRule::new(FaultKind::HugeBody {
            bytes: crmdash::sandbox::HUGE_BODY_BYTES,
        })
        .always(),
    );
    fails_then_recovers(&sb, &mut e, &["over the 1 MB limit"]).await;
}

#[tokio::test]
async fn three_seconds_of_latency_shows_the_spinner_then_the_data() {
    let (sb, mut e) = start(ClientOptions::default()).await;
    sb.faults()
        .add(deals(FaultRule::new(FaultKind::Latency { ms: 3000 })).times(1));
    key(&mut e, KeyCode::Char('r'));
    assert!(e.app.busy(), "the spinner runs while waiting");
    e.settle(QUIET).await;
    assert_loaded(&e);
}

#[tokio::test]
async fn a_server_that_is_down_says_so_and_recovers_when_it_is_back() {
    let (sb, mut e) = start(quick()).await;
    let port = sb.port();
    sb.shutdown().await;
    type_filter(&mut e).await;
    let error = e.app.tab().error.clone().expect("an error is shown");
    assert!(error.contains("Network error: cannot connect"), "{error}");
    let s = screen(&e);
    assert!(s.contains("STALE") && s.contains("r retry"), "{s}");
    assert_eq!(filter_text(&e), "a");
    // The service comes back on the same address.
    let back = Sandbox::start(SandboxConfig {
        port,
        ..SandboxConfig::default()
    })
    .await
    .expect("the port is free again");
    key(&mut e, KeyCode::Esc);
    key(&mut e, KeyCode::Char('r'));
    e.settle(QUIET).await;
    assert_eq!(e.app.tab().error, None);
    assert!(!e.app.tab().records().is_empty());
    back.shutdown().await;
}

#[tokio::test]
async fn a_server_that_never_answers_is_given_up_within_the_deadline() {
    let (sb, mut e) = start(quick()).await;
    sb.faults().add(FaultRule::new(FaultKind::Hang).always());
    fails_then_recovers(&sb, &mut e, &["Timed out"]).await;
}

#[tokio::test]
async fn a_200_that_is_not_json_is_a_bad_response() {
    let (sb, mut e) = start(quick()).await;
    sb.faults().add(FaultRule::new(FaultKind::NonJson).always());
    fails_then_recovers(&sb, &mut e, &["Bad response (200)"]).await;
}

#[tokio::test]
async fn a_redirect_names_its_location_and_the_other_host_sees_nothing() {
    let other = TcpListener::bind("127.0.0.1:0").unwrap();
    other.set_nonblocking(true).unwrap();
    let location = format!(
        "http://127.0.0.1:{}/public/v1/deals",
        other.local_addr().unwrap().port()
    );
    let (sb, mut e) = start(quick()).await;
    sb.faults().add(
        FaultRule::new(FaultKind::Redirect {
            location: location.clone(),
            status: 302,
        })
        .always(),
    );
    fails_then_recovers(&sb, &mut e, &["Redirected (302)", &location]).await;
    match other.accept() {
        Err(err) if err.kind() == std::io::ErrorKind::WouldBlock => {}
        Ok(_) => panic!("the redirect target was contacted"),
        Err(err) => panic!("{err}"),
    }
}

#[tokio::test]
async fn a_token_revoked_mid_session_says_to_log_in() {
    let (sb, mut e) = start(quick()).await;
    sb.faults()
        .add(FaultRule::new(FaultKind::Unauthorized).always());
    fails_then_recovers(&sb, &mut e, &["Unauthorized (401)", "crmdash login"]).await;
}
