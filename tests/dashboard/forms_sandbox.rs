//! The write dialogs run for real against the embedded sandbox (HTTP on 127.0.0.1, port 0)
//! through the runtime's effect executor: creates (plain, a response dropped after commit,
//! 422, a duplicate caught first), reschedules (success, 404, 422, custom field names), and
//! logging in from the dashboard (keyring working and failing).

use crate::keyring_support;

use std::sync::Arc;
use std::time::Duration;

use crmdash::api::{Client, ClientOptions};
use crmdash::app::dialogs::FormsConfig;
use crmdash::app::dialogs::Overlay;
use crmdash::app::dialogs::contact_form::{ContactForm, Stage};
use crmdash::app::dialogs::login::LoginStage;
use crmdash::app::dialogs::reschedule::{Field, RescheduleForm, Stage as RStage};
use crmdash::app::{Message, Resource};
use crmdash::config::{RescheduleSettings, Settings};
use crmdash::credentials::Keyring;
use crmdash::runtime::{DashboardOptions, Engine, LoginContext, build_engine};
use crmdash::sandbox::{FaultKind, FaultRule, Sandbox, SandboxConfig, SandboxHandle};
use crmdash::validate::ContactField;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use keyring_support::TestStore;
use secrecy::SecretString;

const QUIET: Duration = Duration::from_millis(700);

fn options(max_retries: u32) -> ClientOptions {
    ClientOptions {
        max_retries,
        backoff_base: Duration::from_millis(10),
        ..ClientOptions::default()
    }
}

async fn start_with(s: RescheduleSettings) -> (SandboxHandle, Engine, tempfile::TempDir) {
    start_retrying(s, 1).await
}

async fn start_retrying(
    s: RescheduleSettings,
    retries: u32,
) -> (SandboxHandle, Engine, tempfile::TempDir) {
    let sb = Sandbox::start(SandboxConfig::default()).await.unwrap();
    let client = Client::with_options(
        &sb.base_url(),
        SecretString::from(sb.token()),
        options(retries),
    )
    .unwrap();
    let opts = crate::dashboard_support::sandbox_options(&sb, client, None);
    let dir = tempfile::tempdir().unwrap();
    let mut engine = build_engine(&opts, (160, 48));
    // The write gate has its own tests (safe_writes): here writes go out at once.
    engine
        .app
        .set_safety(crate::dashboard_support::test_safety());
    engine.app.set_forms_config(FormsConfig {
        zone: s.timezone.parse().unwrap(),
        reschedule: s,
        log_path: Some(dir.path().join("reschedules.jsonl")),
        ..FormsConfig::default()
    });
    engine.start();
    engine.settle(QUIET).await;
    (sb, engine, dir)
}

async fn start() -> (SandboxHandle, Engine, tempfile::TempDir) {
    start_with(RescheduleSettings {
        timezone: "Europe/Berlin".into(),
        ..RescheduleSettings::default()
    })
    .await
}

fn key(e: &mut Engine, code: KeyCode, m: KeyModifiers) {
    e.handle(Message::Key(KeyEvent::new(code, m)));
}

fn press(e: &mut Engine, code: KeyCode) {
    key(e, code, KeyModifiers::NONE);
}

fn ctrl(e: &mut Engine, c: char) {
    key(e, KeyCode::Char(c), KeyModifiers::CONTROL);
}

fn typed(e: &mut Engine, s: &str) {
    for c in s.chars() {
        press(e, KeyCode::Char(c));
    }
}

fn form(e: &Engine) -> Option<&ContactForm> {
    e.app.overlays.iter().rev().find_map(|o| match o {
        Overlay::ContactForm(f) => Some(f.as_ref()),
        _ => None,
    })
}

fn dialog(e: &Engine) -> &RescheduleForm {
    e.app
        .overlays
        .iter()
        .rev()
        .find_map(|o| match o {
            Overlay::Reschedule(f) => Some(f.as_ref()),
            _ => None,
        })
        .expect("the reschedule dialog is open")
}

/// Opens the pane and types the four fields.
fn fill_contact(e: &mut Engine, first: &str, email: &str, phone: &str) {
    press(e, KeyCode::Char('c'));
    typed(e, first);
    press(e, KeyCode::Tab);
    press(e, KeyCode::Tab);
    typed(e, email);
    press(e, KeyCode::Tab);
    typed(e, phone);
}

#[tokio::test]
async fn a_create_succeeds_and_the_new_contact_is_selected() {
    let (sb, mut e, _d) = start().await;
    fill_contact(&mut e, "Zoë", "zoe.new@example.com", "+49 30 1234567");
    e.settle(QUIET).await;
    ctrl(&mut e, 's');
    press(&mut e, KeyCode::Enter);
    e.settle(QUIET).await;
    assert!(form(&e).is_none(), "success closes the pane");
    assert_eq!(sb.contacts_with_email("zoe.new@example.com"), 1);
    assert_eq!(e.app.active, Resource::Contacts);
    let note = e.app.status.note.as_ref().unwrap().0.clone();
    assert!(
        note.contains("Created contact id ") && note.contains(": Zoë"),
        "{note}"
    );
    let sel = e.app.tab().selected_record().expect("a selection");
    assert!(
        note.contains(&sel.id),
        "the new contact is selected: {note} vs {}",
        sel.id
    );
    let posts: Vec<_> = sb
        .requests()
        .into_iter()
        .filter(|r| r.method == "POST")
        .collect();
    assert_eq!(posts.len(), 1);
}

#[tokio::test]
async fn a_dropped_answer_retried_by_the_client_creates_one_contact() {
    let (sb, mut e, _d) = start().await;
    sb.faults().add(
        FaultRule::new(FaultKind::DropAfterCommit)
            .on("POST", "/contacts")
            .times(1),
    );
    fill_contact(&mut e, "Once", "once.only@example.com", "");
    e.settle(QUIET).await;
    ctrl(&mut e, 's');
    press(&mut e, KeyCode::Enter);
    e.settle(QUIET).await;
    assert!(form(&e).is_none(), "the client's retry settled it");
    assert_eq!(sb.contacts_with_email("once.only@example.com"), 1);
    let keys: Vec<_> = sb
        .requests()
        .into_iter()
        .filter(|r| r.method == "POST")
        .map(|r| r.idempotency_key)
        .collect();
    assert_eq!(keys.len(), 2);
    assert_eq!(keys[0], keys[1]);
    let note = e.app.status.note.as_ref().unwrap().0.clone();
    assert!(
        note.contains("Created contact id ") && note.contains(": Once"),
        "{note}"
    );
}

#[tokio::test]
async fn a_dropped_answer_keeps_the_key_until_settled_and_never_duplicates() {
    // No automatic retry: the unknown outcome reaches the pane.
    let (sb, mut e, _d) = start_retrying(
        RescheduleSettings {
            timezone: "UTC".into(),
            ..RescheduleSettings::default()
        },
        0,
    )
    .await;
    sb.faults().add(
        FaultRule::new(FaultKind::DropAfterCommit)
            .on("POST", "/contacts")
            .times(1),
    );
    fill_contact(&mut e, "Lost", "lost.answer@example.com", "");
    e.settle(QUIET).await;
    ctrl(&mut e, 's');
    press(&mut e, KeyCode::Enter);
    e.settle(QUIET).await;
    let f = form(&e).expect("the pane stays open");
    assert!(f.locked, "unknown outcome locks the draft: {:?}", f.banner);
    let key = f.current_key().unwrap().clone();
    assert_eq!(f.inputs[0].value(), "Lost");
    assert_eq!(f.inputs[2].value(), "lost.answer@example.com");
    assert_eq!(sb.contacts_with_email("lost.answer@example.com"), 1);
    // Edits are refused; a retry with the same key settles it.
    typed(&mut e, "x");
    assert_eq!(
        form(&e).unwrap().inputs[2].value(),
        "lost.answer@example.com"
    );
    ctrl(&mut e, 's');
    e.settle(QUIET).await;
    assert!(form(&e).is_none(), "settled");
    assert_eq!(
        sb.contacts_with_email("lost.answer@example.com"),
        1,
        "no duplicate"
    );
    let keys: Vec<String> = sb
        .requests()
        .into_iter()
        .filter(|r| r.method == "POST")
        .filter_map(|r| r.idempotency_key.clone())
        .collect();
    assert_eq!(keys.len(), 2);
    assert!(keys.iter().all(|k| k == key.as_str()), "{keys:?}");
}

#[tokio::test]
async fn server_field_errors_land_on_fields_with_the_form_intact() {
    let (sb, mut e, _d) = start().await;
    // Six digits pass crmdash's check; the sandbox wants seven.
    fill_contact(&mut e, "Short", "short.phone@example.com", "+123456");
    e.settle(QUIET).await;
    ctrl(&mut e, 's');
    press(&mut e, KeyCode::Enter);
    e.settle(QUIET).await;
    let f = form(&e).expect("still open");
    assert_eq!(f.stage, Stage::Editing);
    assert!(!f.locked);
    let err = f.error_for(ContactField::Phone).expect("phone error");
    assert!(err.contains("7 to 15 digits"), "{err}");
    assert_eq!(f.focus, 3);
    assert_eq!(f.inputs[0].value(), "Short");
    assert_eq!(f.inputs[3].value(), "+123456");
    assert_eq!(sb.contacts_with_email("short.phone@example.com"), 0);
}

#[tokio::test]
async fn a_duplicate_email_is_caught_before_submit() {
    let (sb, mut e, _d) = start().await;
    let id = sb.ids("contacts")[0].clone();
    let existing = sb.contact(&id).unwrap();
    let email = existing["email"].as_str().unwrap().to_string();
    fill_contact(&mut e, "Again", &email, "");
    e.settle(QUIET).await;
    let f = form(&e).unwrap();
    let dup = f.duplicate.as_ref().expect("duplicate found");
    assert_eq!(dup.id, id);
    // The question says so before anything is sent; backing out sends nothing.
    ctrl(&mut e, 's');
    assert!(matches!(form(&e).unwrap().stage, Stage::Confirm { .. }));
    press(&mut e, KeyCode::Esc);
    e.settle(QUIET).await;
    assert_eq!(form(&e).unwrap().stage, Stage::Editing);
    assert!(
        sb.requests().iter().all(|r| r.method != "POST"),
        "nothing is sent before the question is answered"
    );
    assert_eq!(sb.contacts_with_email(&email), 1);
}

fn fill_reschedule(e: &mut Engine, id: &str, start: &str, end: &str) {
    press(e, KeyCode::Char('a'));
    typed(e, id);
    press(e, KeyCode::Tab);
    ctrl(e, 'u');
    typed(e, start);
    press(e, KeyCode::Tab);
    ctrl(e, 'u');
    typed(e, end);
}

#[tokio::test]
async fn a_reschedule_succeeds_is_visible_in_the_sandbox_and_logged() {
    let (sb, mut e, dir) = start().await;
    let id = sb.ids("appointments")[0].clone();
    fill_reschedule(&mut e, &id, "2027-01-14 10:00", "45m");
    ctrl(&mut e, 's');
    assert!(matches!(dialog(&e).stage, RStage::Preview { .. }));
    press(&mut e, KeyCode::Enter);
    e.settle(QUIET).await;
    let RStage::Done { entry } = dialog(&e).stage.clone() else {
        panic!("{:?} {:?}", dialog(&e).stage, dialog(&e).banner)
    };
    assert!(entry.updated_at.is_some());
    let a = sb.appointment(&id).unwrap();
    let start = chrono::DateTime::parse_from_rfc3339(a["start_time"].as_str().unwrap()).unwrap();
    let end = chrono::DateTime::parse_from_rfc3339(a["end_time"].as_str().unwrap()).unwrap();
    assert_eq!(start.to_utc().to_rfc3339(), "2027-01-14T09:00:00+00:00");
    assert_eq!((end - start).num_minutes(), 45);
    // The log holds it and the dialog shows it.
    let log = crmdash::reschedule::read_log(&dir.path().join("reschedules.jsonl"), 10).unwrap();
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].id, id);
    assert_eq!(dialog(&e).log.len(), 1);
    // A new dialog (a later session reads the same file) shows it too.
    press(&mut e, KeyCode::Esc);
    press(&mut e, KeyCode::Char('a'));
    e.settle(QUIET).await;
    assert_eq!(dialog(&e).log.len(), 1);
}

#[tokio::test]
async fn an_unknown_appointment_is_named_and_the_dialog_kept() {
    let (_sb, mut e, _d) = start().await;
    fill_reschedule(&mut e, "no-such-apt", "2027-01-14 10:00", "1h");
    ctrl(&mut e, 's');
    press(&mut e, KeyCode::Enter);
    e.settle(QUIET).await;
    let d = dialog(&e);
    assert_eq!(
        d.error_for(Field::Id),
        Some("no appointment with id no-such-apt")
    );
    assert_eq!(d.inputs[1].value(), "2027-01-14 10:00");
    assert_eq!(d.stage, RStage::Editing);
}

#[tokio::test]
async fn a_rejected_body_is_shown_with_contents_kept() {
    let (sb, mut e, _d) = start().await;
    let id = sb.ids("appointments")[1].clone();
    fill_reschedule(&mut e, &id, "2027-01-14 10:00", "1h");
    press(&mut e, KeyCode::Tab);
    typed(&mut e, "timezone = Nowhere/Special");
    ctrl(&mut e, 's');
    press(&mut e, KeyCode::Enter);
    e.settle(QUIET).await;
    let d = dialog(&e);
    let banner = d.banner.clone().unwrap_or_default();
    assert!(
        banner.contains("timezone: The timezone must be an IANA zone"),
        "{banner}"
    );
    assert_eq!(d.stage, RStage::Editing);
    assert_eq!(d.extra[0].value(), "timezone = Nowhere/Special");
}

#[tokio::test]
async fn a_configured_custom_field_name_reaches_the_server() {
    let (sb, mut e, _d) = start_with(RescheduleSettings {
        start_field: "begins_at".into(),
        end_field: "ends_at".into(),
        timezone: "UTC".into(),
        fields_are_defaults: false,
    })
    .await;
    let id = sb.ids("appointments")[2].clone();
    fill_reschedule(&mut e, &id, "2027-01-14 10:00", "1h");
    ctrl(&mut e, 's');
    press(&mut e, KeyCode::Enter);
    e.settle(QUIET).await;
    let post = sb
        .requests()
        .into_iter()
        .find(|r| r.method == "POST")
        .expect("sent");
    let body: serde_json::Value = serde_json::from_str(post.body.as_deref().unwrap()).unwrap();
    // In UTC, as the CLI sends it.
    assert_eq!(body["begins_at"], "2027-01-14T10:00:00Z");
    assert_eq!(body["ends_at"], "2027-01-14T11:00:00Z");
    // The sandbox only knows start_time: its 422 is shown verbatim, nothing lost.
    let d = dialog(&e);
    assert!(
        d.banner
            .as_deref()
            .unwrap_or_default()
            .contains("start_time")
    );
    assert_eq!(d.inputs[0].value(), id);
}

async fn start_logged_out(broken: bool) -> (SandboxHandle, Engine, Arc<TestStore>) {
    let sb = Sandbox::start(SandboxConfig::default()).await.unwrap();
    let opts = DashboardOptions {
        profile: "work".into(),
        base_url: sb.base_url(),
        client: None,
        settings: Settings::default(),
        state_file: None,
        log_path: None,
        demo: false,
    };
    let store = Arc::new(TestStore {
        unreachable: broken,
        ..TestStore::default()
    });
    let engine = build_engine(&opts, (100, 30)).with_login(LoginContext {
        profile: "work".into(),
        base_url: sb.base_url(),
        options: ClientOptions::default(),
        keyring: Keyring::with_store(store.clone()),
        config_path: None,
    });
    (sb, engine, store)
}

fn login_open(e: &Engine) -> bool {
    e.app
        .overlays
        .iter()
        .any(|o| matches!(o, Overlay::Login(_)))
}

#[tokio::test]
async fn without_a_token_the_login_dialog_checks_stores_and_loads() {
    let (sb, mut e, store) = start_logged_out(false).await;
    assert!(login_open(&e));
    e.start();
    e.settle(QUIET).await;
    typed(&mut e, "wrong-token");
    press(&mut e, KeyCode::Enter);
    e.settle(QUIET).await;
    assert!(login_open(&e), "a refused token keeps the dialog");
    ctrl(&mut e, 'u');
    typed(&mut e, &sb.token());
    press(&mut e, KeyCode::Enter);
    e.settle(QUIET).await;
    assert!(!login_open(&e));
    assert_eq!(store.token("work").as_deref(), Some(sb.token().as_str()));
    assert!(e.app.tab().error.is_none());
    assert!(!e.app.tab().records().is_empty(), "the dashboard loaded");
}

#[tokio::test]
async fn a_keyring_failure_says_so_and_the_session_goes_on_in_memory() {
    let (sb, mut e, store) = start_logged_out(true).await;
    e.start();
    e.settle(QUIET).await;
    e.handle(Message::Paste(sb.token()));
    press(&mut e, KeyCode::Enter);
    e.settle(QUIET).await;
    // The dialog stays to say it in full (the data loads behind it); Enter closes it.
    let Some(Overlay::Login(d)) = e.app.overlays.last() else {
        panic!("the dialog says why the token is not kept")
    };
    let LoginStage::SessionOnly(text) = &d.stage else {
        panic!("{:?}", d.stage)
    };
    assert!(
        text.contains("CRMDASH_TOKEN") && text.contains("memory"),
        "{text}"
    );
    assert!(!text.contains(&sb.token()), "the token is never shown");
    press(&mut e, KeyCode::Enter);
    assert!(!login_open(&e));
    let note = e.app.status.note.as_ref().unwrap().0.clone();
    assert!(note.contains("CRMDASH_TOKEN"), "{note}");
    assert!(!note.contains(&sb.token()), "the token is never shown");
    assert!(store.tokens.lock().unwrap().is_empty());
    assert!(!e.app.tab().records().is_empty());
}
