//! The new-contact pane through `App::update`: bindings never fire while typing, validation
//! and focus, the draft's Idempotency-Key across retries, the lock after an unknown outcome,
//! 4xx edits with a new key, 422 errors on fields, the debounced duplicate check, discarding
//! and quitting with a draft.

use crate::dashboard_support;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use crmdash::api::{ApiError, Contact, Created, ErrorKind, IdempotencyKey, NewContact};
use crmdash::app::dialogs::Overlay;
use crmdash::app::dialogs::contact_form::{ContactForm, Stage};
use crmdash::app::table::record::{FetchedPage, Record};
use crmdash::app::{Effect, Message, RequestId, TabKind};
use crmdash::validate::ContactField;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use dashboard_support::Harness;

fn open() -> Harness {
    let mut h = Harness::new((120, 40));
    h.answer_all();
    h.ch('c');
    assert!(form(&h).is_some(), "c opens the pane");
    h
}

fn form(h: &Harness) -> Option<&ContactForm> {
    h.app.overlays.iter().rev().find_map(|o| match o {
        Overlay::ContactForm(f) => Some(f.as_ref()),
        _ => None,
    })
}

fn f(h: &Harness) -> &ContactForm {
    form(h).expect("the pane is open")
}

/// Types into the field `n` (0 first name .. 3 phone, 4 extra) by tabbing to it.
fn fill(h: &mut Harness, n: usize, text: &str) {
    while f(h).focus != n {
        h.key(KeyCode::Tab);
    }
    h.type_str(text);
}

fn creates(fx: &[Effect]) -> Vec<(RequestId, NewContact, IdempotencyKey)> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::CreateContact { id, contact, key } => Some((*id, contact.clone(), key.clone())),
            _ => None,
        })
        .collect()
}

/// Ctrl-S, then Enter on the confirmation: the create effect.
fn submit(h: &mut Harness) -> (RequestId, NewContact, IdempotencyKey) {
    h.ctrl('s');
    assert!(
        matches!(f(h).stage, Stage::Confirm { .. }),
        "{:?}",
        f(h).stage
    );
    let fx = h.key(KeyCode::Enter);
    let mut c = creates(&fx);
    assert_eq!(c.len(), 1, "{fx:?}");
    c.remove(0)
}

fn answer(
    h: &mut Harness,
    id: RequestId,
    result: Result<Created<Contact>, ApiError>,
) -> Vec<Effect> {
    h.send(Message::ContactCreated {
        id,
        result: Box::new(result),
    })
}

fn unknown() -> ApiError {
    let mut e = ApiError::new(ErrorKind::Network, "connection closed before the answer");
    e.outcome_unknown = true;
    e
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
fn single_key_bindings_never_fire_while_typing() {
    let mut h = open();
    let before = h.effects.len();
    h.type_str("qj2/seaq");
    assert!(!h.app.quitting);
    assert_eq!(h.app.active, TabKind::Deals);
    assert_eq!(f(&h).inputs[0].value(), "qj2/seaq");
    assert_eq!(h.effects.len(), before, "no loads, no quit");
}

#[test]
fn tab_shift_tab_and_enter_move_between_fields() {
    let mut h = open();
    assert_eq!(f(&h).focus, 0);
    h.key(KeyCode::Tab);
    h.key(KeyCode::Enter);
    assert_eq!(f(&h).focus, 2);
    h.key(KeyCode::BackTab);
    assert_eq!(f(&h).focus, 1);
    h.key(KeyCode::BackTab);
    h.key(KeyCode::BackTab);
    assert_eq!(
        f(&h).focus,
        f(&h).field_count() - 1,
        "wraps to the last extra line"
    );
}

#[test]
fn validation_as_typed_and_on_submit_focuses_the_first_error() {
    let mut h = open();
    fill(&mut h, 2, "bob@");
    assert!(
        f(&h).error_for(ContactField::Email).is_some(),
        "email error shown as typed"
    );
    assert!(f(&h).error_for(ContactField::FirstName).is_none());
    fill(&mut h, 3, "030 1234");
    let phone = f(&h).error_for(ContactField::Phone).unwrap();
    assert!(phone.contains("international prefix"), "{phone}");
    // Fix the email; submitting moves focus to the phone, the first remaining error.
    while f(&h).focus != 2 {
        h.key(KeyCode::Tab);
    }
    h.type_str("example.com");
    assert!(f(&h).error_for(ContactField::Email).is_none());
    let fx = h.ctrl('s');
    assert!(creates(&fx).is_empty(), "nothing is sent with errors");
    assert_eq!(f(&h).stage, Stage::Editing);
    assert_eq!(f(&h).focus, 3);
}

#[test]
fn an_empty_submit_asks_for_a_name_or_an_email() {
    let mut h = open();
    fill(&mut h, 3, "+49 30 1234567");
    h.ctrl('s');
    let e = f(&h).error_for(ContactField::Form).unwrap();
    assert!(e.contains("name or an email"), "{e}");
    assert_eq!(f(&h).stage, Stage::Editing);
}

#[test]
fn extra_lines_are_sent_as_json_keys() {
    let mut h = open();
    fill(&mut h, 0, "Ada");
    fill(&mut h, 4, "tags = [\"vip\"]");
    assert_eq!(f(&h).extra.len(), 2, "a new empty line follows");
    h.key(KeyCode::Tab);
    h.type_str("owner = 7");
    let (_, c, _) = submit(&mut h);
    assert_eq!(c.extra["tags"], serde_json::json!(["vip"]));
    assert_eq!(c.extra["owner"], serde_json::json!(7));
    assert_eq!(c.first_name.as_deref(), Some("Ada"));
}

#[test]
fn a_bad_extra_line_is_an_inline_error() {
    let mut h = open();
    fill(&mut h, 0, "Ada");
    fill(&mut h, 4, "no equals sign");
    let e = f(&h).error_for(ContactField::Extra).unwrap();
    assert!(e.contains("line 1"), "{e}");
}

#[test]
fn the_key_survives_an_unknown_outcome_and_the_draft_is_locked() {
    let mut h = open();
    fill(&mut h, 0, "Ada");
    fill(&mut h, 2, "ada@example.com");
    let (id, body, key) = submit(&mut h);
    assert!(h.app.busy());
    answer(&mut h, id, Err(unknown()));
    assert!(f(&h).locked);
    assert!(f(&h).banner.as_deref().unwrap().contains(key.as_str()));
    // Edits are refused while locked; nothing typed is lost.
    h.key(KeyCode::BackTab);
    h.type_str("xyz");
    h.key(KeyCode::Backspace);
    assert_eq!(f(&h).inputs[1].value(), "");
    assert_eq!(f(&h).inputs[2].value(), "ada@example.com");
    // Ctrl-S resends at once with the same key and the same body.
    let fx = h.ctrl('s');
    let c = creates(&fx);
    assert_eq!(c.len(), 1);
    assert_eq!((c[0].1.clone(), c[0].2.clone()), (body, key));
    answer(&mut h, c[0].0, Ok(created()));
    assert!(form(&h).is_none(), "success closes the pane");
    assert_eq!(
        h.app.active,
        TabKind::Contacts,
        "the Contacts tab is shown, refreshed"
    );
    let note = &h.app.status.note.as_ref().unwrap().0;
    assert!(
        note.contains("Created contact id ") && note.contains(": Ada"),
        "{note}"
    );
}

#[test]
fn a_locked_draft_is_only_left_by_an_explicit_discard() {
    let mut h = open();
    fill(&mut h, 0, "Ada");
    let (id, _, _) = submit(&mut h);
    answer(&mut h, id, Err(unknown()));
    h.key(KeyCode::Esc);
    assert_eq!(f(&h).stage, Stage::AskDiscard);
    h.ch('n');
    assert!(f(&h).locked);
    h.key(KeyCode::Esc);
    h.ch('y');
    assert!(form(&h).is_none());
}

#[test]
fn a_definite_rejection_allows_edits_and_an_edited_body_gets_a_new_key() {
    let mut h = open();
    fill(&mut h, 0, "Ada");
    fill(&mut h, 2, "ada@example.com");
    let (id, _, key1) = submit(&mut h);
    let mut e = ApiError::new(ErrorKind::Validation, "The given data was invalid.");
    e.status = Some(422);
    e.field_errors = BTreeMap::from([("email".to_string(), vec!["is taken".to_string()])]);
    answer(&mut h, id, Err(e));
    assert!(!f(&h).locked);
    assert_eq!(f(&h).error_for(ContactField::Email), Some("is taken"));
    assert_eq!(f(&h).focus, 2, "focus on the server's error");
    assert_eq!(f(&h).inputs[0].value(), "Ada", "form intact");
    // The same body again: same key.
    let (id2, _, key2) = submit(&mut h);
    assert_eq!(key1, key2);
    answer(&mut h, id2, Err(ApiError::new(ErrorKind::Forbidden, "no")));
    assert!(f(&h).banner.as_deref().unwrap().contains("Forbidden"));
    // Edited: a new key.
    h.type_str("x");
    assert!(
        f(&h).error_for(ContactField::Email).is_none(),
        "edit clears the server error"
    );
    let (_, body3, key3) = submit(&mut h);
    assert_ne!(key3, key1);
    assert_eq!(body3.email.as_deref(), Some("ada@example.comx"));
}

#[test]
fn create_and_add_another_starts_a_fresh_draft_with_a_new_key() {
    let mut h = open();
    fill(&mut h, 0, "Ada");
    h.ctrl('s');
    let fx = h.ch('a');
    let (id, _, key) = creates(&fx).remove(0);
    answer(&mut h, id, Ok(created()));
    let form = f(&h);
    assert!(form.is_empty() && form.current_key().is_none());
    fill(&mut h, 0, "Bob");
    let (_, _, key2) = submit(&mut h);
    assert_ne!(key, key2);
}

fn dup_page(email: &str) -> Arc<FetchedPage> {
    let raw = format!(
        r#"{{"id":"c-9","first_name":"Ada","last_name":"L","email":"{email}","created_at":"2026-01-05T10:00:00Z"}}"#
    );
    Arc::new(FetchedPage {
        records: vec![Record {
            id: "c-9".into(),
            label: "Ada L".into(),
            cells: Vec::new(),
            status: None,
            raw: raw.into(),
        }],
        meta: None,
        mirrored: None,
        currencies: Vec::new(),
    })
}

fn lookups(fx: &[Effect]) -> Vec<(RequestId, String)> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::Fetch { id, spec } if spec.kind == TabKind::Contacts => spec
                .filters
                .iter()
                .find(|(k, _)| *k == "email")
                .map(|(_, v)| (*id, v.display())),
            _ => None,
        })
        .collect()
}

#[test]
fn the_duplicate_check_is_debounced_and_needs_an_explicit_confirmation() {
    let mut h = open();
    fill(&mut h, 0, "Ada");
    fill(&mut h, 2, "ada@example.co");
    let fx = h.advance(Duration::from_millis(200));
    assert!(lookups(&fx).is_empty(), "not yet: still typing");
    h.ch('m');
    let fx = h.advance(Duration::from_millis(300));
    assert!(
        lookups(&fx).is_empty(),
        "the timer restarted with the last key"
    );
    assert!(h.app.next_deadline().is_some());
    let fx = h.advance(Duration::from_millis(150));
    let l = lookups(&fx);
    assert_eq!(l.len(), 1, "{fx:?}");
    assert_eq!(l[0].1, "ada@example.com");
    h.send(Message::Fetched {
        id: l[0].0,
        result: Ok(dup_page("Ada@Example.com")),
        elapsed: Duration::from_millis(5),
    });
    let d = f(&h).duplicate.clone().expect("duplicate found");
    assert_eq!(
        (d.name.as_str(), d.created.as_deref()),
        ("Ada L", Some("2026-01-05"))
    );
    let screen = h.render();
    assert!(
        screen.contains("already exists: Ada L, created 2026-01-05"),
        "{screen}"
    );
    // The question says the email is taken; it takes the same keys as any create.
    h.ctrl('s');
    let question = h.render();
    assert!(question.contains("already exists: Ada L"), "{question}");
    assert!(question.contains("Enter/y create"), "{question}");
    assert_eq!(creates(&h.key(KeyCode::Enter)).len(), 1);
}

#[test]
fn the_duplicate_can_be_opened_without_losing_the_draft() {
    let mut h = open();
    fill(&mut h, 2, "ada@example.com");
    let fx = h.advance(Duration::from_millis(500));
    let (id, _) = lookups(&fx)[0].clone();
    h.send(Message::Fetched {
        id,
        result: Ok(dup_page("ada@example.com")),
        elapsed: Duration::ZERO,
    });
    h.send(Message::Key(KeyEvent::new(
        KeyCode::Char('o'),
        KeyModifiers::CONTROL,
    )));
    assert!(matches!(h.app.overlays.last(), Some(Overlay::Detail(_))));
    h.key(KeyCode::Esc);
    assert_eq!(f(&h).inputs[2].value(), "ada@example.com");
}

#[test]
fn esc_asks_before_discarding_and_quitting_asks_once() {
    let mut h = open();
    h.key(KeyCode::Esc);
    assert!(form(&h).is_none(), "an empty draft closes at once");
    h.ch('c');
    h.type_str("Ada");
    h.key(KeyCode::Esc);
    assert_eq!(f(&h).stage, Stage::AskDiscard);
    h.key(KeyCode::Esc);
    assert_eq!(f(&h).inputs[0].value(), "Ada");
    h.ctrl('c');
    assert!(!h.app.quitting);
    assert!(matches!(
        h.app.overlays.last(),
        Some(Overlay::ConfirmQuit(_))
    ));
    h.key(KeyCode::Esc);
    assert_eq!(f(&h).inputs[0].value(), "Ada");
}

#[test]
fn sending_shows_progress_and_retries() {
    let mut h = open();
    fill(&mut h, 0, "Ada");
    let _ = submit(&mut h);
    assert_eq!(f(&h).progress.as_deref(), Some("sending"));
    h.send(Message::Retrying {
        attempt: 2,
        max_attempts: 4,
        reason: "503 Service Unavailable".into(),
    });
    assert_eq!(
        f(&h).progress.as_deref(),
        Some("retrying (2/4): 503 Service Unavailable")
    );
}

#[test]
fn a_paste_into_extra_lines_splits_them() {
    let mut h = open();
    while f(&h).focus != 4 {
        h.key(KeyCode::Tab);
    }
    h.send(Message::Paste("a = 1\nb = true\n".into()));
    let lines: Vec<&str> = f(&h).extra.iter().map(|l| l.value()).collect();
    assert_eq!(lines, ["a = 1", "b = true", ""]);
}
