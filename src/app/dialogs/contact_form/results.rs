//! Answers for the pane: the duplicate lookup, the create's outcome (success, definite
//! rejection, unknown outcome) and the client's retry notices.

use std::sync::Arc;

use super::keys::locked_message;
use super::{ContactForm, Duplicate, Stage};
use crate::api::{ApiError, Contact, Created, ErrorKind};
use crate::app::Message;
use crate::app::dialogs::{CreatedContact, DialogCx, DialogResult, Outcome};
use crate::app::keymap::{Action, KeyMap};
use crate::app::table::record::FetchedPage;
use crate::validate::{ContactInput, server_field_errors};

impl ContactForm {
    pub(super) fn handle_message(&mut self, msg: &Message, cx: &mut DialogCx) -> Outcome {
        match msg {
            Message::Mirror(m) => self.on_near(m),
            Message::Fetched { id, result, .. } => {
                let Some((want, email)) = &self.dup_request else {
                    return Outcome::Ignored;
                };
                if want != id {
                    return Outcome::Ignored;
                }
                let email = email.clone();
                self.dup_request = None;
                // A failed lookup is not a reason to block: the check simply did not happen.
                if let Ok(page) = result {
                    self.duplicate = find_duplicate(page, &email);
                }
                Outcome::Handled
            }
            Message::Retrying {
                attempt,
                max_attempts,
                reason,
            } if matches!(self.stage, Stage::Sending { .. }) => {
                self.progress = Some(format!("retrying ({attempt}/{max_attempts}): {reason}"));
                Outcome::Handled
            }
            Message::ContactCreated { id, result } => {
                if self.stage != (Stage::Sending { id: *id }) {
                    return Outcome::Ignored;
                }
                self.progress = None;
                self.stage = Stage::Editing;
                match result.as_ref() {
                    Ok(created) => self.created(created),
                    Err(e) => {
                        self.failed(e, cx.keymap);
                        Outcome::Handled
                    }
                }
            }
            _ => Outcome::Ignored,
        }
    }

    fn created(&mut self, created: &Created<Contact>) -> Outcome {
        let result = DialogResult::ContactCreated(CreatedContact::of(created, Some(&self.input())));
        self.locked = false;
        if self.add_another {
            self.reset();
            Outcome::Apply(result)
        } else {
            Outcome::CloseWith(result)
        }
    }

    fn failed(&mut self, e: &ApiError, keys: &KeyMap) {
        let submit = keys.first_key(Action::Submit);
        if e.outcome_unknown {
            self.locked = true;
            self.banner = Some(format!("{}. {}", e.summary(), locked_message(self, keys)));
            return;
        }
        // A definite answer: the draft is free to edit; an edited body gets a new key.
        self.locked = false;
        if e.kind == ErrorKind::Validation && !e.field_errors.is_empty() {
            self.server_errors = server_field_errors(&e.field_errors);
            self.focus_first_error();
            self.banner = Some(format!(
                "The service refused the contact ({} field error{}): fix and press {submit}.",
                self.server_errors.len(),
                if self.server_errors.len() == 1 {
                    ""
                } else {
                    "s"
                }
            ));
            return;
        }
        let hint = if e.is_transient() || e.kind == ErrorKind::Conflict {
            format!(" Nothing was lost: {submit} tries again with the same key.")
        } else {
            " Nothing was lost.".to_string()
        };
        // The summary is a clause ("… nothing was sent"): end it before the hint's sentence.
        let summary = e.summary();
        let stop = if summary.ends_with(['.', '!', '?']) {
            ""
        } else {
            "."
        };
        self.banner = Some(format!("{summary}{stop}{hint}"));
    }
}

/// A contact on the page whose email is exactly `email` (the filter may match loosely).
fn find_duplicate(page: &Arc<FetchedPage>, email: &str) -> Option<Duplicate> {
    page.records.iter().find_map(|r| {
        let v: serde_json::Value = serde_json::from_str(&r.raw).ok()?;
        let found = v.get("email")?.as_str()?;
        if !found.trim().eq_ignore_ascii_case(email.trim()) {
            return None;
        }
        let created = v
            .get("created_at")
            .and_then(|c| c.as_str())
            .map(|c| c.chars().take(10).collect());
        Some(Duplicate {
            id: r.id.clone(),
            name: r.label.clone(),
            created,
            raw: r.raw.clone(),
            email: email.to_string(),
        })
    })
}

impl CreatedContact {
    /// What the service created: its name from the record, else from what was typed (when the
    /// pane is still there), else its email.
    pub fn of(created: &Created<Contact>, typed: Option<&ContactInput>) -> CreatedContact {
        let from_record = created
            .record
            .as_ref()
            .map(|c| c.full_name())
            .filter(|n| !n.trim().is_empty());
        let name = from_record
            .or_else(|| {
                let t = typed?;
                let n = format!("{} {}", t.first_name.trim(), t.last_name.trim());
                let n = n.trim().to_string();
                Some(if n.is_empty() {
                    t.email.trim().to_string()
                } else {
                    n
                })
            })
            .unwrap_or_default();
        CreatedContact {
            id: created.record.as_ref().map(|c| c.id.clone()),
            name,
            replayed: created.replayed,
        }
    }
}
