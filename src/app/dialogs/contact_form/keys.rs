//! The pane's keys, as key-map actions: `next_field`/`prev_field`/`confirm` move, `submit`
//! submits, `open_duplicate` opens the duplicate, `cancel` asks before discarding; every other
//! key edits the focused field (refused while the draft is locked).

use crossterm::event::KeyEvent;

use super::{ContactForm, Stage};
use crate::api::SortDirection;
use crate::app::dialogs::{Dialog, DialogCx, DialogResult, Outcome};
use crate::app::effects::Effect;
use crate::app::keymap::{Action, Hint, KeyMap};
use crate::app::table::spec::{FilterValue, QuerySpec};
use crate::app::widgets::form_fields;
use crate::app::widgets::text_input::InputOutcome;
use crate::resource::Resource;

impl ContactForm {
    fn move_focus(&mut self, forward: bool) {
        self.focus = form_fields::cycle(self.focus, self.field_count(), forward);
    }

    /// `Ctrl-S`: checks everything; errors focus the first one, a clean draft goes to the
    /// confirmation. A locked draft resends at once with its key (the body cannot change).
    fn submit(&mut self, cx: &mut DialogCx) -> Outcome {
        self.submit_tried = true;
        self.revalidate();
        match crate::validate::validate_contact(&self.input()) {
            Err(e) => {
                self.errors = e;
                self.focus_first_error();
                Outcome::Handled
            }
            Ok(contact) if self.locked => self.send(contact, cx),
            Ok(contact) => {
                self.stage = Stage::Confirm { contact };
                Outcome::Handled
            }
        }
    }

    pub(super) fn send(&mut self, contact: crate::api::NewContact, cx: &mut DialogCx) -> Outcome {
        let key = self.key_for(&contact);
        let id = cx.request_id();
        self.stage = Stage::Sending { id };
        self.progress = Some("sending".into());
        self.banner = None;
        Outcome::Effects(vec![Effect::CreateContact { id, contact, key }])
    }

    fn on_confirm_key(&mut self, key: &KeyEvent, cx: &mut DialogCx) -> Outcome {
        let Stage::Confirm { contact } = &self.stage else {
            return Outcome::Handled;
        };
        let contact = contact.clone();
        // One key set whether or not the email is already taken (the question says which):
        // `confirm` or `yes` creates, `add_another` creates and starts over, `cancel`/`no`
        // goes back to the draft.
        let asked = [
            Action::Cancel,
            Action::No,
            Action::Confirm,
            Action::Yes,
            Action::AddAnother,
        ];
        match cx.keymap.pick(key, &asked) {
            Some(Action::Cancel | Action::No) => {
                self.stage = Stage::Editing;
                Outcome::Handled
            }
            Some(Action::Confirm | Action::Yes) => {
                self.add_another = false;
                self.send(contact, cx)
            }
            Some(Action::AddAnother) => {
                self.add_another = true;
                self.send(contact, cx)
            }
            _ => Outcome::Handled,
        }
    }

    /// The lookup for the duplicate check.
    pub fn lookup_spec(email: &str) -> QuerySpec {
        let resource = crate::app::resources::Descriptor::of(Resource::Contacts);
        QuerySpec {
            kind: Resource::Contacts,
            filters: vec![("email", FilterValue::Text(email.to_string()))],
            sort_by: resource.sort_key("created_at").unwrap_or("updated_at"),
            direction: SortDirection::Asc,
            includes: Vec::new(),
            page: 1,
            per_page: 10,
        }
    }
}

impl Dialog for ContactForm {
    /// The keys of the stage on top: the form's, or its question's (as its footer says).
    fn hints(&self) -> &'static [Hint] {
        const EDITING: &[Hint] = &[
            Hint::new(&[Action::NextField, Action::PrevField], "field", 0),
            Hint::new(&[Action::Submit], "create", 0),
            Hint::new(&[Action::Cancel], "discard", 0),
        ];
        const CONFIRM: &[Hint] = &[
            Hint::new(&[Action::Confirm, Action::Yes], "create", 0),
            Hint::new(&[Action::AddAnother], "create and add another", 1),
            Hint::new(&[Action::Cancel], "back", 0),
        ];
        const ASK: &[Hint] = &[
            Hint::new(&[Action::Yes], "discard", 0),
            Hint::new(&[Action::No], "keep editing", 0),
        ];
        match self.stage {
            Stage::Editing | Stage::Sending { .. } => EDITING,
            Stage::Confirm { .. } => CONFIRM,
            Stage::AskDiscard => ASK,
        }
    }

    fn on_key(&mut self, key: &KeyEvent, cx: &mut DialogCx) -> Outcome {
        match &self.stage {
            Stage::Sending { .. } => return Outcome::Handled,
            Stage::Confirm { .. } => return self.on_confirm_key(key, cx),
            Stage::AskDiscard => {
                let stage = &mut self.stage;
                return form_fields::discard_question(cx.keymap, key, || *stage = Stage::Editing);
            }
            Stage::Editing => {}
        }
        if cx.app_key(key) {
            return Outcome::Ignored;
        }
        let editing = [
            Action::Submit,
            Action::OpenDuplicate,
            Action::Cancel,
            Action::NextField,
            Action::Confirm,
            Action::PrevField,
        ];
        match cx.keymap.pick(key, &editing) {
            Some(Action::Submit) => return self.submit(cx),
            Some(Action::OpenDuplicate) => {
                return match self.next_match() {
                    Some(c) => Outcome::Apply(DialogResult::OpenContact(c)),
                    None => Outcome::Handled,
                };
            }
            Some(Action::Cancel) => {
                if self.is_empty() && !self.locked {
                    return Outcome::Close;
                }
                self.stage = Stage::AskDiscard;
                return Outcome::Handled;
            }
            // `confirm` in a form accepts the field and moves on.
            Some(Action::NextField | Action::Confirm) => {
                self.move_focus(true);
                return Outcome::Handled;
            }
            Some(Action::PrevField) => {
                self.move_focus(false);
                return Outcome::Handled;
            }
            _ => {}
        }
        if self.locked {
            // Try the key on a copy: moving the cursor is fine, changing the text is not.
            let mut probe = self.focused_input_mut().clone();
            if probe.handle_key(key) == InputOutcome::Changed {
                self.banner = Some(locked_message(self, cx.keymap));
                return Outcome::Handled;
            }
        }
        match self.focused_input_mut().handle_key(key) {
            InputOutcome::Changed => {
                self.edited(cx.now);
                self.check_near(cx)
            }
            InputOutcome::Moved => Outcome::Handled,
            InputOutcome::Ignored => Outcome::Handled,
        }
    }

    fn on_paste(&mut self, text: &str) -> Outcome {
        // Pastes carry no clock: a duplicate check they start is due at the next tick.
        self.paste(text, chrono::DateTime::<chrono::Utc>::MIN_UTC);
        Outcome::Handled
    }

    fn on_message(&mut self, msg: &crate::app::Message, cx: &mut DialogCx) -> Outcome {
        self.handle_message(msg, cx)
    }

    fn guards_quit(&self) -> bool {
        !self.is_empty() || self.locked || matches!(self.stage, Stage::Sending { .. })
    }

    fn busy(&self) -> bool {
        matches!(self.stage, Stage::Sending { .. })
            || self.dup_request.is_some()
            || self.near_request.is_some()
    }

    fn captures_text(&self) -> bool {
        true
    }

    fn deadline(&self) -> Option<chrono::DateTime<chrono::Utc>> {
        ContactForm::deadline(self)
    }

    fn on_tick(&mut self, cx: &mut DialogCx) -> Outcome {
        if self.near_due {
            return self.check_near(cx);
        }
        match &self.dup_due {
            Some((email, at)) if *at <= cx.now => {
                let email = email.clone();
                self.dup_due = None;
                let id = cx.request_id();
                self.dup_request = Some((id, email.clone()));
                Outcome::Effects(vec![Effect::Fetch {
                    id,
                    spec: ContactForm::lookup_spec(&email),
                }])
            }
            _ => Outcome::Ignored,
        }
    }
}

pub(super) fn locked_message(f: &ContactForm, keys: &KeyMap) -> String {
    let key = f.current_key().map(|k| k.as_str()).unwrap_or("");
    format!(
        "Locked: the last send may have reached the service. {} retries with the same key ({key}) so it cannot duplicate; {} discards the draft.",
        keys.first_key(Action::Submit),
        keys.first_key(Action::Cancel),
    )
}
