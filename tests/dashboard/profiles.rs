//! The palette's runtime side on the real engine: `:profile` against two sandboxes on two
//! ports (a profile's token reaches only its own host), `o` through a fake opener, and
//! `:save` / `:views` writing the views file.

use crate::dashboard_support;
use crate::keyring_support;

use std::sync::Arc;
use std::time::Duration;

use crmdash::api::Client;
use crmdash::app::Message;
use crmdash::config::views::load_views;
use crmdash::config::{Profile, Settings};
use crmdash::credentials::Keyring;
use crmdash::runtime::opener::Opener;
use crmdash::runtime::workspace::WorkspaceContext;
use crmdash::runtime::{DashboardOptions, Engine, build_engine};
use crmdash::sandbox::{Sandbox, SandboxConfig, SandboxHandle};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use keyring_support::TestStore;
use secrecy::SecretString;

const QUIET: Duration = Duration::from_millis(300);
const TOKEN_A: &str = "profile-a-token-0123456789";
const TOKEN_B: &str = "profile-b-token-9876543210";

async fn sandbox(token: &str) -> SandboxHandle {
    Sandbox::start(SandboxConfig {
        token: token.into(),
        ..SandboxConfig::default()
    })
    .await
    .unwrap()
}

fn keys(e: &mut Engine, text: &str) {
    for c in text.chars() {
        e.handle(Message::Key(KeyEvent::new(
            KeyCode::Char(c),
            KeyModifiers::NONE,
        )));
    }
}

fn enter(e: &mut Engine) {
    e.handle(Message::Key(KeyEvent::new(
        KeyCode::Enter,
        KeyModifiers::NONE,
    )));
}

/// An engine on profile `a` (sandbox `a`), with `b` in the config and both tokens in the
/// keyring; `web_url` set for `a`; the opener given.
fn engine(a: &SandboxHandle, b: &SandboxHandle, opener: Opener, views: &std::path::Path) -> Engine {
    let mut settings = Settings::default();
    settings.profiles.insert(
        "a".into(),
        Profile {
            base_url: Some(a.base_url()),
            web_url: Some("https://crm-a.example.com/{resource}/{id}".into()),
            ..Profile::default()
        },
    );
    settings.profiles.insert(
        "b".into(),
        Profile {
            base_url: Some(b.base_url()),
            web_url: None,
            ..Profile::default()
        },
    );
    // `d` has a base URL but no token in the keyring.
    settings.profiles.insert(
        "d".into(),
        Profile {
            base_url: Some(b.base_url()),
            web_url: None,
            ..Profile::default()
        },
    );
    let store = TestStore::holding("a", Some(TOKEN_A));
    store
        .tokens
        .lock()
        .unwrap()
        .insert("b".into(), TOKEN_B.into());
    let client = Client::new(&a.base_url(), SecretString::from(TOKEN_A)).unwrap();
    let opts = DashboardOptions {
        profile: "a".into(),
        base_url: a.base_url(),
        client: Some(client),
        settings: settings.clone(),
        state_file: None,
        log_path: None,
        demo: false,
    };
    let mut e = build_engine(&opts, (100, 30)).with_workspace(WorkspaceContext {
        settings,
        keyring: Keyring::with_store(Arc::new(store)),
        opener,
    });
    let mut ws = crmdash::runtime::workspace_of(&opts, Some(views));
    ws.history.clear();
    e.app.set_workspace(ws);
    e
}

fn no_opener() -> Opener {
    Opener {
        command: vec!["/nonexistent/opener".into()],
        configured: false,
        display: false,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn switching_profile_keeps_each_token_on_its_own_host() {
    let (a, b) = (sandbox(TOKEN_A).await, sandbox(TOKEN_B).await);
    let dir = tempfile::tempdir().unwrap();
    let mut e = engine(&a, &b, no_opener(), &dir.path().join("views.toml"));
    e.start();
    e.settle(QUIET).await;
    assert!(a.received_token(TOKEN_A));
    let a_requests = a.requests().len();
    // A filter on profile a's tab: kept for when a comes back.
    keys(&mut e, ":deals status=won");
    enter(&mut e);
    e.settle(QUIET).await;

    keys(&mut e, ":profile b");
    enter(&mut e);
    e.settle(QUIET).await;
    let b_host = b.base_url().trim_start_matches("http://").to_string();
    assert!(
        b_host.starts_with(&e.app.config.host),
        "{} vs {b_host}",
        e.app.config.host
    );
    assert_eq!(e.app.workspace.profile, "b");
    assert!(e.app.tab().shown.is_some(), "profile b's deals are shown");
    assert!(e.app.tab().filters.is_empty(), "b has its own tabs");
    let screen = render(&e);
    assert!(
        screen.contains(&format!("b @ {}", e.app.config.host)),
        "{screen}"
    );
    // Each host saw only its own profile's token.
    assert!(b.received_token(TOKEN_B));
    assert!(
        !b.received_token(TOKEN_A),
        "profile a's token reached b's host"
    );
    assert!(
        !a.received_token(TOKEN_B),
        "profile b's token reached a's host"
    );
    let after_switch = a.requests().len();
    e.handle(Message::Key(KeyEvent::new(
        KeyCode::Char('r'),
        KeyModifiers::NONE,
    )));
    e.settle(QUIET).await;
    assert_eq!(a.requests().len(), after_switch, "a refresh on b went to a");
    assert!(after_switch > a_requests);

    // Back to a: its tabs as they were.
    keys(&mut e, ":profile a");
    enter(&mut e);
    e.settle(QUIET).await;
    assert_eq!(e.app.workspace.profile, "a");
    assert_eq!(e.app.tab().filter_summary(), "status=won");
    assert!(!b.received_token(TOKEN_A));
    assert!(!a.received_token(TOKEN_B));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_profile_without_a_base_url_or_token_is_not_switched_to() {
    let (a, b) = (sandbox(TOKEN_A).await, sandbox(TOKEN_B).await);
    let dir = tempfile::tempdir().unwrap();
    let mut e = engine(&a, &b, no_opener(), &dir.path().join("views.toml"));
    e.start();
    e.settle(QUIET).await;
    // The config names a profile the keyring has no token for.
    let mut ws = e.app.workspace.clone();
    ws.profiles.insert("c".into(), None);
    e.app.set_workspace(ws);
    keys(&mut e, ":profile c");
    enter(&mut e);
    e.settle(QUIET).await;
    assert_eq!(e.app.workspace.profile, "a");
    match e.app.overlays.last() {
        Some(crmdash::app::dialogs::Overlay::Notice(n)) => {
            assert_eq!(n.title, "Profile c not switched to");
            assert_eq!(
                n.text,
                "profile 'c' has no base URL: run `crmdash login --profile c --base-url URL`. Still on profile a."
            );
        }
        _ => panic!("no notice"),
    }
    e.handle(Message::Key(KeyEvent::new(
        KeyCode::Esc,
        KeyModifiers::NONE,
    )));
    keys(&mut e, ":profile d");
    enter(&mut e);
    e.settle(QUIET).await;
    assert_eq!(e.app.workspace.profile, "a");
    match e.app.overlays.last() {
        Some(crmdash::app::dialogs::Overlay::Notice(n)) => {
            assert!(n.text.contains("'d'"), "{}", n.text);
            assert!(n.text.contains("crmdash login"), "{}", n.text);
        }
        _ => panic!("no notice"),
    }
    assert!(!b.received_token(TOKEN_A));
}

fn render(e: &Engine) -> String {
    let (w, h) = e.app.size;
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).unwrap();
    t.draw(|f| crmdash::ui::render(&e.app, f)).unwrap();
    dashboard_support::buffer_text(t.backend())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn o_runs_the_opener_with_the_address_only() {
    let (a, b) = (sandbox(TOKEN_A).await, sandbox(TOKEN_B).await);
    let dir = tempfile::tempdir().unwrap();
    // A fake opener: writes its arguments to a file.
    let out = dir.path().join("opened.txt");
    let script = dir.path().join("opener.sh");
    std::fs::write(
        &script,
        format!("#!/bin/sh\nprintf '%s\\n' \"$@\" > '{}'\n", out.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let opener = Opener::from_settings(Some(&format!("{} --new-tab", script.display())));
    let mut e = engine(&a, &b, opener, &dir.path().join("views.toml"));
    e.start();
    e.settle(QUIET).await;
    let id = e.app.tab().selected_record().unwrap().id.clone();
    e.handle(Message::Key(KeyEvent::new(
        KeyCode::Char('o'),
        KeyModifiers::NONE,
    )));
    let url = format!("https://crm-a.example.com/deals/{id}");
    let mut args = String::new();
    for _ in 0..100 {
        e.settle(QUIET).await;
        args = std::fs::read_to_string(&out).unwrap_or_default();
        if !args.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(args, format!("--new-tab\n{url}\n"));
    assert!(!args.contains(TOKEN_A));

    // Without a display and no opener chosen (an SSH session): the address goes on the
    // clipboard and is shown whole in a dialog.
    let mut e = engine(&a, &b, no_opener(), &dir.path().join("views.toml"));
    e.start();
    e.settle(QUIET).await;
    let actions = e.handle(Message::Key(KeyEvent::new(
        KeyCode::Char('o'),
        KeyModifiers::NONE,
    )));
    assert_eq!(actions, [crmdash::runtime::TermAction::Copy(url.clone())]);
    let mut shown = None;
    for _ in 0..100 {
        e.settle(QUIET).await;
        if let Some(crmdash::app::dialogs::Overlay::Notice(n)) = e.app.overlays.last() {
            shown = Some((n.copy.clone().unwrap_or_default(), n.text.clone()));
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (shown_url, reason) = shown.expect("the address is shown");
    assert_eq!(shown_url, url);
    assert!(
        reason.starts_with("No browser can be started here"),
        "{reason}"
    );
    assert!(render(&e).contains(&url), "{}", render(&e));
    // `y` copies it again, Esc closes.
    let actions = e.handle(Message::Key(KeyEvent::new(
        KeyCode::Char('y'),
        KeyModifiers::NONE,
    )));
    assert_eq!(actions, [crmdash::runtime::TermAction::Copy(url.clone())]);
    e.handle(Message::Key(KeyEvent::new(
        KeyCode::Esc,
        KeyModifiers::NONE,
    )));
    assert!(e.app.overlays.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn save_writes_the_views_file_and_the_picker_edits_it() {
    let (a, b) = (sandbox(TOKEN_A).await, sandbox(TOKEN_B).await);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cfg/views.toml");
    let mut e = engine(&a, &b, no_opener(), &path);
    e.start();
    e.settle(QUIET).await;
    keys(&mut e, ":deals status=won sort=-value");
    enter(&mut e);
    keys(&mut e, ":save big-wins");
    enter(&mut e);
    let mut read = load_views(&path);
    for _ in 0..100 {
        e.settle(QUIET).await;
        read = load_views(&path);
        if !read.views.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let v = &read.views["big-wins"];
    assert_eq!(v.resource, "deals");
    assert_eq!(v.sort.as_deref(), Some("-value"));
    assert_eq!(v.filters["status"], "won");
    // Delete it in the picker.
    keys(&mut e, ":views");
    enter(&mut e);
    keys(&mut e, "dd");
    for _ in 0..100 {
        e.settle(QUIET).await;
        if load_views(&path).views.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(load_views(&path).views.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_views_file_is_reported_and_the_good_views_stay() {
    let (a, b) = (sandbox(TOKEN_A).await, sandbox(TOKEN_B).await);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("views.toml");
    std::fs::write(
        &path,
        "[views.good]\nresource = \"deals\"\nsort = \"name\"\n\n[views.bad]\nresource = \"deals\"\nfilter = { status = \"won\" }\n",
    )
    .unwrap();
    let mut e = engine(&a, &b, no_opener(), &path);
    let note = e.app.status.note.clone().map(|n| n.0).unwrap_or_default();
    assert!(
        note.contains("view 'bad': unknown field `filter`"),
        "{note}"
    );
    e.start();
    e.settle(QUIET).await;
    keys(&mut e, ":view good");
    enter(&mut e);
    e.settle(QUIET).await;
    assert_eq!(e.app.tab().sort_by, "name");
    // The unreadable one is not offered.
    keys(&mut e, ":view bad");
    enter(&mut e);
    match e.app.overlays.last() {
        Some(crmdash::app::dialogs::Overlay::Palette(p)) => {
            assert_eq!(p.error.as_deref(), Some("no view 'bad': use good"))
        }
        _ => panic!("the palette stays open"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_starting_profile_can_be_returned_to_without_config_or_keyring() {
    // As with `--demo` or a token from CRMDASH_TOKEN: the first profile's client came from
    // neither the config file nor the keyring, yet `:profile` can go back to it.
    let (a, b) = (sandbox(TOKEN_A).await, sandbox(TOKEN_B).await);
    let dir = tempfile::tempdir().unwrap();
    let mut e = engine(&a, &b, no_opener(), &dir.path().join("views.toml"));
    let mut ws = e.app.workspace.clone();
    ws.profile = "demo".into();
    ws.profiles.insert("demo".into(), None);
    e.app.set_workspace(ws);
    e.start();
    e.settle(QUIET).await;
    keys(&mut e, ":profile b");
    enter(&mut e);
    e.settle(QUIET).await;
    assert_eq!(e.app.workspace.profile, "b");
    let before = a.requests().len();
    keys(&mut e, ":profile demo");
    enter(&mut e);
    e.settle(QUIET).await;
    assert_eq!(e.app.workspace.profile, "demo");
    assert!(e.app.overlays.is_empty(), "no error notice");
    e.handle(Message::Key(KeyEvent::new(
        KeyCode::Char('r'),
        KeyModifiers::NONE,
    )));
    e.settle(QUIET).await;
    assert!(
        a.requests().len() > before,
        "demo's requests go to its own host"
    );
    assert!(!b.received_token(TOKEN_A));
    assert!(!a.received_token(TOKEN_B));
}
