//! The new-contact pane (`c`): four fields and `key = value` extra lines, validated as typed,
//! a debounced duplicate check by email, a confirmation naming profile and host, and one
//! Idempotency-Key per draft. After an unknown outcome the draft is locked (only a retry with
//! the same key or an explicit discard); nothing typed is lost on any error.

mod keys;
pub mod near;
mod results;

use crate::app::dialogs::{CreatedContact, Overlay};
use crate::app::effects::Effect;
use crate::resource::Resource;
use chrono::{DateTime, Utc};
use std::sync::Arc;

use crate::api::{IdempotencyKey, NewContact};
use crate::app::effects::RequestId;
use crate::app::widgets::form_fields;
use crate::app::widgets::text_input::TextInput;
use crate::validate::{self, ContactField, ContactInput, FieldErrors};

/// How long the email must stay unchanged before the duplicate check asks the server.
pub const DUPLICATE_DEBOUNCE: chrono::TimeDelta = chrono::TimeDelta::milliseconds(400);

/// The four fixed fields, in focus order; extra lines follow them.
pub const FIELDS: [ContactField; 4] = [
    ContactField::FirstName,
    ContactField::LastName,
    ContactField::Email,
    ContactField::Phone,
];

/// A contact the server already has with the typed email.
#[derive(Debug, Clone, PartialEq)]
pub struct Duplicate {
    pub id: String,
    pub name: String,
    /// `YYYY-MM-DD`, when the record says.
    pub created: Option<String>,
    pub raw: Arc<str>,
    /// The email it was found for.
    pub email: String,
}

/// Where the pane is in its life.
#[derive(Debug, Clone, PartialEq)]
pub enum Stage {
    Editing,
    /// The confirmation (profile, host, workflows warning) for this body.
    Confirm {
        contact: NewContact,
    },
    Sending {
        id: RequestId,
    },
    /// "Discard this draft?"
    AskDiscard,
}

/// What the app tells the pane about where it writes.
#[derive(Debug, Clone, Default)]
pub struct Target {
    pub profile: String,
    pub host: String,
}

pub struct ContactForm {
    pub inputs: [TextInput; 4],
    /// Extra `key = value` lines; always ends with an empty line to type into.
    pub extra: Vec<TextInput>,
    /// 0..4 the fixed fields, then the extra lines.
    pub focus: usize,
    pub stage: Stage,
    /// Errors found in the typed text (shown for fields with text, all after a submit).
    pub errors: FieldErrors,
    /// The server's 422 errors, each cleared when its field is edited.
    pub server_errors: FieldErrors,
    submit_tried: bool,
    /// The draft's key and the body first sent with it.
    key: Option<(IdempotencyKey, NewContact)>,
    /// The outcome of the last send is unknown: no edits until a retry settles it.
    pub locked: bool,
    /// A message above the footer (server errors, the lock).
    pub banner: Option<String>,
    /// "sending", "retrying (2/4): 503".
    pub progress: Option<String>,
    pub duplicate: Option<Duplicate>,
    /// The email waiting for the duplicate check and when it is due.
    dup_due: Option<(String, DateTime<Utc>)>,
    /// The duplicate lookup in flight.
    pub(crate) dup_request: Option<(RequestId, String)>,
    /// Create, then start over with an empty draft.
    add_another: bool,
    pub target: Target,
    /// The finder the draft is checked with (`None`: no local mirror to check against).
    pub finder: Option<crate::insights::dupes::mirrored::Finder>,
    /// Contacts of the mirror like the draft, best first.
    pub near: Vec<crate::insights::dupes::mirrored::NearContact>,
    /// The draft `near` was asked for (an edit that changes nothing the finder compares
    /// asks nothing).
    near_for: Option<crate::insights::dupes::Person>,
    /// The mirror's check in flight.
    pub(crate) near_request: Option<RequestId>,
    /// A paste changed the draft: the check runs at the next tick.
    near_due: bool,
    /// How many matches `open_duplicate` went through (it opens them in turn).
    opened: usize,
}

impl ContactForm {
    pub fn new(target: Target) -> ContactForm {
        ContactForm {
            inputs: std::array::from_fn(|i| {
                let max = match FIELDS[i] {
                    ContactField::Email => validate::MAX_EMAIL + 10,
                    ContactField::Phone => validate::MAX_PHONE + 10,
                    _ => validate::MAX_NAME + 10,
                };
                TextInput::default().with_max(max)
            }),
            extra: vec![TextInput::default()],
            focus: 0,
            stage: Stage::Editing,
            errors: FieldErrors::default(),
            server_errors: FieldErrors::default(),
            submit_tried: false,
            key: None,
            locked: false,
            banner: None,
            progress: None,
            duplicate: None,
            dup_due: None,
            dup_request: None,
            add_another: false,
            target,
            finder: None,
            near: Vec::new(),
            near_for: None,
            near_request: None,
            near_due: false,
            opened: 0,
        }
    }

    /// The form filled in with a body confirmed before and not sent (a draft the journal kept):
    /// the four fields, then each further key as a `key = value` line. Sent with `key` (its
    /// Idempotency-Key then) while the body is unchanged, so it can never create twice.
    pub fn fill_from(&mut self, body: &serde_json::Value, key: Option<&str>) {
        use serde_json::Value;
        let Value::Object(map) = body else { return };
        let names = ["first_name", "last_name", "email", "phone"];
        for (input, name) in self.inputs.iter_mut().zip(names) {
            if let Some(v) = map.get(name).and_then(Value::as_str) {
                input.set(v);
            }
        }
        self.extra = map
            .iter()
            .filter(|(k, _)| !names.contains(&k.as_str()))
            .map(|(k, v)| TextInput::new(format!("{k} = {}", form_fields::value_text(v))))
            .collect();
        self.extra.push(TextInput::default());
        if let Some(k) = key.and_then(|k| IdempotencyKey::from_stable(k).ok()) {
            let text = |name: &str| map.get(name).and_then(Value::as_str).map(str::to_string);
            let contact = NewContact {
                first_name: text("first_name"),
                last_name: text("last_name"),
                email: text("email"),
                phone: text("phone"),
                extra: map
                    .iter()
                    .filter(|(k, _)| !names.contains(&k.as_str()))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            };
            self.key = Some((k, contact));
        }
        self.revalidate();
    }

    /// The text as typed.
    pub fn input(&self) -> ContactInput {
        ContactInput {
            first_name: self.inputs[0].value().to_string(),
            last_name: self.inputs[1].value().to_string(),
            email: self.inputs[2].value().to_string(),
            phone: self.inputs[3].value().to_string(),
            extra: form_fields::extra_text(&self.extra),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.inputs.iter().all(|i| i.value().trim().is_empty())
            && self.extra.iter().all(|l| l.value().trim().is_empty())
    }

    /// The field that has focus.
    pub fn focused_field(&self) -> ContactField {
        FIELDS
            .get(self.focus)
            .copied()
            .unwrap_or(ContactField::Extra)
    }

    pub fn field_count(&self) -> usize {
        FIELDS.len() + self.extra.len()
    }

    pub(crate) fn focused_input_mut(&mut self) -> &mut TextInput {
        form_fields::input_mut(&mut self.inputs, &mut self.extra, self.focus)
    }

    /// The key the next send uses: the draft's key while the body is the one it was first
    /// sent with (a retry), a fresh one for a new or edited body.
    pub fn key_for(&mut self, contact: &NewContact) -> IdempotencyKey {
        match &self.key {
            Some((k, body)) if body == contact => k.clone(),
            _ => {
                let k = IdempotencyKey::random();
                self.key = Some((k.clone(), contact.clone()));
                k
            }
        }
    }

    /// The draft's key, if it was ever sent.
    pub fn current_key(&self) -> Option<&IdempotencyKey> {
        self.key.as_ref().map(|(k, _)| k)
    }

    /// The error shown beside a field: the server's first, else the typed text's.
    pub fn error_for(&self, field: ContactField) -> Option<&str> {
        self.server_errors.get(field).or_else(|| {
            let shown = self.submit_tried
                || match FIELDS.iter().position(|f| *f == field) {
                    Some(i) => !self.inputs[i].value().trim().is_empty(),
                    None => field == ContactField::Extra,
                };
            shown.then(|| self.errors.get(field)).flatten()
        })
    }

    /// Re-checks the typed text; keeps only errors worth showing.
    fn revalidate(&mut self) {
        self.errors = match validate::validate_contact(&self.input()) {
            Ok(_) => FieldErrors::default(),
            Err(e) => e,
        };
    }

    /// Focuses the first field with an error shown (server errors included).
    fn focus_first_error(&mut self) {
        let mut all = self.errors.clone();
        for (f, m) in self.server_errors.iter() {
            all.insert(f, m.to_string());
        }
        if let Some((field, _)) = all.first() {
            self.focus = match FIELDS.iter().position(|f| *f == field) {
                Some(i) => i,
                None if field == ContactField::Extra => FIELDS.len(),
                // A name or an email is missing: the first name is where to type.
                None if field == ContactField::Form => 0,
                None => self.focus,
            };
        }
    }

    /// After an edit: validation, the server's error for that field, extra-line growth and
    /// the duplicate check's timer.
    fn edited(&mut self, now: DateTime<Utc>) {
        let field = self.focused_field();
        self.server_errors.0.remove(&field);
        if field == ContactField::Extra {
            form_fields::keep_blank_line(&mut self.extra);
        }
        self.revalidate();
        if field == ContactField::Email {
            self.email_changed(now);
        }
    }

    fn email_changed(&mut self, now: DateTime<Utc>) {
        let email = self.inputs[2].value().trim().to_string();
        if self
            .duplicate
            .as_ref()
            .is_some_and(|d| !d.email.eq_ignore_ascii_case(&email))
        {
            self.duplicate = None;
        }
        self.dup_request = None;
        self.dup_due =
            (validate::check_email(&email).is_ok()).then(|| (email, now + DUPLICATE_DEBOUNCE));
    }

    /// When the duplicate check is due (the app's timer wakes for it); a paste's near
    /// check at once.
    pub fn deadline(&self) -> Option<DateTime<Utc>> {
        if self.near_due {
            return Some(DateTime::<Utc>::MIN_UTC);
        }
        self.dup_due.as_ref().map(|(_, at)| *at)
    }

    /// Inserts pasted text: into one field flattened, into the extra lines line by line.
    pub fn paste(&mut self, text: &str, now: DateTime<Utc>) {
        if self.locked || self.stage != Stage::Editing {
            return;
        }
        self.near_due = true;
        if self.focus < FIELDS.len() {
            self.inputs[self.focus].insert_str(text.trim_end_matches(['\n', '\r']));
            self.edited(now);
            return;
        }
        form_fields::paste_lines(FIELDS.len(), &mut self.extra, &mut self.focus, text);
        self.edited(now);
    }

    /// Starts over with an empty draft and a new key (after "create and add another").
    fn reset(&mut self) {
        let target = std::mem::take(&mut self.target);
        let finder = self.finder.take();
        *self = ContactForm::new(target);
        self.finder = finder;
    }
}

impl crate::app::App {
    pub(crate) fn target(&self) -> Target {
        Target {
            profile: self.config.profile.clone(),
            host: self.config.host.clone(),
        }
    }

    /// `c`: the new-contact pane.
    pub(crate) fn open_contact_form(&mut self) -> Vec<Effect> {
        let mut form = ContactForm::new(self.target());
        form.finder = self.mirror.enabled.then(|| self.forms.config.dupes.clone());
        self.overlays.push(Overlay::ContactForm(Box::new(form)));
        self.dirty = true;
        Vec::new()
    }

    /// A contact was created (by the pane, or answered after it closed): the one place that
    /// says so, refreshes the Contacts tab and selects the new contact there.
    pub(crate) fn contact_created(&mut self, c: CreatedContact) -> Vec<Effect> {
        let id = c.id.clone().unwrap_or_else(|| "?".into());
        let again = if c.replayed {
            " (already created earlier)"
        } else {
            ""
        };
        // The id first: a long name is what the status bar cuts, never the id.
        self.note(format!("Created contact id {id}: {}{again}", c.name));
        self.forms.select_after_load = c.id;
        self.active = Resource::Contacts;
        // Bypassing the cache also forgets the Contacts pages kept from before the create.
        self.load(Resource::Contacts, true)
    }

    /// After the Contacts tab shows a page: select the contact just created, if it is there.
    pub(crate) fn select_created(&mut self, kind: Resource) {
        if kind != Resource::Contacts {
            return;
        }
        let Some(id) = self.forms.select_after_load.take() else {
            return;
        };
        let tab = &mut self.tabs[kind.index()];
        if let Some(i) = tab.records().iter().position(|r| r.id == id) {
            tab.select(i);
        }
    }
}
