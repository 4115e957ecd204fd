//! The write gate through `App::update`, its clock driven by the harness (no wall time): the
//! undo window sends once after its countdown and never after `u` or Esc; quitting during
//! the window asks (send now / drop); a read-only profile refuses on confirm with the draft
//! kept; a protected profile asks for its name typed; the countdown redraws once a second;
//! each answer becomes one journal entry.

use std::collections::BTreeMap;
use std::time::Duration;

use crmdash::api::{Contact, Created};
use crmdash::app::dialogs::Overlay;
use crmdash::app::dialogs::contact_form::{ContactForm, Stage};
use crmdash::app::{Effect, Message, RequestId, SafetyConfig};
use crmdash::journal::{Who, WriteKind};
use crmdash::safety::ProfileSafety;
use crossterm::event::KeyCode;

use crate::dashboard_support::Harness;

const UNDO: Duration = Duration::from_secs(5);

fn harness(flags: ProfileSafety, undo: Duration) -> Harness {
    let mut h = Harness::new((120, 40));
    let mut all = BTreeMap::new();
    all.insert("default".to_string(), flags);
    h.app.set_safety(SafetyConfig {
        flags: all,
        undo,
        journal: Some("/nonexistent/write-journal.jsonl".into()),
    });
    h.answer_all();
    h
}

fn form(h: &Harness) -> &ContactForm {
    h.app
        .overlays
        .iter()
        .rev()
        .find_map(|o| match o {
            Overlay::ContactForm(f) => Some(f.as_ref()),
            _ => None,
        })
        .expect("the form is open")
}

fn creates(fx: &[Effect]) -> Vec<RequestId> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::CreateContact { id, .. } => Some(*id),
            _ => None,
        })
        .collect()
}

/// Opens the form, types a contact, submits and confirms: what that returned.
fn confirm_create(h: &mut Harness) -> Vec<Effect> {
    h.ch('c');
    h.type_str("Ada");
    h.key(KeyCode::Tab);
    h.key(KeyCode::Tab);
    h.type_str("ada@example.com");
    h.ctrl('s');
    assert!(matches!(form(h).stage, Stage::Confirm { .. }));
    h.key(KeyCode::Enter)
}

fn created() -> Created<Contact> {
    Created {
        status: 201,
        record: None,
        replayed: false,
        undecoded: None,
    }
}

#[test]
fn the_undo_window_sends_exactly_once_after_the_countdown() {
    let mut h = harness(ProfileSafety::default(), UNDO);
    let fx = confirm_create(&mut h);
    assert!(creates(&fx).is_empty(), "nothing sent on confirm: {fx:?}");
    assert_eq!(h.app.writes_held(), 1);
    let shown = h.render();
    assert!(shown.contains("create sends in 5 s"), "{shown}");
    assert!(shown.contains("u take back"), "{shown}");
    // The form says what it waits for, not "sending" (issue 44): nothing is on the wire yet.
    assert!(
        shown.contains("Not sent yet: it waits 5 s in its undo window (u takes it back)."),
        "{shown}"
    );
    assert!(!shown.contains("sending…"), "{shown}");
    // The countdown wakes the loop once a second, not more.
    let next = h
        .app
        .write_deadline()
        .expect("the countdown has a deadline");
    assert_eq!(next - h.now.at, Duration::from_secs(1));
    let mut sent = Vec::new();
    for s in 1..=4 {
        sent.extend(creates(&h.advance(Duration::from_secs(1))));
        assert!(sent.is_empty(), "sent after {s} s");
        assert!(h.render().contains(&format!("create sends in {} s", 5 - s)));
    }
    sent.extend(creates(&h.advance(Duration::from_secs(1))));
    assert_eq!(sent.len(), 1, "sent once the window ran out");
    assert_eq!(h.app.writes_held(), 0);
    for _ in 0..5 {
        sent.extend(creates(&h.advance(Duration::from_secs(1))));
    }
    assert_eq!(sent.len(), 1, "and never again");
    assert_eq!(
        creates(&h.effects).len(),
        1,
        "one create in all the effects"
    );
    // Its answer is journalled once, as the dashboard's.
    let fx = h.send(Message::ContactCreated {
        id: sent[0],
        result: Box::new(Ok(created())),
    });
    let records: Vec<_> = fx
        .iter()
        .filter_map(|e| match e {
            Effect::RecordWrite { entry, .. } => Some(entry.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(records.len(), 1, "{fx:?}");
    assert_eq!(records[0].kind, WriteKind::Create);
    assert_eq!(records[0].who, Who::Dashboard);
    assert_eq!(records[0].profile, "default");
    assert_eq!(records[0].host, "crm.example.com");
    assert!(records[0].key.is_some() && records[0].answer.ok);
    assert!(h.app.write_deadline().is_none());
}

#[test]
fn u_or_esc_takes_the_write_back_and_it_is_never_sent() {
    for key in [KeyCode::Char('u'), KeyCode::Esc] {
        let mut h = harness(ProfileSafety::default(), UNDO);
        confirm_create(&mut h);
        h.advance(Duration::from_secs(2));
        h.key(key);
        assert_eq!(h.app.writes_held(), 0, "{key:?}");
        for _ in 0..10 {
            h.advance(Duration::from_secs(1));
        }
        assert!(creates(&h.effects).is_empty(), "{key:?}: nothing sent");
        // The draft is kept, free to edit and send again.
        let f = form(&h);
        assert_eq!(f.stage, Stage::Editing, "{key:?}");
        assert_eq!(f.inputs[0].value(), "Ada");
        assert_eq!(f.inputs[2].value(), "ada@example.com");
        assert!(f.banner.as_deref().unwrap_or("").contains("Taken back"));
        // Sent again from the kept draft: a new window, and out once it ends.
        h.ctrl('s');
        h.key(KeyCode::Enter);
        assert_eq!(h.app.writes_held(), 1);
        h.advance(UNDO);
        assert_eq!(creates(&h.effects).len(), 1, "{key:?}");
    }
}

#[test]
fn quitting_during_the_window_asks_send_now_or_drop() {
    // Drop: nothing is sent, the app quits.
    let mut h = harness(ProfileSafety::default(), UNDO);
    confirm_create(&mut h);
    let fx = h.ctrl('c');
    assert!(!h.app.quitting, "asked first: {fx:?}");
    assert!(matches!(
        h.app.overlays.last(),
        Some(Overlay::PendingQuit(_))
    ));
    assert!(h.render().contains("A write waits to be sent"));
    // Esc stays: the window goes on.
    h.key(KeyCode::Esc);
    assert!(!h.app.quitting);
    assert_eq!(
        h.app.writes_held(),
        1,
        "Esc on the question does not take it back"
    );
    h.ch('q');
    h.ctrl('c');
    let fx = h.ch('n');
    assert!(h.app.quitting && fx.contains(&Effect::Quit), "{fx:?}");
    assert!(creates(&h.effects).is_empty(), "dropped: nothing sent");

    // Send now: out at once, and the app quits once the service answered.
    let mut h = harness(ProfileSafety::default(), UNDO);
    confirm_create(&mut h);
    h.ch('q');
    let fx = h.ch('y');
    let sent = creates(&fx);
    assert_eq!(sent.len(), 1, "sent now: {fx:?}");
    assert!(!h.app.quitting, "waits for the answer");
    let fx = h.send(Message::ContactCreated {
        id: sent[0],
        result: Box::new(Ok(created())),
    });
    assert!(fx.contains(&Effect::Quit), "{fx:?}");
    assert_eq!(creates(&h.effects).len(), 1);
}

#[test]
fn a_read_only_profile_refuses_on_confirm_and_keeps_the_draft() {
    let ro = ProfileSafety {
        read_only: true,
        protected: false,
    };
    let mut h = harness(ro, UNDO);
    confirm_create(&mut h);
    h.advance(Duration::from_secs(30));
    assert!(creates(&h.effects).is_empty());
    assert_eq!(h.app.writes_held(), 0);
    let f = form(&h);
    assert_eq!(f.stage, Stage::Editing);
    assert_eq!(f.inputs[0].value(), "Ada");
    let why = f.banner.clone().unwrap_or_default();
    assert!(
        why.contains("read-only") && why.contains("nothing was sent"),
        "{why}"
    );
    assert!(h.render().contains("default (read-only)"));
}

#[test]
fn a_protected_profile_asks_for_its_name_typed() {
    let live = ProfileSafety {
        read_only: false,
        protected: true,
    };
    let mut h = harness(live, Duration::ZERO);
    let screen = h.render();
    assert!(screen.contains("! default (protected)"), "{screen}");
    let fx = confirm_create(&mut h);
    assert!(creates(&fx).is_empty());
    assert!(matches!(h.app.overlays.last(), Some(Overlay::TypeName(_))));
    // A wrong name sends nothing and says so; `q` is typed, not a quit.
    h.type_str("defaulq");
    let fx = h.key(KeyCode::Enter);
    assert!(creates(&fx).is_empty() && !h.app.quitting);
    assert!(h.render().contains("That is not default"));
    h.key(KeyCode::Backspace);
    h.ch('t');
    let fx = h.key(KeyCode::Enter);
    assert_eq!(
        creates(&fx).len(),
        1,
        "the name typed: sent (no undo window here)"
    );

    // Declined: not sent, the draft kept.
    let mut h = harness(live, Duration::ZERO);
    confirm_create(&mut h);
    h.key(KeyCode::Esc);
    assert!(creates(&h.effects).is_empty());
    assert_eq!(form(&h).stage, Stage::Editing);
    assert!(
        form(&h)
            .banner
            .as_deref()
            .unwrap_or("")
            .contains("not typed")
    );
}

/// The dashboard's flags follow the service too: a profile (or `--base-url`) reaching a
/// read-only profile's service is read-only, every loopback name being one host.
#[tokio::test]
async fn the_dashboard_s_flags_follow_the_service() {
    let sb = crmdash::sandbox::Sandbox::start(crmdash::sandbox::SandboxConfig::default())
        .await
        .unwrap();
    let client = crmdash::api::Client::new(
        &sb.base_url(),
        secrecy::SecretString::from(sb.token().to_string()),
    )
    .unwrap();
    let mut opts = crate::dashboard_support::sandbox_options(&sb, client, None);
    // Not a demo (a demo's sandbox has no flags): only the flags are read here.
    opts.demo = false;
    let mut ro = crmdash::config::Profile {
        base_url: Some(sb.base_url().replace("127.0.0.1", "localhost")),
        ..Default::default()
    };
    ro.read_only = true;
    opts.settings.profiles.insert("ro".into(), ro);
    opts.settings.profiles.insert(
        "other".into(),
        crmdash::config::Profile {
            base_url: Some(sb.base_url()),
            ..Default::default()
        },
    );
    let cfg = crmdash::runtime::safety_config(&opts);
    // The running profile ("test", at --base-url) and "other" reach the read-only service.
    assert!(cfg.flags["test"].read_only, "{:?}", cfg.flags);
    assert!(cfg.flags["other"].read_only, "{:?}", cfg.flags);
    opts.base_url = "http://127.0.0.1:9".into();
    assert!(!crmdash::runtime::safety_config(&opts).flags["test"].read_only);
    sb.shutdown().await;
}
