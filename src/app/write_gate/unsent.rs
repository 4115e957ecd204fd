//! Writes that waited in their undo window and were never sent. The journal knows each one from
//! the moment it is held (`held`, with its body), so whatever ends the dashboard (a quit that
//! drops them, SIGTERM, SIGHUP, or kill -9 with nothing written after) leaves a trace: the next
//! start reads the journal, says what was not sent and offers each as a draft in its dialog,
//! as it was when it was confirmed.

use chrono::{DateTime, Utc};
use crossterm::event::KeyEvent;
use serde_json::Value;

use super::{Held, WriteKind};
use crate::app::dialogs::{Dialog, DialogCx, DialogResult, Outcome, Overlay};
use crate::app::effects::Effect;
use crate::app::keymap::{Action, Hint};
use crate::app::{App, Message};
use crate::journal::{Answer, WriteRecord};

/// What became of held writes that were not sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Unsent {
    TakenBack,
    Dropped,
}

/// How long after it was held a write still held in the journal may belong to another
/// dashboard counting it down: older than its undo window and this, its dashboard is gone.
const STILL_COUNTING: chrono::TimeDelta = chrono::TimeDelta::seconds(60);

impl App {
    /// The journal entry of a write about to wait in its undo window (`None`: no journal, or
    /// not a single write): its id, which the gate's ticket takes when it is sent.
    pub(super) fn journal_held(&self, effect: &Effect) -> (Option<String>, Vec<Effect>) {
        let (Some(path), Some((_, sent))) =
            (self.safety.config.journal.clone(), self.sent_of(effect))
        else {
            return (None, Vec::new());
        };
        let id = uuid::Uuid::new_v4().to_string();
        let held = Answer {
            held: true,
            ..Answer::default()
        };
        let mut entry = sent.record(Some(id.clone()), held);
        entry.at = self.wall;
        let fx = Effect::RecordWrite {
            path,
            entry: Box::new(entry),
        };
        (Some(id), vec![fx])
    }

    /// The entries saying `held` writes were not sent, with their bodies.
    fn unsent_entries(&self, held: &[Held], how: Unsent) -> Vec<WriteRecord> {
        held.iter()
            .filter_map(|h| {
                let id = h.reserved.clone()?;
                let (_, sent) = self.sent_of(&h.effect)?;
                let answer = Answer {
                    dropped: how == Unsent::Dropped,
                    taken_back: how == Unsent::TakenBack,
                    ..Answer::default()
                };
                let mut entry = sent.record(Some(id), answer);
                entry.at = self.wall;
                Some(entry)
            })
            .collect()
    }

    /// Taken back: the journal says so (off the loop).
    pub(super) fn journal_unsent(&self, held: &[Held], how: Unsent) -> Vec<Effect> {
        let Some(path) = self.safety.config.journal.clone() else {
            return Vec::new();
        };
        self.unsent_entries(held, how)
            .into_iter()
            .map(|entry| Effect::RecordWrite {
                path: path.clone(),
                entry: Box::new(entry),
            })
            .collect()
    }

    /// The dashboard ends: the writes still in their undo window are dropped, and the journal
    /// says so before the process exits (written at once, not off the loop).
    pub(crate) fn drop_held_at_exit(&mut self) -> Vec<Effect> {
        let held = std::mem::take(&mut self.safety.held);
        let Some(path) = self.safety.config.journal.clone() else {
            return Vec::new();
        };
        let entries = self.unsent_entries(&held, Unsent::Dropped);
        if entries.is_empty() {
            return Vec::new();
        }
        vec![Effect::RecordAtExit { path, entries }]
    }

    /// At the start: ask the journal for the writes an earlier dashboard did not send.
    pub(crate) fn find_unsent(&self) -> Vec<Effect> {
        let Some(path) = self.safety.config.journal.clone() else {
            return Vec::new();
        };
        let stale = stale_before(self.wall, self.safety.config.undo);
        vec![Effect::FindUnsent { path, stale }]
    }

    /// The journal's answer: each unsent write of the active profile is offered as a draft
    /// (once: the journal notes it was offered); those of other profiles wait for a start with
    /// that profile, and the status line says so.
    pub(crate) fn unsent_found(&mut self, found: Result<Vec<WriteRecord>, String>) -> Vec<Effect> {
        let found = match found {
            Ok(f) => f,
            Err(e) => {
                self.show_error(format!("The write journal could not be read: {e}"));
                return Vec::new();
            }
        };
        let (found, elsewhere): (Vec<WriteRecord>, Vec<WriteRecord>) = found
            .into_iter()
            .partition(|w| w.profile == self.workspace.profile);
        if let Some(first) = elsewhere.first() {
            let n = elsewhere.len();
            self.note(format!(
                "{n} unsent {} of profile {} {} in the journal: start crmdash with --profile {} to open {} as drafts.",
                if n == 1 { "write" } else { "writes" },
                first.profile,
                if n == 1 { "waits" } else { "wait" },
                first.profile,
                if n == 1 { "it" } else { "them" },
            ));
        }
        if found.is_empty() {
            return Vec::new();
        }
        let mut fx = Vec::new();
        if let Some(path) = self.safety.config.journal.clone() {
            for w in &found {
                let mut entry = w.clone();
                entry.answer = Answer {
                    dropped: true,
                    offered: true,
                    ..Answer::default()
                };
                fx.push(Effect::RecordWrite {
                    path: path.clone(),
                    entry: Box::new(entry),
                });
            }
        }
        self.overlays
            .push(Overlay::Unsent(Box::new(UnsentDrafts::new(found))));
        self.dirty = true;
        fx
    }

    /// Opens an unsent write in its dialog, filled in as it was confirmed: the contact form
    /// with its fields, the reschedule dialog at its preview of the exact body.
    pub(crate) fn open_draft(&mut self, w: WriteRecord) -> Vec<Effect> {
        // Only the active profile's writes are offered (`unsent_found`).
        match w.kind {
            WriteKind::Create => {
                let fx = self.open_contact_form();
                if let Some(Overlay::ContactForm(form)) = self.overlays.last_mut() {
                    form.fill_from(&w.sent, w.key.as_deref());
                }
                fx
            }
            WriteKind::Reschedule => {
                let fx = self.open_reschedule();
                if let (Some(Overlay::Reschedule(form)), Some(id), Value::Object(body)) =
                    (self.overlays.last_mut(), w.target, w.sent)
                {
                    form.fill_from(&id, body);
                }
                fx
            }
            _ => Vec::new(),
        }
    }
}

/// One line for an unsent write: what it was and where it went.
pub fn describe(w: &WriteRecord) -> String {
    let text = |k: &str| w.sent.get(k).and_then(Value::as_str).unwrap_or("");
    let what = match w.kind {
        WriteKind::Create => {
            let name = format!("{} {}", text("first_name"), text("last_name"));
            let email = text("email");
            let mut s = format!("create contact {}", name.trim());
            if !email.is_empty() {
                s.push_str(&format!(" <{email}>"));
            }
            s
        }
        WriteKind::Reschedule => {
            let times: Vec<String> = match &w.sent {
                Value::Object(m) => m
                    .iter()
                    .map(|(k, v)| format!("{k} {}", v.as_str().unwrap_or(&v.to_string())))
                    .collect(),
                _ => Vec::new(),
            };
            format!(
                "reschedule appointment {}: {}",
                w.target.as_deref().unwrap_or("?"),
                times.join(", ")
            )
        }
        other => other.name().to_string(),
    };
    let when = crmdash_api::clock::get().format_labelled(w.at);
    format!("{what} (profile {}, confirmed {when})", w.profile)
}

/// "Not sent when crmdash last ended": the writes dropped in their undo window, each opened
/// as a draft with Enter.
pub struct UnsentDrafts {
    pub writes: Vec<WriteRecord>,
    pub selected: usize,
}

impl UnsentDrafts {
    pub fn new(writes: Vec<WriteRecord>) -> UnsentDrafts {
        UnsentDrafts {
            writes,
            selected: 0,
        }
    }

    /// Held at a start after a kill -9 (nothing said it ended), or dropped at a quit or signal.
    pub fn killed(w: &WriteRecord) -> bool {
        w.answer.held
    }
}

pub const UNSENT_HINTS: &[Hint] = &[
    Hint::new(&[Action::Confirm], "open as draft", 0),
    Hint::new(&[Action::Back], "close", 0),
];

impl Dialog for UnsentDrafts {
    fn hints(&self) -> &'static [Hint] {
        UNSENT_HINTS
    }

    fn on_key(&mut self, key: &KeyEvent, cx: &mut DialogCx) -> Outcome {
        let picked = cx.keymap.pick(
            key,
            &[
                Action::Up,
                Action::Down,
                Action::Confirm,
                Action::Back,
                Action::Cancel,
            ],
        );
        match picked {
            Some(Action::Up) => self.selected = self.selected.saturating_sub(1),
            Some(Action::Down) => {
                self.selected = (self.selected + 1).min(self.writes.len().saturating_sub(1))
            }
            Some(Action::Confirm) if self.selected < self.writes.len() => {
                let w = self.writes.remove(self.selected);
                self.selected = self.selected.min(self.writes.len().saturating_sub(1));
                let open = DialogResult::OpenDraft(Box::new(w));
                return if self.writes.is_empty() {
                    Outcome::CloseWith(open)
                } else {
                    Outcome::Apply(open)
                };
            }
            Some(Action::Back | Action::Cancel) => return Outcome::Close,
            _ if cx.app_key(key) => return Outcome::Ignored,
            _ => {}
        }
        Outcome::Handled
    }
}

/// The message the journal's answer arrives as.
pub fn found_message(result: std::io::Result<Vec<WriteRecord>>, path: &std::path::Path) -> Message {
    Message::UnsentFound(result.map_err(|e| format!("{}: {e}", path.display())))
}

/// The time before which a write still held is counted as dropped.
pub fn stale_before(now: DateTime<Utc>, undo: std::time::Duration) -> DateTime<Utc> {
    now - chrono::TimeDelta::from_std(undo).unwrap_or_default() - STILL_COUNTING
}
