//! The contact form's near duplicates while typing: every edit of what the finder compares
//! asks the mirror (one indexed check, off the UI thread), the answer is listed under the
//! fields with its reasons, stale answers are dropped, Ctrl-O opens each in turn, and the
//! create question says it once.

use std::sync::Arc;

use crmdash::app::dialogs::Overlay;
use crmdash::app::dialogs::contact_form::ContactForm;
use crmdash::app::effects::RequestId;
use crmdash::app::mirror::{MirrorEffect, MirrorMessage};
use crmdash::app::{Effect, Message};
use crmdash::insights::dupes::Person;
use crmdash::insights::dupes::mirrored::NearContact;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::dashboard_support::Harness;

fn open(mirror: bool) -> Harness {
    let mut h = Harness::new((120, 40));
    if mirror {
        h.app.set_mirror(true, None);
    }
    h.answer_all();
    h.ch('c');
    h
}

fn f(h: &Harness) -> &ContactForm {
    h.app
        .overlays
        .iter()
        .rev()
        .find_map(|o| match o {
            Overlay::ContactForm(c) => Some(c.as_ref()),
            _ => None,
        })
        .expect("the form is open")
}

fn checks(fx: &[Effect]) -> Vec<(RequestId, Person)> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::Mirror(MirrorEffect::NearContacts { id, draft, .. }) => {
                Some((*id, draft.clone()))
            }
            _ => None,
        })
        .collect()
}

fn focus(h: &mut Harness, n: usize) {
    while f(h).focus != n {
        h.key(KeyCode::Tab);
    }
}

fn near(id: &str, name: &str, why: &str) -> NearContact {
    NearContact {
        id: id.into(),
        name: name.into(),
        score: 0.95,
        reasons: vec![why.into()],
        created: Some("2026-01-05".into()),
        raw: Arc::from(format!(r#"{{"id":"{id}","full_name":"{name}"}}"#)),
    }
}

#[test]
fn typing_a_phone_checks_each_keystroke_and_lists_what_the_mirror_answers() {
    let mut h = open(true);
    h.type_str("Jürgen");
    focus(&mut h, 3);
    let mut asked = Vec::new();
    for c in "030 1234567".chars() {
        asked.extend(checks(&h.ch(c)));
    }
    // One check a keystroke, but for the space: `030 ` is the number `030` checked already.
    assert_eq!(asked.len(), "030 1234567".len() - 1, "{asked:?}");
    let (last_id, draft) = asked.last().cloned().unwrap();
    assert_eq!(draft.phone.as_deref(), Some("030 1234567"));
    assert_eq!(draft.name, "Jürgen");
    // An older keystroke's answer is dropped.
    let (old_id, _) = asked[3].clone();
    h.send(Message::Mirror(MirrorMessage::NearContacts {
        id: old_id,
        result: Ok(Some(vec![near("con_9", "Old Answer", "same phone")])),
    }));
    assert!(f(&h).near.is_empty());
    h.send(Message::Mirror(MirrorMessage::NearContacts {
        id: last_id,
        result: Ok(Some(vec![near("con_4", "Jürgen Weiß", "same phone")])),
    }));
    let screen = h.render();
    assert!(
        screen.contains("looks like Jürgen Weiß (con_4, created 2026-01-05): same phone"),
        "{screen}"
    );
    assert!(screen.contains("Ctrl-O opens it"), "{screen}");
    // Moving the cursor changes nothing the finder compares: nothing asked.
    assert!(checks(&h.key(KeyCode::Left)).is_empty());
}

#[test]
fn ctrl_o_opens_each_match_in_turn_and_the_create_question_says_it_once() {
    let mut h = open(true);
    h.type_str("Jon");
    focus(&mut h, 2);
    let mut last = None;
    for c in "jsmith@example.com".chars() {
        last = checks(&h.ch(c)).pop().or(last);
    }
    let (id, _) = last.unwrap();
    h.send(Message::Mirror(MirrorMessage::NearContacts {
        id,
        result: Ok(Some(vec![
            near("con_1", "John Smith", "same email in another case"),
            near("con_2", "Jon Smith", "same email in another case"),
        ])),
    }));
    let ctrl_o = KeyEvent::new(KeyCode::Char('o'), KeyModifiers::CONTROL);
    let mut opened = Vec::new();
    for _ in 0..3 {
        h.send(Message::Key(ctrl_o));
        match h.app.overlays.last() {
            Some(Overlay::Detail(d)) => opened.push(d.title.clone()),
            _ => panic!("Ctrl-O opens a match"),
        }
        h.key(KeyCode::Esc);
    }
    assert!(
        opened[0].contains("con_1") && opened[1].contains("con_2"),
        "{opened:?}"
    );
    assert!(
        opened[2].contains("con_1"),
        "in turn, round again: {opened:?}"
    );
    assert_eq!(
        f(&h).inputs[2].value(),
        "jsmith@example.com",
        "the draft is kept"
    );
    h.ctrl('s');
    let question = h.render();
    assert!(
        question.contains("It looks like John Smith (same email in another case); Jon"),
        "{question}"
    );
    assert!(question.contains("Creating makes another"), "{question}");
}

#[test]
fn an_account_line_joins_the_draft_and_no_mirror_means_no_check() {
    let mut h = open(true);
    h.type_str("Hannah");
    focus(&mut h, 4);
    let mut last = None;
    for c in "account_ids = [\"acc_1\"]".chars() {
        last = checks(&h.ch(c)).pop().or(last);
    }
    let (_, draft) = last.expect("an extra line is checked too");
    assert_eq!(draft.accounts, ["acc_1"]);
    // Without a mirror ([cache] enabled = false) nothing is asked.
    let mut h = open(false);
    focus(&mut h, 3);
    let mut fx = Vec::new();
    for c in "030 1234567".chars() {
        fx.extend(h.ch(c));
    }
    assert!(checks(&fx).is_empty(), "{fx:?}");
}

#[test]
fn a_paste_is_checked_at_the_next_tick() {
    let mut h = open(true);
    focus(&mut h, 3);
    assert!(checks(&h.send(Message::Paste("+49 30 1234567".into()))).is_empty());
    let fx = h.advance(std::time::Duration::from_millis(1));
    let asked = checks(&fx);
    assert_eq!(asked.len(), 1, "{fx:?}");
    assert_eq!(asked[0].1.phone.as_deref(), Some("+49 30 1234567"));
}
