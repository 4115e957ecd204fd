//! The reschedule dialog through `App::update`: link pasting, times in the configured zone
//! (DST gap refused, overlap asks which), end before start refused, durations, quick keys,
//! the body under the configured keys, the preview, 404 and 422 mapping, the log effect.

use crate::dashboard_support;

use std::collections::BTreeMap;

use crmdash::api::{ApiError, AppointmentRef, ErrorKind};
use crmdash::app::dialogs::FormsConfig;
use crmdash::app::dialogs::Overlay;
use crmdash::app::dialogs::reschedule::{Field, RescheduleForm, Stage};
use crmdash::app::{Effect, Message, RequestId};
use crmdash::config::RescheduleSettings;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use dashboard_support::Harness;
use serde_json::{Map, Value, json};

fn settings(start: &str, end: &str) -> RescheduleSettings {
    RescheduleSettings {
        start_field: start.into(),
        end_field: end.into(),
        timezone: "Europe/Berlin".into(),
        fields_are_defaults: false,
    }
}

fn open_with(s: RescheduleSettings) -> Harness {
    let mut h = Harness::new((120, 40));
    h.answer_all();
    h.app.set_forms_config(FormsConfig {
        zone: s.timezone.parse().unwrap(),
        reschedule: s,
        log_path: Some("/nonexistent/test/reschedules.jsonl".into()),
        ..FormsConfig::default()
    });
    let fx = h.ch('a');
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::RescheduleLog { append: None, .. })),
        "opening reads the log: {fx:?}"
    );
    h
}

fn open() -> Harness {
    open_with(settings("start_time", "end_time"))
}

fn d(h: &Harness) -> &RescheduleForm {
    h.app
        .overlays
        .iter()
        .rev()
        .find_map(|o| match o {
            Overlay::Reschedule(f) => Some(f.as_ref()),
            _ => None,
        })
        .expect("the dialog is open")
}

/// Replaces field `n` (0 id, 1 start, 2 end, 3 extra) with `text`.
fn set(h: &mut Harness, n: usize, text: &str) {
    while d(h).focus != n {
        h.key(KeyCode::Tab);
    }
    h.ctrl('u');
    h.type_str(text);
}

fn alt(h: &mut Harness, code: KeyCode) {
    h.send(Message::Key(KeyEvent::new(code, KeyModifiers::ALT)));
}

fn preview_body(h: &mut Harness) -> (String, Map<String, Value>) {
    h.ctrl('s');
    match d(h).stage.clone() {
        Stage::Preview {
            appointment_id,
            body,
        } => (appointment_id, body),
        other => panic!("no preview: {other:?} {:?}", d(h).banner),
    }
}

fn send(h: &mut Harness) -> RequestId {
    let fx = h.key(KeyCode::Enter);
    match fx.as_slice() {
        [Effect::Reschedule { id, .. }] => *id,
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_pasted_link_becomes_the_id() {
    let mut h = open();
    h.send(Message::Paste(
        "https://crm.example.com/app/appointments/apt%2042/reschedule?from=mail\n".into(),
    ));
    assert_eq!(d(&h).inputs[0].value(), "apt 42");
    assert!(d(&h).error_for(Field::Id).is_none());
}

#[test]
fn start_and_duration_give_the_body_in_utc() {
    let mut h = open();
    set(&mut h, 0, "42");
    set(&mut h, 1, "2026-12-24 10:00");
    set(&mut h, 2, "90m");
    let summary = d(&h).live().unwrap().1;
    assert_eq!(
        summary.text,
        "Thu 24 Dec 2026, 10:00-11:30 CET (09:00-10:30 UTC)"
    );
    let (id, body) = preview_body(&mut h);
    assert_eq!(id, "42");
    assert_eq!(
        Value::Object(body),
        json!({"start_time": "2026-12-24T09:00:00Z", "end_time": "2026-12-24T10:30:00Z"})
    );
}

/// Issue 27: an End of `10:00` previewed `09:30-19:30` (read as ten hours).
#[test]
fn a_clock_time_in_end_is_that_time_on_the_start_day() {
    let mut h = open();
    set(&mut h, 0, "42");
    set(&mut h, 1, "2026-12-24 9:30");
    set(&mut h, 2, "10:00");
    assert_eq!(
        d(&h).live().unwrap().1.text,
        "Thu 24 Dec 2026, 09:30-10:00 CET (08:30-09:00 UTC)"
    );
    set(&mut h, 2, "10:30");
    assert_eq!(
        d(&h).live().unwrap().1.text,
        "Thu 24 Dec 2026, 09:30-10:30 CET (08:30-09:30 UTC)"
    );
    let (_, body) = preview_body(&mut h);
    assert_eq!(
        Value::Object(body),
        json!({"start_time": "2026-12-24T08:30:00Z", "end_time": "2026-12-24T09:30:00Z"})
    );
    // `tomorrow 9:30` as typed in the issue: the end on the same day as the start.
    h.key(KeyCode::Esc);
    set(&mut h, 1, "tomorrow 9:30");
    set(&mut h, 2, "10:00");
    let (times, _) = d(&h).live().unwrap();
    assert_eq!(times.duration(), Some(chrono::TimeDelta::minutes(30)));
}

#[test]
fn a_clock_time_before_the_start_ends_the_next_day_and_the_preview_says_so() {
    let mut h = open();
    set(&mut h, 0, "42");
    set(&mut h, 1, "2026-12-24 23:00");
    set(&mut h, 2, "01:00");
    let summary = d(&h).live().unwrap().1;
    assert_eq!(
        summary.warnings[0],
        "ends the next day, Fri 25 Dec: 01:00 is before the start (23:00)"
    );
    assert!(
        h.render().contains("ends the next day"),
        "the preview shows it"
    );
    let (_, body) = preview_body(&mut h);
    assert_eq!(body["end_time"], json!("2026-12-25T00:00:00Z"));
}

#[test]
fn a_negative_end_or_one_equal_to_the_start_is_refused_and_never_sent() {
    let mut h = open();
    set(&mut h, 0, "42");
    set(&mut h, 1, "2026-12-24 09:30");
    set(&mut h, 2, "-30m");
    let e = d(&h).error_for(Field::End).unwrap().to_string();
    assert!(e.contains("\"-30m\" is not an end"), "{e}");
    let fx = h.ctrl('s');
    assert_eq!(d(&h).stage, Stage::Editing);
    assert!(fx.is_empty(), "{fx:?}");
    set(&mut h, 2, "09:30");
    let e = d(&h).error_for(Field::End).unwrap().to_string();
    assert!(e.contains("must be after the start"), "{e}");
    let fx = h.ctrl('s');
    assert_eq!(d(&h).stage, Stage::Editing);
    assert!(fx.is_empty(), "{fx:?}");
    // Enter on the (not shown) preview sends nothing either.
    let fx = h.key(KeyCode::Enter);
    assert!(
        !fx.iter().any(|e| matches!(e, Effect::Reschedule { .. })),
        "{fx:?}"
    );
}

#[test]
fn end_before_start_is_refused() {
    let mut h = open();
    set(&mut h, 0, "42");
    set(&mut h, 1, "2026-12-24 10:00");
    set(&mut h, 2, "2026-12-24 09:00");
    assert!(
        d(&h)
            .error_for(Field::End)
            .unwrap()
            .contains("after the start")
    );
    h.ctrl('s');
    assert_eq!(d(&h).stage, Stage::Editing);
    assert_eq!(d(&h).focus, 2);
}

#[test]
fn a_time_in_the_dst_gap_is_refused() {
    let mut h = open();
    set(&mut h, 1, "2026-03-29 02:30");
    let e = d(&h).error_for(Field::Start).unwrap();
    assert!(e.contains("does not exist"), "{e}");
}

#[test]
fn a_time_in_the_dst_overlap_asks_which() {
    let mut h = open();
    set(&mut h, 0, "42");
    set(&mut h, 1, "2026-10-25 02:30");
    set(&mut h, 2, "30m");
    h.ctrl('s');
    assert!(matches!(d(&h).stage, Stage::AskWhich { .. }));
    h.ch('2');
    assert_eq!(d(&h).inputs[1].value(), "2026-10-25T02:30:00+01:00");
    let (_, body) = preview_body(&mut h);
    // The later 02:30 (+01:00) is 01:30 UTC; thirty minutes on.
    assert_eq!(body["end_time"], json!("2026-10-25T02:00:00Z"));
}

#[test]
fn quick_keys_shift_by_quarter_hours_and_days_across_dst() {
    let mut h = open();
    set(&mut h, 1, "2026-03-28 10:00");
    set(&mut h, 2, "1h");
    alt(&mut h, KeyCode::Up);
    assert_eq!(d(&h).inputs[1].value(), "2026-03-28 10:15");
    alt(&mut h, KeyCode::Down);
    alt(&mut h, KeyCode::Down);
    assert_eq!(d(&h).inputs[1].value(), "2026-03-28 09:45");
    // Across the spring-forward night the wall-clock time stays, the offset changes.
    alt(&mut h, KeyCode::Right);
    assert_eq!(d(&h).inputs[1].value(), "2026-03-29 09:45");
    let (times, _) = d(&h).live().unwrap();
    assert_eq!(times.start.to_rfc3339(), "2026-03-29T09:45:00+02:00");
    assert_eq!(d(&h).inputs[2].value(), "1h", "a duration stays a duration");
    alt(&mut h, KeyCode::Left);
    assert_eq!(d(&h).inputs[1].value(), "2026-03-28 09:45");
}

#[test]
fn configured_keys_and_extra_lines_make_the_body() {
    let mut h = open_with(settings("begins_at", ""));
    set(&mut h, 0, "7");
    set(&mut h, 1, "2026-12-24 10:00");
    set(&mut h, 3, "reason = customer asked");
    h.key(KeyCode::Tab);
    h.type_str("notify = true");
    let (_, body) = preview_body(&mut h);
    assert_eq!(
        Value::Object(body),
        json!({"begins_at": "2026-12-24T09:00:00Z", "reason": "customer asked", "notify": true})
    );
}

#[test]
fn an_extra_line_may_not_set_a_time_key() {
    let mut h = open();
    set(&mut h, 3, "start_time = now");
    assert!(d(&h).error_for(Field::Extra).unwrap().contains("own field"));
}

#[test]
fn esc_on_the_preview_goes_back_with_everything_kept() {
    let mut h = open();
    set(&mut h, 0, "42");
    set(&mut h, 1, "2026-12-24 10:00");
    preview_body(&mut h);
    h.key(KeyCode::Esc);
    assert_eq!(d(&h).stage, Stage::Editing);
    assert_eq!(d(&h).inputs[0].value(), "42");
    assert_eq!(d(&h).inputs[1].value(), "2026-12-24 10:00");
}

fn ready(h: &mut Harness) -> RequestId {
    set(h, 0, "42");
    set(h, 1, "2026-12-24 10:00");
    preview_body(h);
    send(h)
}

#[test]
fn not_found_names_the_id_and_keeps_the_contents() {
    let mut h = open();
    let id = ready(&mut h);
    h.send(Message::Rescheduled {
        id,
        result: Box::new(Err(ApiError::new(
            ErrorKind::NotFound,
            "Appointment '42' not found.",
        ))),
    });
    assert_eq!(
        d(&h).error_for(Field::Id),
        Some("no appointment with id 42")
    );
    assert_eq!(d(&h).inputs[1].value(), "2026-12-24 10:00");
    assert_eq!(d(&h).stage, Stage::Editing);
}

#[test]
fn field_errors_map_through_the_configured_keys() {
    let mut h = open_with(settings("begins_at", "finishes_at"));
    let id = ready(&mut h);
    let mut e = ApiError::new(ErrorKind::Validation, "The given data was invalid.");
    e.field_errors = BTreeMap::from([
        (
            "begins_at".to_string(),
            vec!["must be in opening hours".to_string()],
        ),
        ("room".to_string(), vec!["is booked".to_string()]),
    ]);
    h.send(Message::Rescheduled {
        id,
        result: Box::new(Err(e)),
    });
    assert!(
        d(&h)
            .error_for(Field::Start)
            .unwrap()
            .contains("opening hours")
    );
    assert_eq!(d(&h).focus, 1);
    assert!(d(&h).banner.as_deref().unwrap().contains("room: is booked"));
    assert_eq!(d(&h).inputs[0].value(), "42");
}

#[test]
fn success_shows_updated_at_and_appends_to_the_log() {
    let mut h = open();
    let id = ready(&mut h);
    let raw = serde_json::value::RawValue::from_string(
        r#"{"id":"42","updated_at":"2026-11-22T10:00:05Z"}"#.into(),
    )
    .unwrap();
    let a = AppointmentRef {
        id: "42".into(),
        created_at: None,
        updated_at: Some(crmdash::api::Timestamp::parse("2026-11-22T10:00:05Z")),
        extra: Map::new(),
        raw,
    };
    let fx = h.send(Message::Rescheduled {
        id,
        result: Box::new(Ok(a)),
    });
    let Stage::Done { entry } = &d(&h).stage else {
        panic!("{:?}", d(&h).stage)
    };
    assert_eq!(entry.updated_at.as_deref(), Some("2026-11-22T10:00:05Z"));
    // Logged as sent: in UTC, as the CLI sends and logs it.
    assert_eq!(entry.body["start_time"], json!("2026-12-24T09:00:00Z"));
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::RescheduleLog { append: Some(x), .. } if x.id == "42")),
        "{fx:?}"
    );
    assert!(h.render().contains("updated_at 2026-11-22T10:00:05Z"));
}

#[test]
fn typing_q_in_the_dialog_does_not_quit() {
    let mut h = open();
    h.type_str("q");
    assert!(!h.app.quitting);
    assert_eq!(d(&h).inputs[0].value(), "q");
}

fn logged(host: &str, id: &str, start: &str, at: &str) -> crmdash::reschedule::RescheduleLogEntry {
    crmdash::reschedule::RescheduleLogEntry {
        id: id.into(),
        profile: "default".into(),
        host: host.into(),
        body: json!({"start_time": start, "end_time": "2026-12-07T09:30:00Z"})
            .as_object()
            .unwrap()
            .clone(),
        updated_at: None,
        at: at.parse().unwrap(),
    }
}

#[test]
fn tab_completes_ids_from_the_reschedule_log_and_says_when_an_id_is_new() {
    let mut h = open();
    let host = d(&h).config.host.clone();
    h.send(Message::RescheduleLog {
        result: Ok(vec![
            logged(
                &host,
                "apt_000017",
                "2026-12-07T08:00:00Z",
                "2026-11-20T10:00:00Z",
            ),
            logged(
                &host,
                "apt_000018",
                "2026-12-07T09:00:00Z",
                "2026-11-21T10:00:00Z",
            ),
            logged(
                "elsewhere:1",
                "apt_000099",
                "2026-12-07T09:00:00Z",
                "2026-11-22T10:00:00Z",
            ),
            logged(
                &host,
                "apt_000017",
                "2026-12-08T08:00:00Z",
                "2026-11-23T10:00:00Z",
            ),
        ]),
    });
    assert_eq!(d(&h).known_ids(), vec!["apt_000017", "apt_000018"]);
    h.type_str("apt");
    h.key(KeyCode::Tab);
    // The common part first, then each known id in turn (most recently moved first).
    assert_eq!(d(&h).inputs[0].value(), "apt_00001");
    assert_eq!(d(&h).focus, 0);
    h.key(KeyCode::Tab);
    assert_eq!(d(&h).inputs[0].value(), "apt_000017");
    let note = d(&h).id_note().unwrap();
    // Its last move (Berlin): 2026-12-08 09:00 until 10:30 on the 7th, as logged.
    assert!(
        note.starts_with("seen: last moved to 2026-12-08 09:00"),
        "{note}"
    );
    assert!(h.render().contains("seen: last moved to"));
    h.key(KeyCode::Tab);
    assert_eq!(d(&h).inputs[0].value(), "apt_000018");
    h.key(KeyCode::Tab);
    assert_eq!(d(&h).inputs[0].value(), "apt_000017");
    // An id the log does not know: Tab moves on, and the dialog says it is new.
    h.ctrl('u');
    h.type_str("apt_000099");
    assert_eq!(
        d(&h).id_note().as_deref(),
        Some("new: crmdash has not moved apt_000099 before")
    );
    h.key(KeyCode::Tab);
    assert_eq!(d(&h).focus, 1);
}
