//! Answers for the dialog: the reschedule's outcome (logged on success; 404 and 422 on their
//! fields; anything else a message with every field kept) and the log as read back.

use super::{Field, RescheduleForm, Stage};
use crate::api::{ApiError, AppointmentRef, ErrorKind};
use crate::app::Message;
use crate::app::dialogs::{DialogCx, Outcome};
use crate::app::effects::Effect;
use crate::app::keymap::{Action, KeyMap};
use crate::reschedule::{RescheduleLogEntry, map_server_field};

/// How many log entries the dialog shows.
pub const LOG_SHOWN: usize = 20;

impl RescheduleForm {
    /// The effect that reads (and first appends to) the log.
    pub fn log_effect(&mut self, append: Option<RescheduleLogEntry>) -> Option<Effect> {
        let path = self.config.log_path.clone()?;
        self.log_pending = true;
        Some(Effect::RescheduleLog {
            path,
            append,
            last: LOG_SHOWN,
        })
    }

    pub(super) fn handle_message(&mut self, msg: &Message, cx: &mut DialogCx) -> Outcome {
        match msg {
            Message::RescheduleLog { result } => {
                self.log_pending = false;
                match result {
                    Ok(entries) => {
                        self.log = entries.clone();
                        self.log_error = None;
                    }
                    Err(e) => self.log_error = Some(e.clone()),
                }
                Outcome::Handled
            }
            Message::Rescheduled { id, result } => {
                let Stage::Sending {
                    id: want,
                    appointment_id,
                    body,
                } = self.stage.clone()
                else {
                    return Outcome::Ignored;
                };
                if want != *id {
                    return Outcome::Ignored;
                }
                self.now = cx.now;
                match result.as_ref() {
                    Ok(a) => self.succeeded(a, appointment_id, body),
                    Err(e) => {
                        self.stage = Stage::Editing;
                        self.failed(e, &appointment_id, cx.keymap);
                        Outcome::Handled
                    }
                }
            }
            _ => Outcome::Ignored,
        }
    }

    fn succeeded(
        &mut self,
        a: &AppointmentRef,
        appointment_id: String,
        body: serde_json::Map<String, serde_json::Value>,
    ) -> Outcome {
        let entry = RescheduleLogEntry {
            id: appointment_id,
            profile: self.config.profile.clone(),
            host: self.config.host.clone(),
            body,
            updated_at: a.updated_at.as_ref().map(|t| t.raw().to_string()),
            at: self.now,
        };
        self.banner = None;
        self.field_errors.clear();
        self.stage = Stage::Done {
            entry: entry.clone(),
        };
        match self.log_effect(Some(entry.clone())) {
            Some(e) => Outcome::Effects(vec![e]),
            None => {
                self.log.push(entry);
                self.log_error = Some("no data directory: this reschedule is not logged".into());
                Outcome::Handled
            }
        }
    }

    fn failed(&mut self, e: &ApiError, appointment_id: &str, keys: &KeyMap) {
        let again = format!(
            "{}, {}",
            keys.first_key(Action::Submit),
            keys.first_key(Action::Confirm)
        );
        match e.kind {
            ErrorKind::NotFound => {
                self.field_errors = vec![(
                    Field::Id,
                    format!("no appointment with id {appointment_id}"),
                )];
                self.focus_field(Field::Id);
                self.banner = Some(format!("No appointment with id {appointment_id}."));
            }
            ErrorKind::Validation => {
                let mut verbatim = Vec::new();
                self.field_errors.clear();
                for (key, msgs) in &e.field_errors {
                    let text = msgs.join("; ");
                    match map_server_field(key, &self.config.settings) {
                        Some(f) => self
                            .field_errors
                            .push((RescheduleForm::dialog_field(f), format!("{key}: {text}"))),
                        None => verbatim.push(format!("{key}: {text}")),
                    }
                }
                if let Some((f, _)) = self.field_errors.first().cloned() {
                    self.focus_field(f);
                }
                let mut banner = format!("Rejected: {}", e.message);
                if !verbatim.is_empty() {
                    banner = format!("{banner} ({})", verbatim.join("; "));
                }
                self.banner = Some(banner);
            }
            _ if e.outcome_unknown => {
                self.banner = Some(format!(
                    "{}. The request may have reached the service and a reschedule is not idempotent: check the appointment before sending again ({again}).",
                    e.summary().trim_end_matches('.')
                ));
            }
            _ => {
                self.banner = Some(format!(
                    "{}. Everything is kept: {again} sends again.",
                    e.summary().trim_end_matches('.')
                ));
            }
        }
    }
}
