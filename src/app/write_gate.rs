//! The dashboard's side of the write gate (`crate::safety`): every write effect a dialog
//! returns (a create, a reschedule) passes here before the runtime sees it. A read-only
//! profile refuses it (the dialog hears why, its draft intact); a protected one asks for the
//! profile's name typed; then the undo window holds it `[safety] undo_seconds` with a
//! countdown on the status line, `u` or Esc taking it back, before it goes out once. Each
//! answer to a write that went out becomes one entry of the write journal
//! (`Effect::RecordWrite`). "Send now" at quit sends what waits and quits once it is
//! answered; a bulk run (a plan) is waited for at most [`QUIT_WAIT`], then stopped (the
//! rows under way finish and are recorded) and waited for at most [`QUIT_STOP_GRACE`] more.

mod admission;
mod log;
mod unsent;

pub use unsent::{UnsentDrafts, describe as describe_unsent, found_message};

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;

use crate::api::{ApiError, ErrorKind};
use crate::app::dialogs::Overlay;
use crate::app::dialogs::write_guard::{PendingWriteQuit, TypeProfileName};
use crate::app::effects::{Effect, RequestId};
use crate::app::jobs::{JobEvent, JobSpec};
use crate::app::message::Message;
use crate::app::{App, keymap::Action};
use crate::journal::{Answer, Who, WriteKind, WriteRecord};
use crate::safety::{self, Asker, Clearance, ProfileSafety};

/// How long quitting waits for a bulk run released by "send now" before stopping it.
pub const QUIT_WAIT: Duration = Duration::from_secs(30);
/// How long quitting then waits for the stopped run's report (its requests under way end)
/// before quitting all the same.
pub const QUIT_STOP_GRACE: Duration = Duration::from_secs(15);

/// What the runtime tells the app about writes.
#[derive(Debug, Clone, Default)]
pub struct SafetyConfig {
    /// Each profile's flags (`[profiles.NAME]`); a profile not named has none.
    pub flags: BTreeMap<String, ProfileSafety>,
    /// The undo window; zero sends at once.
    pub undo: Duration,
    /// The write journal; `None` keeps no record (tests, no data dir).
    pub journal: Option<PathBuf>,
}

/// A write confirmed and waiting out its undo window.
#[derive(Debug)]
pub struct Held {
    pub effect: Effect,
    pub send_at: Instant,
    /// The id its journal entry (held, then sent, dropped or taken back) has.
    reserved: Option<String>,
}

/// What is remembered of a write sent, for its journal entry once answered.
#[derive(Debug, Clone)]
struct Sent {
    kind: WriteKind,
    profile: String,
    host: String,
    sent: Value,
    key: Option<String>,
    target: Option<String>,
    /// The gate's ticket id (its intent is in the journal), once the runtime admitted it.
    ticket: Option<String>,
    /// The id its held entry has in the journal (the ticket takes it).
    reserved: Option<String>,
}

impl Sent {
    /// Its journal entry under `id`, saying `answer`, as the dashboard's.
    fn record(self, id: Option<String>, answer: Answer) -> WriteRecord {
        let mut entry = WriteRecord::new(
            self.kind,
            Who::Dashboard,
            &self.profile,
            "",
            self.sent,
            answer,
        );
        entry.id = id;
        entry.host = self.host;
        entry.target = self.target;
        entry.key = self.key;
        entry
    }
}

/// The gate's state.
#[derive(Debug, Default)]
pub struct WriteGate {
    pub config: SafetyConfig,
    /// Writes in their undo window, oldest first.
    pub held: Vec<Held>,
    /// A protected profile's write waiting for the name typed.
    awaiting_name: Option<Effect>,
    sent: HashMap<RequestId, Sent>,
    /// "Send now" was chosen while quitting: quit once these are answered.
    quit_after: Vec<RequestId>,
    /// Set with `quit_after`: the app quits when they are answered.
    quit_armed: bool,
    /// The bulk runs among `quit_after` (they end with their job's last report).
    quit_runs: Vec<RequestId>,
    /// When the quit stops waiting for them: they are stopped then, and after
    /// [`QUIT_STOP_GRACE`] more the app quits all the same.
    quit_by: Option<Instant>,
    /// The runs were asked to stop (`quit_by` is the grace's end).
    quit_stopping: bool,
    /// The countdown's seconds last drawn.
    shown_secs: Option<u64>,
    /// Bulk runs (a plan) the gate let through: they start as jobs, journalled row by row.
    passed: std::collections::HashSet<RequestId>,
}

fn is_write(e: &Effect) -> bool {
    matches!(
        e,
        Effect::CreateContact { .. }
            | Effect::Reschedule { .. }
            | Effect::StartJob {
                job: JobSpec::Plan(_) | JobSpec::Import(_),
                ..
            }
    )
}

fn write_id(e: &Effect) -> RequestId {
    match e {
        Effect::CreateContact { id, .. }
        | Effect::Reschedule { id, .. }
        | Effect::StartJob { id, .. } => *id,
        _ => RequestId(0),
    }
}

fn noun(e: &Effect) -> &'static str {
    match e {
        Effect::Reschedule { .. } => "reschedule",
        Effect::StartJob {
            job: JobSpec::Import(_),
            ..
        } => "import",
        Effect::StartJob { .. } => "plan",
        _ => "create",
    }
}

/// The answer a dialog gets for a write that was not sent: its draft stays.
fn not_sent(e: &Effect, why: &str) -> Option<Message> {
    let err = ApiError::new(ErrorKind::InvalidRequest, why);
    match e {
        Effect::CreateContact { id, .. } => Some(Message::ContactCreated {
            id: *id,
            result: Box::new(Err(err)),
        }),
        Effect::Reschedule { id, .. } => Some(Message::Rescheduled {
            id: *id,
            result: Box::new(Err(err)),
        }),
        _ => None,
    }
}

impl App {
    pub fn set_safety(&mut self, config: SafetyConfig) {
        self.safety.config = config;
    }

    /// The active profile's flags.
    pub fn profile_safety(&self) -> ProfileSafety {
        self.profile_safety_of(&self.workspace.profile)
    }

    pub fn profile_safety_of(&self, profile: &str) -> ProfileSafety {
        self.safety
            .config
            .flags
            .get(profile)
            .copied()
            .unwrap_or_default()
    }

    /// A confirmed write waits: in its undo window, or for the protected profile's name.
    pub fn write_waiting(&self) -> bool {
        !self.safety.held.is_empty() || self.safety.awaiting_name.is_some()
    }

    /// Writes waiting in their undo window (tests, the quit question).
    pub fn writes_held(&self) -> usize {
        self.safety.held.len()
    }

    /// Takes the write effects out of `fx` and lets each through the gate.
    pub(super) fn gate_writes(&mut self, fx: &mut Vec<Effect>) {
        // A write the gate released itself (its window ran out, "send now", the name typed
        // with no window) is on its way already: it passes.
        let new_write = |e: &Effect| {
            is_write(e)
                && !self.safety.sent.contains_key(&write_id(e))
                && !self.safety.passed.contains(&write_id(e))
        };
        if !fx.iter().any(new_write) {
            return;
        }
        let (writes, rest): (Vec<Effect>, Vec<Effect>) = fx.drain(..).partition(new_write);
        *fx = rest;
        for w in writes {
            let more = self.gate_one(w);
            fx.extend(more);
        }
    }

    fn gate_one(&mut self, effect: Effect) -> Vec<Effect> {
        let profile = self.workspace.profile.clone();
        match safety::check_write(
            &profile,
            self.profile_safety(),
            Asker::Dashboard { name_typed: false },
        ) {
            Err(refusal) => self.drop_write(&effect, &refusal.to_string()),
            Ok(Clearance::TypeProfileName) => {
                self.safety.awaiting_name = Some(effect);
                self.overlays
                    .push(Overlay::TypeName(TypeProfileName::new(&profile)));
                self.dirty = true;
                Vec::new()
            }
            Ok(Clearance::Send) => self.hold(effect),
        }
    }

    /// The name typed (or not) for the write awaiting it.
    pub(crate) fn profile_name_typed(&mut self, confirmed: bool) -> Vec<Effect> {
        let Some(effect) = self.safety.awaiting_name.take() else {
            return Vec::new();
        };
        if confirmed {
            self.hold(effect)
        } else {
            self.drop_write(
                &effect,
                "Not sent: the profile's name was not typed. Nothing was lost.",
            )
        }
    }

    fn drop_write(&mut self, effect: &Effect, why: &str) -> Vec<Effect> {
        self.dirty = true;
        match not_sent(effect, why) {
            Some(m) => self.dispatch_to_dialogs(&m),
            // A bulk run has no dialog left to tell: the status line says it.
            None => {
                self.show_error(format!("The {} did not run: {why}", noun(effect)));
                Vec::new()
            }
        }
    }

    fn hold(&mut self, effect: Effect) -> Vec<Effect> {
        let undo = self.safety.config.undo;
        if undo.is_zero() {
            return vec![self.release(effect, None)];
        }
        let (reserved, fx) = self.journal_held(&effect);
        self.safety.held.push(Held {
            effect,
            send_at: self.now + undo,
            reserved,
        });
        self.safety.shown_secs = None;
        self.dirty = true;
        fx
    }

    /// The write goes out now: remembered for its journal entry.
    fn release(&mut self, effect: Effect, reserved: Option<String>) -> Effect {
        if let Effect::StartJob { id, .. } = &effect {
            // Each of its rows goes to the write journal as it is answered.
            self.safety.passed.insert(*id);
            return effect;
        }
        if let Some((id, sent)) = self.sent_of(&effect) {
            self.safety.sent.insert(id, Sent { reserved, ..sent });
        }
        effect
    }

    /// Writes whose window has passed go out (and a quit waiting for a bulk run stops it when
    /// its wait runs out).
    pub(super) fn release_due(&mut self) -> Vec<Effect> {
        let now = self.now;
        let mut fx = self.quit_wait_due();
        if !self.safety.held.iter().any(|h| h.send_at <= now) {
            self.countdown_changed();
            return fx;
        }
        let (due, kept): (Vec<Held>, Vec<Held>) = std::mem::take(&mut self.safety.held)
            .into_iter()
            .partition(|h| h.send_at <= now);
        self.safety.held = kept;
        self.dirty = true;
        fx.extend(due.into_iter().map(|h| self.release(h.effect, h.reserved)));
        fx
    }

    /// Keys while writes wait (their dialog ignores keys while it sends): `u` or Esc takes
    /// them back, the dialogs keep the drafts; Ctrl-C or `q` asks whether to send or drop.
    pub(super) fn held_key(&mut self, key: &crossterm::event::KeyEvent) -> Option<Vec<Effect>> {
        use crossterm::event::{KeyCode, KeyModifiers};
        if self.safety.held.is_empty() {
            return None;
        }
        let ctrl_c =
            key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl_c || self.keymap.action(key) == Some(Action::Quit) {
            return self.quit_with_held();
        }
        self.keymap.pick(key, &[Action::Undo, Action::Back])?;
        Some(self.take_back())
    }

    /// Takes back every write in its window (nothing is sent; the dialogs keep the drafts).
    pub(super) fn take_back(&mut self) -> Vec<Effect> {
        let held = std::mem::take(&mut self.safety.held);
        if held.is_empty() {
            return Vec::new();
        }
        let mut fx = self.journal_unsent(&held, unsent::Unsent::TakenBack);
        for h in &held {
            fx.extend(self.drop_write(
                &h.effect,
                "Taken back: nothing was sent. The draft is as it was.",
            ));
        }
        self.note(format!(
            "Taken back: the {} was not sent",
            held.first().map_or("write", |h| noun(&h.effect))
        ));
        fx
    }

    /// An answer to a write that went out: its journal entry (and the quit it waited for).
    pub(super) fn write_answered(&mut self, msg: &Message) -> Vec<Effect> {
        if let Message::Job { id, event } = msg
            && !matches!(event, JobEvent::Progress { .. })
            && self.safety.quit_runs.contains(id)
        {
            // A bulk run the quit waits for ended (its rows are in the write journal).
            self.safety.quit_runs.retain(|q| q != id);
            self.safety.quit_after.retain(|q| q != id);
            return self.quit_if_answered();
        }
        let (id, answer, created_id) = match msg {
            Message::ContactCreated { id, result } => match result.as_ref() {
                Ok(c) => (
                    *id,
                    Answer {
                        replayed: c.replayed,
                        ..Answer::accepted(c.status)
                    },
                    c.record.as_ref().map(|r| r.id.clone()),
                ),
                Err(e) => (*id, Answer::failed(e), None),
            },
            Message::Rescheduled { id, result } => match result.as_ref() {
                Ok(a) => (
                    *id,
                    Answer {
                        updated_at: a.updated_at.as_ref().map(|t| t.raw().to_string()),
                        ..Answer::accepted(200)
                    },
                    None,
                ),
                Err(e) => (*id, Answer::failed(e), None),
            },
            _ => return Vec::new(),
        };
        let Some(s) = self.safety.sent.remove(&id) else {
            return Vec::new();
        };
        let mut fx = Vec::new();
        // Journalled when the request reached the service (or may have), and always when the
        // gate journaled its intent (answered, it is no longer in doubt).
        // A write held first has an entry already: what came of it replaces that (not sent
        // when the gate refused it at the last moment).
        let reached = answer.ok || answer.status.is_some() || answer.outcome_unknown;
        if let (Some(path), true) = (
            self.safety.config.journal.clone(),
            reached || s.ticket.is_some() || s.reserved.is_some(),
        ) {
            let id = s.ticket.clone().or(s.reserved.clone());
            let target = s.target.clone().or(created_id);
            let mut entry = s.record(id, answer);
            entry.target = target;
            fx.push(Effect::RecordWrite {
                path,
                entry: Box::new(entry),
            });
        }
        self.safety.quit_after.retain(|q| *q != id);
        fx.extend(self.quit_if_answered());
        fx
    }

    /// Quits when "send now" was chosen and everything it sent is answered.
    fn quit_if_answered(&mut self) -> Vec<Effect> {
        if self.safety.quit_armed && self.safety.quit_after.is_empty() {
            self.safety.quit_by = None;
            return self.quit();
        }
        Vec::new()
    }

    /// The quit's wait for bulk runs ran out: they are stopped (the rows under way finish
    /// and are recorded; a re-run sends the rest), and after the grace it quits all the same.
    fn quit_wait_due(&mut self) -> Vec<Effect> {
        if self.safety.quit_by.is_none_or(|by| by > self.now) {
            return Vec::new();
        }
        if !self.safety.quit_stopping {
            self.safety.quit_stopping = true;
            self.safety.quit_by = Some(self.now + QUIT_STOP_GRACE);
            self.note(format!(
                "The plan runs longer than {} s: stopping it (the rows under way finish and are recorded; a re-run sends the rest), then crmdash quits",
                QUIT_WAIT.as_secs()
            ));
            return self
                .safety
                .quit_runs
                .iter()
                .map(|id| Effect::CancelJob(*id))
                .collect();
        }
        tracing::warn!("a stopped plan did not report in time; quitting all the same");
        self.safety.quit_by = None;
        self.quit()
    }

    /// Quitting while a plan or an import sends asks first (`None`: none sends): yes stops
    /// it as `x` in `:jobs` does and quits once it has ended; no keeps it running. Its
    /// journal makes a re-run send only the rows not done, and the question says so.
    pub(super) fn quit_with_runs(&mut self) -> Option<Vec<Effect>> {
        let runs: Vec<&crate::app::jobs::JobEntry> = self
            .jobs
            .list
            .iter()
            .filter(|j| j.running() && j.sends)
            .collect();
        let first = runs.first()?;
        if self
            .overlays
            .iter()
            .any(|o| matches!(o, Overlay::ConfirmQuit(c) if !c.stop.is_empty()))
        {
            return Some(Vec::new());
        }
        let (what, again) = match first.kind {
            crate::app::jobs::JobKind::Plan => ("A plan", ":plan"),
            _ => ("An import", ":import"),
        };
        let done = match first.counted {
            Some((done, Some(total))) => format!(" ({done} of {total} done)"),
            Some((done, None)) => format!(" ({done} done)"),
            None => String::new(),
        };
        let more = match runs.len() {
            1 => String::new(),
            n => format!(" and {} more", n - 1),
        };
        let reason = format!(
            "{what} is sending{done}{more}. Stopping it lets the rows under way finish and be \
             recorded; {again} with the same file later sends only the rest."
        );
        let stop = runs.iter().map(|j| j.id).collect();
        self.overlays.push(Overlay::ConfirmQuit(
            crate::app::dialogs::confirm::ConfirmQuit {
                reason,
                question: if runs.len() == 1 {
                    "Quit and stop it?".into()
                } else {
                    "Quit and stop them?".into()
                },
                stop,
            },
        ));
        self.dirty = true;
        Some(Vec::new())
    }

    /// Yes to "quit and stop it?": the runs are stopped (no new request; those under way
    /// finish and are recorded) and the app quits when they have ended, or after
    /// [`QUIT_STOP_GRACE`] all the same.
    pub(crate) fn stop_runs_and_quit(&mut self, ids: Vec<RequestId>) -> Vec<Effect> {
        let ids: Vec<RequestId> = ids
            .into_iter()
            .filter(|id| self.jobs.get(*id).is_some_and(|j| j.running()))
            .collect();
        if ids.is_empty() {
            return self.quit();
        }
        self.safety.quit_runs.extend(&ids);
        self.safety.quit_after.extend(&ids);
        self.safety.quit_armed = true;
        self.safety.quit_stopping = true;
        self.safety.quit_by = Some(self.now + QUIT_STOP_GRACE);
        self.note(
            "Stopping: the rows under way finish and are recorded, then crmdash quits (a re-run sends the rest)",
        );
        ids.into_iter().map(Effect::CancelJob).collect()
    }

    /// Quitting while writes wait asks: send now, or drop them. `None`: nothing waits.
    pub(super) fn quit_with_held(&mut self) -> Option<Vec<Effect>> {
        if self.safety.held.is_empty() {
            return None;
        }
        if !self
            .overlays
            .iter()
            .any(|o| matches!(o, Overlay::PendingQuit(_)))
        {
            let what = noun(&self.safety.held[0].effect);
            self.overlays
                .push(Overlay::PendingQuit(PendingWriteQuit::new(what)));
            self.dirty = true;
        }
        Some(Vec::new())
    }

    /// The answer to the quit question: `send` sends the held writes now and quits once they
    /// are answered; else they are dropped (nothing sent) and the app quits.
    pub(crate) fn quit_with_writes(&mut self, send: bool) -> Vec<Effect> {
        if !send {
            // `quit` journals them as dropped.
            return self.quit();
        }
        let held = std::mem::take(&mut self.safety.held);
        let mut fx = Vec::new();
        for h in held {
            let e = self.release(h.effect, h.reserved);
            match &e {
                Effect::CreateContact { id, .. } | Effect::Reschedule { id, .. } => {
                    self.safety.quit_after.push(*id)
                }
                // A bulk run ends with its job's last report.
                Effect::StartJob { id, .. } => {
                    self.safety.quit_after.push(*id);
                    self.safety.quit_runs.push(*id);
                }
                _ => {}
            }
            fx.push(e);
        }
        self.safety.quit_armed = true;
        if self.safety.quit_runs.is_empty() {
            self.note("Sending now; crmdash quits once the service answers");
        } else {
            self.safety.quit_by = Some(self.now + QUIT_WAIT);
            self.note(format!(
                "Sending now; crmdash quits when the plan has run (at most {} s, then it stops the plan)",
                QUIT_WAIT.as_secs()
            ));
        }
        fx
    }

    /// The countdown for the status line: `create sends in 4 s · u take back`.
    pub fn undo_countdown(&self) -> Option<String> {
        let first = self.safety.held.iter().min_by_key(|h| h.send_at)?;
        let secs = self.secs_left(first.send_at);
        Some(format!(
            "{} sends in {secs} s · {} take back",
            noun(&first.effect),
            self.keymap.first_key(Action::Undo)
        ))
    }

    fn secs_left(&self, at: Instant) -> u64 {
        let left = at.saturating_duration_since(self.now);
        left.as_millis().div_ceil(1000) as u64
    }

    /// Redraws when the countdown's whole seconds change (once a second, not more).
    fn countdown_changed(&mut self) {
        let secs = self
            .safety
            .held
            .iter()
            .map(|h| h.send_at)
            .min()
            .map(|at| self.secs_left(at));
        if secs != self.safety.shown_secs {
            self.safety.shown_secs = secs;
            self.dirty = true;
        }
    }

    /// When the countdown next changes (its next whole second), a write is due, or the
    /// quit's wait for a bulk run runs out.
    pub fn write_deadline(&self) -> Option<Instant> {
        let countdown = self
            .safety
            .held
            .iter()
            .map(|h| h.send_at)
            .min()
            .map(|first| {
                let secs = self.secs_left(first);
                first - Duration::from_secs(secs.saturating_sub(1))
            });
        match (countdown, self.safety.quit_by) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}
