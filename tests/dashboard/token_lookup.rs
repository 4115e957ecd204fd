//! The dashboard draws before it knows the token: the keyring read runs after the first frame
//! (`Engine::start`), requests wait for it instead of failing, and only a lookup that finds no
//! usable token opens the login dialog, naming the keyring's problem. Real HTTP to the embedded
//! sandbox; the keyring is an in-memory store that can hold, refuse or never answer.

use crate::keyring_support;

use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crmdash::app::dialogs::Overlay;
use crmdash::app::dialogs::login::TokenLookup;
use crmdash::app::{Message, Resource};
use crmdash::config::{Profile, Settings};
use crmdash::credentials::{Keyring, TokenOrigin, TokenSource};
use crmdash::runtime::{DashboardOptions, Engine, LoginContext, build_engine_with, token_lookup};
use crmdash::sandbox::{Sandbox, SandboxConfig, SandboxHandle};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use keyring_support::TestStore;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use secrecy::SecretString;

const QUIET: Duration = Duration::from_millis(700);
const PROFILE: &str = "work";

/// Settings where `PROFILE` has `base_url` saved (or none).
fn settings(base_url: Option<&str>) -> Settings {
    let mut s = Settings::default();
    s.profiles.insert(
        PROFILE.into(),
        Profile {
            base_url: base_url.map(str::to_string),
            ..Profile::default()
        },
    );
    s
}

/// The dashboard as `crmdash` builds it: no client yet, a lookup through `keyring`.
fn engine(sb: &SandboxHandle, s: Settings, keyring: Keyring, env: Option<&str>) -> Engine {
    let found = env.map(|t| TokenSource {
        token: SecretString::from(t.to_string()),
        origin: TokenOrigin::Env,
    });
    let lookup = token_lookup(
        keyring.clone(),
        found,
        PROFILE.into(),
        sb.base_url(),
        s.clone(),
    );
    let opts = DashboardOptions {
        profile: PROFILE.into(),
        base_url: sb.base_url(),
        client: None,
        settings: s,
        state_file: None,
        log_path: None,
        demo: false,
    };
    build_engine_with(&opts, (120, 30), Some(lookup)).with_login(LoginContext {
        profile: PROFILE.into(),
        base_url: sb.base_url(),
        options: Default::default(),
        keyring,
        config_path: None,
    })
}

async fn sandbox() -> SandboxHandle {
    Sandbox::start(SandboxConfig::default()).await.unwrap()
}

fn login_notice(e: &Engine) -> Option<Option<String>> {
    e.app.overlays.iter().find_map(|o| match o {
        Overlay::Login(d) => Some(d.notice.clone()),
        _ => None,
    })
}

fn rows(e: &Engine) -> usize {
    e.app.tabs[e.app.active.index()]
        .shown
        .as_ref()
        .map_or(0, |s| s.page.records.len())
}

fn screen(e: &Engine) -> String {
    let mut t = Terminal::new(TestBackend::new(120, 30)).unwrap();
    t.draw(|f| crmdash::ui::render(&e.app, f)).unwrap();
    let buf = t.backend().buffer();
    let mut s = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            s.push_str(buf[(x, y)].symbol());
        }
        s.push('\n');
    }
    s
}

#[tokio::test]
async fn requests_wait_for_a_slow_keyring_then_go_out_with_its_token() {
    let sb = sandbox().await;
    let (release, gate): (Sender<()>, Receiver<()>) = channel();
    let store = TestStore {
        gate: Some(Mutex::new(gate)),
        ..TestStore::holding(PROFILE, Some(&sb.token()))
    };
    let mut e = engine(
        &sb,
        settings(Some(&sb.base_url())),
        Keyring::with_store(Arc::new(store)),
        None,
    );
    // Before start (the first frame): nothing asked yet, the status says what is awaited.
    assert!(e.app.status.awaiting_token);
    assert!(screen(&e).contains("looking up the API token"));
    e.start();
    // Let the keyring thread block and any stray request land (none may).
    tokio::time::sleep(Duration::from_millis(200)).await;
    while let Some(m) = e.try_recv() {
        e.handle(m);
    }
    assert_eq!(
        e.deferred(),
        1,
        "the first tab's request waits for the token"
    );
    assert!(sb.requests().is_empty(), "nothing sent before the token");
    assert!(login_notice(&e).is_none(), "no login dialog while looking");
    assert_eq!(rows(&e), 0);
    // Keys are handled meanwhile: switching tabs queues that tab's request too.
    e.handle(Message::Key(KeyEvent::new(
        KeyCode::Char('1'),
        KeyModifiers::NONE,
    )));
    assert_eq!(e.app.active, Resource::Contacts);
    release.send(()).unwrap();
    e.settle(QUIET).await;
    assert!(!e.app.status.awaiting_token);
    assert_eq!(e.deferred(), 0);
    assert!(rows(&e) > 0, "the contacts page arrived");
    assert!(login_notice(&e).is_none());
    assert!(e.app.status.error.is_none(), "{:?}", e.app.status.error);
    let log = sb.requests();
    assert!(log.iter().any(|r| r.path.ends_with("/contacts")), "{log:?}");
    assert!(!screen(&e).contains("looking up the API token"));
}

#[tokio::test]
async fn the_environment_token_needs_no_keyring() {
    let sb = sandbox().await;
    let store = TestStore {
        unreachable: true,
        ..TestStore::holding(PROFILE, None)
    };
    // No saved base URL either: an env token is not bound to one.
    let mut e = engine(
        &sb,
        Settings::default(),
        Keyring::with_store(Arc::new(store)),
        Some(&sb.token()),
    );
    e.start();
    e.settle(QUIET).await;
    assert!(rows(&e) > 0);
    assert!(login_notice(&e).is_none());
}

#[tokio::test]
async fn no_token_in_the_keyring_opens_the_login_dialog_after_the_lookup() {
    let sb = sandbox().await;
    let store = Arc::new(TestStore::holding(PROFILE, None));
    let mut e = engine(
        &sb,
        settings(Some(&sb.base_url())),
        Keyring::with_store(store.clone()),
        None,
    );
    assert!(login_notice(&e).is_none(), "not before the lookup");
    e.start();
    e.settle(QUIET).await;
    assert_eq!(
        login_notice(&e),
        Some(None),
        "plain login, no problem to name"
    );
    // The dialog says it; the status bar behind it does not repeat it.
    assert!(e.app.status.error.is_none(), "{:?}", e.app.status.error);
    let err = e.app.status.behind_login.clone().unwrap_or_default();
    assert!(
        err.contains("Not logged in") && err.contains(PROFILE),
        "{err}"
    );
    assert!(sb.requests().is_empty());
    // Logging in from the dialog stores the token and loads the tab.
    e.handle(Message::Paste(sb.token()));
    e.handle(Message::Key(KeyEvent::new(
        KeyCode::Enter,
        KeyModifiers::NONE,
    )));
    e.settle(QUIET).await;
    assert!(login_notice(&e).is_none());
    assert!(rows(&e) > 0);
    assert_eq!(store.token(PROFILE), Some(sb.token()));
}

#[tokio::test]
async fn an_unreachable_keyring_is_named_in_the_login_dialog() {
    let sb = sandbox().await;
    let store = TestStore {
        unreachable: true,
        ..TestStore::holding(PROFILE, None)
    };
    let mut e = engine(
        &sb,
        settings(Some(&sb.base_url())),
        Keyring::with_store(Arc::new(store)),
        None,
    );
    e.start();
    e.settle(QUIET).await;
    let notice = login_notice(&e).flatten().expect("a notice");
    assert!(notice.starts_with("The OS keyring (test keyring) is unreachable"));
    assert!(notice.contains("no D-Bus session bus") && notice.contains("CRMDASH_TOKEN"));
    assert!(screen(&e).contains("is unreachable: no D-Bus session bus"));
    assert!(sb.requests().is_empty());
}

#[tokio::test]
async fn a_keyring_that_never_answers_times_out_into_the_login_dialog() {
    let sb = sandbox().await;
    let (_release, gate) = channel::<()>();
    let store = TestStore {
        gate: Some(Mutex::new(gate)),
        ..TestStore::holding(PROFILE, Some(&sb.token()))
    };
    let keyring = Keyring::with_store(Arc::new(store)).with_timeout(Duration::from_millis(300));
    let mut e = engine(&sb, settings(Some(&sb.base_url())), keyring, None);
    e.start();
    e.settle(QUIET).await;
    let notice = login_notice(&e).flatten().expect("a notice");
    assert!(notice.contains("did not answer within 1 s"), "{notice}");
    assert!(sb.requests().is_empty());
}

#[tokio::test]
async fn a_keyring_token_without_a_saved_base_url_is_never_sent() {
    let sb = sandbox().await;
    let store = TestStore::holding(PROFILE, Some(&sb.token()));
    let mut e = engine(
        &sb,
        settings(None),
        Keyring::with_store(Arc::new(store)),
        None,
    );
    e.start();
    e.settle(QUIET).await;
    let notice = login_notice(&e).flatten().expect("a notice");
    assert!(notice.contains("no saved base URL"), "{notice}");
    assert!(sb.requests().is_empty(), "the token went nowhere");
}

#[tokio::test]
async fn a_token_the_client_cannot_use_is_an_error_not_a_login() {
    let sb = sandbox().await;
    let mut s = settings(Some(&sb.base_url()));
    s.network.ca_file = Some("/nonexistent/crmdash-test-ca.pem".into());
    let store = TestStore::holding(PROFILE, Some(&sb.token()));
    let mut e = engine(&sb, s, Keyring::with_store(Arc::new(store)), None);
    e.start();
    e.settle(QUIET).await;
    assert!(login_notice(&e).is_none());
    let err = e.app.status.error.clone().unwrap_or_default();
    assert!(err.contains("crmdash-test-ca.pem"), "{err}");
    assert!(sb.requests().is_empty());
}

#[tokio::test]
async fn lookup_answers_are_what_the_engine_installs() {
    // A hand-made lookup: the engine takes whatever the future yields.
    let sb = sandbox().await;
    let client = crmdash::api::Client::new(&sb.base_url(), SecretString::from(sb.token())).unwrap();
    let opts = DashboardOptions {
        profile: PROFILE.into(),
        base_url: sb.base_url(),
        client: None,
        settings: Settings::default(),
        state_file: None,
        log_path: None,
        demo: false,
    };
    let lookup = Box::pin(async move { TokenLookup::Found(client) });
    let mut e = build_engine_with(&opts, (120, 30), Some(lookup));
    e.start();
    e.settle(QUIET).await;
    assert!(rows(&e) > 0);
}
