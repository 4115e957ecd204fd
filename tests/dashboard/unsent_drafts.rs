//! Writes that wait in their undo window when the dashboard ends are never lost: the real engine
//! against the embedded sandbox, the write journal in a folder of the test's own. A write is in
//! the journal from the moment it is held; a quit that drops it, SIGTERM or SIGHUP journals it
//! as dropped with its body before the process exits; after kill -9 (nothing written after
//! "held") the next start finds it all the same. The next start says so and offers each as a
//! draft, once.

use std::path::Path;
use std::time::Duration;

use chrono::Utc;
use crmdash::app::dialogs::Overlay;
use crmdash::app::{Message, SafetyConfig};
use crmdash::journal::{Answer, Who, WriteKind, WriteRecord};
use crmdash::runtime::{Engine, TermAction, build_engine};
use crmdash::sandbox::{Sandbox, SandboxConfig, SandboxHandle};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::dashboard_support::{journal_entries, sandbox_options};

const UNDO: Duration = Duration::from_secs(30);

fn press(e: &mut Engine, code: KeyCode) -> Vec<TermAction> {
    e.handle(Message::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

fn ctrl(e: &mut Engine, c: char) -> Vec<TermAction> {
    e.handle(Message::Key(KeyEvent::new(
        KeyCode::Char(c),
        KeyModifiers::CONTROL,
    )))
}

fn type_str(e: &mut Engine, s: &str) {
    for c in s.chars() {
        press(e, KeyCode::Char(c));
    }
}

/// A started, settled engine on `sb` whose write journal is `journal` (profile "test").
async fn engine_on(sb: &SandboxHandle, journal: &Path) -> Engine {
    let client =
        crmdash::api::Client::new(&sb.base_url(), secrecy::SecretString::from(sb.token())).unwrap();
    let opts = sandbox_options(sb, client, None);
    let mut e = build_engine(&opts, (120, 40));
    e.app.set_safety(SafetyConfig {
        undo: UNDO,
        journal: Some(journal.to_path_buf()),
        ..SafetyConfig::default()
    });
    e.start();
    e.settle(Duration::from_millis(300)).await;
    e
}

/// Types a contact in the form and confirms it: it waits in its undo window.
async fn hold_a_create(e: &mut Engine) {
    press(e, KeyCode::Char('c'));
    type_str(e, "Ada");
    press(e, KeyCode::Tab);
    type_str(e, "Lovelace");
    press(e, KeyCode::Tab);
    type_str(e, "ada.unsent@example.com");
    ctrl(e, 's');
    press(e, KeyCode::Enter);
    e.settle(Duration::from_millis(200)).await;
    assert_eq!(e.app.writes_held(), 1, "held in its undo window");
}

fn unsent_dialog(e: &Engine) -> Option<&crmdash::app::UnsentDrafts> {
    e.app.overlays.iter().find_map(|o| match o {
        Overlay::Unsent(d) => Some(d.as_ref()),
        _ => None,
    })
}

async fn created_with(sb: &SandboxHandle, email: &str) -> usize {
    let client =
        crmdash::api::Client::new(&sb.base_url(), secrecy::SecretString::from(sb.token())).unwrap();
    let q = crmdash::api::ContactQuery {
        email: Some(email.to_string()),
        ..Default::default()
    };
    let page = client.list_contacts(&q).await.unwrap();
    page.data
        .iter()
        .filter(|c| c.email.as_deref() == Some(email))
        .count()
}

#[tokio::test]
async fn a_write_dropped_at_quit_is_journaled_with_its_body_and_offered_once_as_a_draft() {
    let sb = Sandbox::start(SandboxConfig::default()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("write-journal.jsonl");

    let mut e = engine_on(&sb, &journal).await;
    hold_a_create(&mut e).await;
    let held = journal_entries(&journal);
    assert_eq!(held.len(), 1, "{held:#?}");
    assert!(held[0].answer.held, "{:?}", held[0].answer);
    assert_eq!(
        held[0].answer.summary(),
        "held: in its undo window, not sent"
    );
    let key = held[0].key.clone().expect("the draft's Idempotency-Key");

    // Quit, and drop it: the journal says so at once, with its body.
    ctrl(&mut e, 'c');
    let out = press(&mut e, KeyCode::Char('n'));
    assert!(out.contains(&TermAction::Quit), "{out:?}");
    let dropped = journal_entries(&journal);
    assert_eq!(dropped.len(), 1, "one write, one entry: {dropped:#?}");
    let d = &dropped[0];
    assert!(d.answer.dropped && !d.answer.offered, "{:?}", d.answer);
    assert_eq!(d.who, Who::Dashboard);
    assert_eq!(d.kind, WriteKind::Create);
    assert_eq!(d.sent["first_name"], "Ada");
    assert_eq!(d.sent["email"], "ada.unsent@example.com");
    assert_eq!(d.key.as_deref(), Some(key.as_str()));
    drop(e);
    assert_eq!(
        created_with(&sb, "ada.unsent@example.com").await,
        0,
        "never sent"
    );

    // The next start says so and offers it.
    let mut e = engine_on(&sb, &journal).await;
    let shown = unsent_dialog(&e).expect("the next start offers it");
    assert_eq!(shown.writes.len(), 1);
    let screen = render(&e);
    assert!(screen.contains("A write was not sent"), "{screen}");
    assert!(screen.contains("create contact Ada Lovelace"), "{screen}");
    let offered = journal_entries(&journal);
    assert!(offered[0].answer.dropped && offered[0].answer.offered);
    // Enter opens it as a draft, filled in as it was, with the same key.
    press(&mut e, KeyCode::Enter);
    let form = e
        .app
        .overlays
        .iter()
        .find_map(|o| match o {
            Overlay::ContactForm(f) => Some(f.as_ref()),
            _ => None,
        })
        .expect("the form opened with the draft");
    assert_eq!(form.inputs[0].value(), "Ada");
    assert_eq!(form.inputs[1].value(), "Lovelace");
    assert_eq!(form.inputs[2].value(), "ada.unsent@example.com");
    assert_eq!(
        form.current_key().map(|k| k.to_string()).as_deref(),
        Some(key.as_str()),
        "a retried draft keeps its Idempotency-Key"
    );
    assert!(unsent_dialog(&e).is_none(), "its only write opened: closed");
    drop(e);

    // Offered once: a third start does not ask again, and `log` still shows it.
    let e = engine_on(&sb, &journal).await;
    assert!(unsent_dialog(&e).is_none());
    let all = journal_entries(&journal);
    assert_eq!(all.len(), 1);
    assert!(all[0].answer.summary().contains("dropped, not sent"));
    sb.shutdown().await;
}

#[tokio::test]
async fn sigterm_drops_the_held_write_and_a_sent_one_is_one_entry_from_held_to_answered() {
    let sb = Sandbox::start(SandboxConfig::default()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("write-journal.jsonl");

    // SIGTERM (and SIGHUP) arrive as `Terminate`: dropped and journaled before the exit.
    let mut e = engine_on(&sb, &journal).await;
    hold_a_create(&mut e).await;
    let out = e.handle(Message::Terminate);
    assert!(out.contains(&TermAction::Quit), "{out:?}");
    let all = journal_entries(&journal);
    assert_eq!(all.len(), 1);
    assert!(all[0].answer.dropped, "{:?}", all[0].answer);
    drop(e);

    // Opened as a draft and sent: the same key, so the contact is created once.
    let mut e = engine_on(&sb, &journal).await;
    press(&mut e, KeyCode::Enter);
    ctrl(&mut e, 's');
    press(&mut e, KeyCode::Enter);
    e.settle(Duration::from_millis(200)).await;
    assert_eq!(e.app.writes_held(), 1);
    // `u` takes it back: journaled as taken back, under its own id.
    press(&mut e, KeyCode::Char('u'));
    e.settle(Duration::from_millis(200)).await;
    let all = journal_entries(&journal);
    assert_eq!(all.len(), 2, "{all:#?}");
    assert_eq!(all[1].answer.summary(), "taken back, not sent");
    assert_eq!(all[1].key, all[0].key, "the draft kept its key");
    // Sent again, with no window this time: held, admitted and answered are one entry.
    e.app.set_safety(SafetyConfig {
        journal: Some(journal.clone()),
        ..SafetyConfig::default()
    });
    ctrl(&mut e, 's');
    press(&mut e, KeyCode::Enter);
    e.settle(Duration::from_millis(500)).await;
    let all = journal_entries(&journal);
    assert_eq!(all.len(), 3, "{all:#?}");
    assert!(all[2].answer.ok, "{:?}", all[2].answer);
    assert_eq!(all[2].key, all[0].key, "sent with the dropped draft's key");
    assert_eq!(created_with(&sb, "ada.unsent@example.com").await, 1);
    sb.shutdown().await;
}

/// A held entry and nothing after it: what kill -9 leaves behind.
fn held_entry(id: &str, at: chrono::DateTime<Utc>, sent: serde_json::Value) -> WriteRecord {
    let mut w = WriteRecord::new(
        WriteKind::Reschedule,
        Who::Dashboard,
        "test",
        "http://127.0.0.1:9",
        sent,
        Answer {
            held: true,
            ..Answer::default()
        },
    );
    w.id = Some(id.into());
    w.at = at;
    w.target = Some("A-1001".into());
    w
}

#[tokio::test]
async fn after_kill_9_the_next_start_finds_the_held_write_but_not_one_still_counting_elsewhere() {
    let sb = Sandbox::start(SandboxConfig::default()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("write-journal.jsonl");
    let body = serde_json::json!({
        "start_time": "2026-12-24T10:00:00Z",
        "end_time": "2026-12-24T11:00:00Z",
        "note": "42"
    });
    let killed = held_entry("k1", Utc::now() - chrono::TimeDelta::minutes(10), body);
    // Held a second ago: another dashboard may still be counting it down.
    let young = held_entry("k2", Utc::now(), serde_json::json!({}));
    for w in [&killed, &young] {
        crmdash::journal::record(&journal, w).unwrap();
    }
    let mut e = engine_on(&sb, &journal).await;
    let shown = unsent_dialog(&e).expect("offered");
    assert_eq!(shown.writes.len(), 1, "only the killed dashboard's write");
    assert_eq!(shown.writes[0].id.as_deref(), Some("k1"));
    let screen = render(&e);
    assert!(screen.contains("it was killed"), "{screen}");
    assert!(screen.contains("reschedule appointment A-1001"), "{screen}");
    // Enter: the reschedule dialog at its preview of exactly that body.
    press(&mut e, KeyCode::Enter);
    let form = e
        .app
        .overlays
        .iter()
        .find_map(|o| match o {
            Overlay::Reschedule(f) => Some(f.as_ref()),
            _ => None,
        })
        .expect("the reschedule dialog opened with the draft");
    assert_eq!(form.inputs[0].value(), "A-1001");
    match &form.stage {
        crmdash::app::dialogs::reschedule::Stage::Preview {
            appointment_id,
            body,
        } => {
            assert_eq!(appointment_id, "A-1001");
            assert_eq!(body["start_time"], "2026-12-24T10:00:00Z");
            assert_eq!(body["note"], "42", "a string stays a string");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(form.extra[0].value(), "note = \"42\"");
    let all = journal_entries(&journal);
    assert!(all[0].answer.offered && all[0].answer.dropped);
    assert!(all[1].answer.held, "the young one is left alone");
    sb.shutdown().await;
}

fn render(e: &Engine) -> String {
    let backend = ratatui::backend::TestBackend::new(120, 40);
    let mut term = ratatui::Terminal::new(backend).unwrap();
    term.draw(|f| crmdash::ui::render(&e.app, f)).unwrap();
    crate::dashboard_support::buffer_text(term.backend())
}

/// A draft of another profile is not offered (it could not be sent from here) and stays for a
/// start with that profile; the status line says where it waits.
#[tokio::test]
async fn a_draft_of_another_profile_waits_for_that_profile() {
    let sb = Sandbox::start(SandboxConfig::default()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("write-journal.jsonl");
    let mut other = held_entry(
        "o1",
        Utc::now() - chrono::TimeDelta::minutes(10),
        serde_json::json!({}),
    );
    other.profile = "prod".into();
    crmdash::journal::record(&journal, &other).unwrap();
    let e = engine_on(&sb, &journal).await;
    assert!(unsent_dialog(&e).is_none());
    let note = crate::dashboard_support::note_of(&e.app);
    assert!(
        note.contains(
            "1 unsent write of profile prod waits in the journal: start crmdash with --profile prod"
        ),
        "{note}"
    );
    let all = journal_entries(&journal);
    assert!(
        all[0].answer.held && !all[0].answer.offered,
        "not marked offered"
    );
    sb.shutdown().await;
}
