//! Snapshots (TestBackend, 80x24 and 160x48) of the new-contact pane (empty, inline errors,
//! sending, server errors, confirmation), the reschedule dialog (empty, preview, an error,
//! after success) and the login dialog.

use crate::dashboard_support;

use std::collections::BTreeMap;

use chrono::TimeZone;
use crmdash::api::{ApiError, AppointmentRef, ErrorKind};
use crmdash::app::dialogs::FormsConfig;
use crmdash::app::{Effect, Message, RequestId};
use crmdash::config::RescheduleSettings;
use crmdash::reschedule::RescheduleLogEntry;
use crossterm::event::KeyCode;
use dashboard_support::Harness;
use serde_json::Map;

const SIZES: [(u16, u16); 2] = [(80, 24), (160, 48)];

fn snap(name: &str, build: impl Fn((u16, u16)) -> Harness) {
    for size in SIZES {
        let h = build(size);
        insta::assert_snapshot!(format!("{name}_{}x{}", size.0, size.1), h.render());
    }
}

fn harness(size: (u16, u16)) -> Harness {
    let mut h = Harness::new(size);
    h.answer_all();
    h
}

fn contact(size: (u16, u16)) -> Harness {
    let mut h = harness(size);
    h.ch('c');
    h
}

fn type_fields(h: &mut Harness, fields: &[&str]) {
    for (i, text) in fields.iter().enumerate() {
        if i > 0 {
            h.key(KeyCode::Tab);
        }
        h.type_str(text);
    }
}

fn sent(h: &mut Harness) -> RequestId {
    h.ctrl('s');
    let fx = h.key(KeyCode::Enter);
    match fx.as_slice() {
        [Effect::CreateContact { id, .. }] => *id,
        other => panic!("{other:?}"),
    }
}

#[test]
fn contact_pane_empty() {
    snap("contact_empty", contact);
}

#[test]
fn contact_pane_with_inline_errors() {
    snap("contact_errors", |size| {
        let mut h = contact(size);
        type_fields(&mut h, &["", "", "ada@example", "0301234"]);
        h.ctrl('s');
        h
    });
}

#[test]
fn contact_pane_confirmation() {
    snap("contact_confirm", |size| {
        let mut h = contact(size);
        type_fields(
            &mut h,
            &["Ada", "Lovelace", "ada@example.com", "+44 20 7946 0000"],
        );
        h.ctrl('s');
        h
    });
}

#[test]
fn contact_pane_sending() {
    snap("contact_sending", |size| {
        let mut h = contact(size);
        type_fields(&mut h, &["Ada", "Lovelace", "ada@example.com"]);
        sent(&mut h);
        h.send(Message::Retrying {
            attempt: 2,
            max_attempts: 4,
            reason: "503 Service Unavailable".into(),
        });
        h
    });
}

#[test]
fn contact_pane_with_server_errors() {
    snap("contact_server_errors", |size| {
        let mut h = contact(size);
        type_fields(&mut h, &["Ada", "", "ada@example.com", "+123456"]);
        let id = sent(&mut h);
        let mut e = ApiError::new(ErrorKind::Validation, "The given data was invalid.");
        e.status = Some(422);
        e.field_errors = BTreeMap::from([
            (
                "phone".to_string(),
                vec!["The phone must have 7 to 15 digits.".to_string()],
            ),
            ("owner_id".to_string(), vec!["Unknown owner.".to_string()]),
        ]);
        h.send(Message::ContactCreated {
            id,
            result: Box::new(Err(e)),
        });
        h
    });
}

fn reschedule(size: (u16, u16)) -> Harness {
    let mut h = harness(size);
    h.app.set_forms_config(FormsConfig {
        reschedule: RescheduleSettings {
            timezone: "Europe/Berlin".into(),
            ..RescheduleSettings::default()
        },
        zone: "Europe/Berlin".parse().unwrap(),
        log_path: Some("/test/reschedules.jsonl".into()),
        ..FormsConfig::default()
    });
    h.ch('a');
    h.send(Message::RescheduleLog {
        result: Ok(vec![RescheduleLogEntry {
            id: "apt-7".into(),
            profile: "default".into(),
            host: "127.0.0.1:47391".into(),
            body: serde_json::from_str(
                r#"{"start_time":"2026-11-20T08:00:00Z","end_time":"2026-11-20T09:30:00Z"}"#,
            )
            .unwrap(),
            updated_at: Some("2026-11-19T16:02:11Z".into()),
            at: chrono::Utc
                .with_ymd_and_hms(2026, 11, 19, 16, 2, 10)
                .unwrap(),
        }]),
    });
    h
}

fn filled(size: (u16, u16)) -> Harness {
    let mut h = reschedule(size);
    h.type_str("apt-42");
    h.key(KeyCode::Tab);
    h.ctrl('u');
    h.type_str("2026-12-24 10:00");
    h.key(KeyCode::Tab);
    h.ctrl('u');
    h.type_str("90m");
    h.key(KeyCode::Tab);
    h.type_str("reason = customer asked");
    h
}

fn sent_reschedule(h: &mut Harness) -> RequestId {
    h.ctrl('s');
    match h.key(KeyCode::Enter).as_slice() {
        [Effect::Reschedule { id, .. }] => *id,
        other => panic!("{other:?}"),
    }
}

#[test]
fn reschedule_dialog_empty() {
    snap("reschedule_empty", reschedule);
}

/// Issue 27.15: a past reschedule is listed with its new start and end in the configured
/// zone (as `appointments log` shows them) and the host with its port, whole at 80x24.
#[test]
fn the_dialogs_history_shows_the_new_times_in_the_zone_and_the_whole_host() {
    for size in SIZES {
        let screen = reschedule(size).render();
        assert!(
            screen.contains("apt-7 → 2026-11-20 09:00-10:30 · 127.0.0.1:47391 · default"),
            "{size:?}:\n{screen}"
        );
    }
}

#[test]
fn reschedule_dialog_filled_with_preview() {
    snap("reschedule_preview", |size| {
        let mut h = filled(size);
        h.ctrl('s');
        h
    });
}

#[test]
fn reschedule_dialog_with_an_error() {
    snap("reschedule_error", |size| {
        let mut h = filled(size);
        let id = sent_reschedule(&mut h);
        h.send(Message::Rescheduled {
            id,
            result: Box::new(Err(ApiError::new(
                ErrorKind::NotFound,
                "Appointment 'apt-42' not found.",
            ))),
        });
        h
    });
}

#[test]
fn reschedule_dialog_after_success() {
    snap("reschedule_done", |size| {
        let mut h = filled(size);
        let id = sent_reschedule(&mut h);
        let raw = serde_json::value::RawValue::from_string(r#"{"id":"apt-42"}"#.into()).unwrap();
        h.send(Message::Rescheduled {
            id,
            result: Box::new(Ok(AppointmentRef {
                id: "apt-42".into(),
                created_at: None,
                updated_at: Some(crmdash::api::Timestamp::parse("2026-11-22T10:00:02Z")),
                extra: Map::new(),
                raw,
            })),
        });
        h
    });
}

#[test]
fn login_dialog() {
    snap("login", |size| {
        let mut h = harness(size);
        h.app.open_login();
        h.type_str("secret-token-value");
        h
    });
}

#[test]
fn login_dialog_naming_a_keyring_problem() {
    snap("login_keyring_problem", |size| {
        let mut h = harness(size);
        h.app.open_login_with(Some(
            "The OS keyring (Secret Service) is unreachable: no D-Bus session bus. Set CRMDASH_TOKEN to pass the token through the environment instead".into(),
        ));
        h.type_str("tok");
        h
    });
}
