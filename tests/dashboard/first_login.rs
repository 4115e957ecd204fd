//! `crmdash` with no saved base URL: the login dialog asks for the base URL and the token
//! (through `App::update`), checks the URL (https, or http to loopback only) before anything
//! is sent, then with the real engine against the embedded sandbox logs in, saves the URL in
//! the profile and keeps the token in the keyring; a keyring problem named in the dialog is
//! not repeated in the status bar behind it.

use std::sync::Arc;
use std::time::Duration;

use crmdash::app::dialogs::Overlay;
use crmdash::app::dialogs::login::{LoginDialog, LoginField, TokenLookup};
use crmdash::app::{Effect, Message};
use crmdash::config::Settings;
use crmdash::credentials::Keyring;
use crmdash::runtime::{DashboardOptions, Engine, LoginContext, build_engine};
use crmdash::sandbox::{Sandbox, SandboxConfig};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::dashboard_support::{Harness, test_config};
use crate::keyring_support::TestStore;

const QUIET: Duration = Duration::from_millis(700);

fn dialog(h: &Harness) -> &LoginDialog {
    h.app
        .overlays
        .iter()
        .find_map(|o| match o {
            Overlay::Login(d) => Some(d),
            _ => None,
        })
        .expect("the login dialog")
}

/// The app with no base URL: the login dialog asks for it.
fn no_base_url() -> Harness {
    let mut config = test_config();
    config.host = String::new();
    let mut h = Harness::with(
        (100, 30),
        crate::dashboard_support::FakeData::new(5),
        config,
    );
    h.app.open_login();
    h
}

#[test]
fn without_a_base_url_the_dialog_asks_for_it_first_and_checks_it() {
    let mut h = no_base_url();
    assert_eq!(dialog(&h).focus, LoginField::BaseUrl);
    let screen = h.render();
    assert!(
        screen.contains("has no base URL and no API token yet"),
        "{screen}"
    );
    assert!(screen.contains("Base URL"), "{screen}");
    assert!(screen.contains("API token"), "{screen}");

    // Plain http to another host is refused, with the reason under the field.
    h.type_str("http://crm.example.com");
    let fx = h.key(KeyCode::Enter);
    assert!(fx.is_empty(), "{fx:?}");
    let d = dialog(&h);
    assert_eq!(d.focus, LoginField::BaseUrl);
    assert!(
        d.url_error.as_deref().unwrap().contains("clear text"),
        "{:?}",
        d.url_error
    );
    assert!(h.render().contains("clear text"));

    // Fixed: Enter moves on to the token; `q` is typed there, not quit.
    h.ctrl('u');
    h.type_str("https://CRM.example.com/");
    assert!(dialog(&h).url_error.is_none());
    h.key(KeyCode::Enter);
    assert_eq!(dialog(&h).focus, LoginField::Token);
    h.type_str("q_token_1234");
    assert!(!h.app.quitting);
    let fx = h.key(KeyCode::Enter);
    let [Effect::Login { base_url, .. }] = fx.as_slice() else {
        panic!("{fx:?}")
    };
    assert_eq!(base_url.as_deref(), Some("https://crm.example.com"));
    assert!(!format!("{fx:?}").contains("q_token_1234"));
}

#[test]
fn loopback_http_is_accepted_and_tab_moves_between_the_fields() {
    let mut h = no_base_url();
    h.key(KeyCode::Tab);
    assert_eq!(dialog(&h).focus, LoginField::Token);
    h.type_str("tok_abcdef");
    h.key(KeyCode::BackTab);
    h.type_str("http://127.0.0.1:8080");
    // Submitting from anywhere checks both.
    let fx = h.ctrl('s');
    let [Effect::Login { base_url, .. }] = fx.as_slice() else {
        panic!("{fx:?}")
    };
    assert_eq!(base_url.as_deref(), Some("http://127.0.0.1:8080"));
}

#[test]
fn an_empty_url_is_refused_before_the_token() {
    let mut h = no_base_url();
    h.key(KeyCode::Tab);
    h.type_str("tok_abcdef");
    let fx = h.key(KeyCode::Enter);
    assert!(fx.is_empty());
    assert_eq!(dialog(&h).focus, LoginField::BaseUrl);
    assert!(
        dialog(&h)
            .url_error
            .as_deref()
            .unwrap()
            .contains("base URL")
    );
}

#[test]
fn a_keyring_problem_in_the_dialog_is_not_repeated_behind_it() {
    let mut h = Harness::new((120, 30));
    let problem =
        "The OS keyring (Secret Service) is unreachable: no D-Bus session bus; set CRMDASH_TOKEN";
    h.send(Message::TokenLookup(Box::new(TokenLookup::Missing {
        reason: problem.to_string(),
        problem: Some(problem.to_string()),
    })));
    // The first page's request fails with the reason while the dialog is open.
    h.fail(0, problem);
    let screen = h.render();
    assert_eq!(
        screen.matches("is unreachable").count(),
        1,
        "said once, in the dialog:\n{screen}"
    );
    assert!(h.app.status.error.is_none());
    // Skipping the dialog: now the status bar says why nothing loads.
    h.key(KeyCode::Esc);
    assert!(h.app.overlays.is_empty());
    assert_eq!(h.app.status.error.as_deref(), Some(problem));
}

/// The engine as `crmdash` builds it with no saved base URL, logging in with `store` and
/// saving the URL in `config`; started.
fn first_run(store: Arc<TestStore>, config: &std::path::Path) -> Engine {
    let opts = DashboardOptions {
        profile: "default".into(),
        base_url: String::new(),
        client: None,
        settings: Settings::default(),
        state_file: None,
        log_path: None,
        demo: false,
    };
    let mut e = build_engine(&opts, (120, 30)).with_login(LoginContext {
        profile: "default".into(),
        base_url: String::new(),
        options: Default::default(),
        keyring: Keyring::with_store(store),
        config_path: Some(config.to_path_buf()),
    });
    e.start();
    e
}

#[tokio::test]
async fn first_run_logs_in_saves_the_url_and_keeps_the_token_in_the_keyring() {
    let sb = Sandbox::start(SandboxConfig::default()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    let store = Arc::new(TestStore::default());
    let mut e = first_run(store.clone(), &config);
    e.settle(QUIET).await;
    assert!(e.app.login_open(), "the dialog is up at once");
    assert!(sb.requests().is_empty());
    assert!(e.app.status.error.is_none(), "{:?}", e.app.status.error);

    let key = |c| Message::Key(KeyEvent::new(c, KeyModifiers::NONE));
    e.handle(Message::Paste(sb.base_url()));
    e.handle(key(KeyCode::Enter));
    e.handle(Message::Paste(sb.token()));
    e.handle(key(KeyCode::Enter));
    e.settle(QUIET).await;

    assert!(!e.app.login_open());
    assert!(
        e.app
            .tab()
            .shown
            .as_ref()
            .is_some_and(|s| !s.page.records.is_empty()),
        "the first tab loaded"
    );
    assert_eq!(store.token("default"), Some(sb.token()));
    let saved = crmdash::config::load(Some(&config));
    assert_eq!(
        saved.settings.profiles["default"].base_url.as_deref(),
        Some(crmdash::config::normalize_base_url(&sb.base_url()).as_str())
    );
    let note = e.app.status.note.clone().unwrap().0;
    assert!(note.contains("token stored in the test keyring"), "{note}");
    assert!(note.contains("base URL saved in"), "{note}");
    assert_eq!(
        e.app.config.host,
        crmdash::config::host_label(&sb.base_url())
    );
    sb.shutdown().await;
}

#[tokio::test]
async fn with_no_keyring_the_url_is_still_saved_and_crmdash_token_is_suggested() {
    let sb = Sandbox::start(SandboxConfig::default()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    let store = Arc::new(TestStore {
        unreachable: true,
        ..TestStore::default()
    });
    let mut e = first_run(store, &config);
    e.settle(QUIET).await;
    e.handle(Message::Paste(sb.base_url()));
    e.handle(Message::Key(KeyEvent::new(
        KeyCode::Tab,
        KeyModifiers::NONE,
    )));
    e.handle(Message::Paste(sb.token()));
    e.handle(Message::Key(KeyEvent::new(
        KeyCode::Enter,
        KeyModifiers::NONE,
    )));
    e.settle(QUIET).await;
    let note = e.app.status.note.clone().unwrap().0;
    assert!(
        note.contains("this session only") && note.contains("CRMDASH_TOKEN"),
        "{note}"
    );
    // The whole story stays in the dialog until it is closed.
    let Some(Overlay::Login(d)) = e.app.overlays.last() else {
        panic!("the dialog stays")
    };
    let crmdash::app::dialogs::login::LoginStage::SessionOnly(text) = &d.stage else {
        panic!("{:?}", d.stage)
    };
    assert!(
        text.contains("no D-Bus session bus") && text.contains("base URL is saved in"),
        "{text}"
    );
    e.handle(Message::Key(KeyEvent::new(
        KeyCode::Enter,
        KeyModifiers::NONE,
    )));
    assert!(!e.app.login_open());
    assert!(
        std::fs::read_to_string(&config)
            .unwrap()
            .contains(&sb.base_url()[..16])
    );
    assert!(e.app.tab().shown.is_some());
    sb.shutdown().await;
}

#[test]
fn the_first_run_dialog_at_80x24_and_160x45() {
    for size in [(80, 24), (160, 45)] {
        let mut config = test_config();
        config.host = String::new();
        let mut h = Harness::with(size, crate::dashboard_support::FakeData::new(5), config);
        h.app.open_login();
        h.type_str("crm.example.com");
        h.key(KeyCode::Enter);
        insta::assert_snapshot!(format!("first_run_{}x{}", size.0, size.1), h.render());
    }
}
