//! `:plan PATH [shift=+1d] [end=30m]`: the CLI's reschedule plan from the dashboard. The
//! runtime reads and checks the file with the CLI's parser (`reschedule::plan`) and answers
//! `Message::PlanRead` with the preview; the plan dialog shows it (bad rows named with their
//! line; nothing runs while one is bad); running it passes the write gate (a read-only
//! profile refuses, a protected one asks its name, the undo window holds it) and starts a
//! `JobSpec::Plan` job whose per-row report `:jobs` opens.

use crate::app::App;
use crate::app::dialogs::Overlay;
use crate::app::dialogs::plan::PlanView;
use crate::app::effects::Effect;
use crate::reschedule::plan::preview::PreviewRow;
use crate::reschedule::plan::run::Outcome;
use crate::reschedule::plan::{BadRow, PlanRow};
use std::path::PathBuf;

/// `shift=` and `end=` of `:plan`, as the CLI's `--shift` and `--end`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlanWords {
    pub shift: Option<String>,
    pub end: Option<String>,
}

impl PlanWords {
    /// `shift=+1d end=30m` (either, both or none; each once).
    pub fn parse(args: &[String]) -> Result<PlanWords, String> {
        let mut w = PlanWords::default();
        for a in args {
            let (key, value) = a.split_once('=').ok_or_else(|| {
                format!("'{a}' is not KEY=VALUE: :plan takes shift=+1d and end=30m after the file")
            })?;
            let slot = match key.to_ascii_lowercase().as_str() {
                "shift" => &mut w.shift,
                "end" => &mut w.end,
                other => {
                    return Err(format!(
                        ":plan takes shift= (an offset: +1d, -2h) and end= (a length or time), not {other}="
                    ));
                }
            };
            if value.trim().is_empty() {
                return Err(format!("{key}= needs a value"));
            }
            if slot.replace(value.trim().to_string()).is_some() {
                return Err(format!("{key}= is given twice"));
            }
        }
        Ok(w)
    }

    /// ` shift=+1d end=30m`, for titles.
    pub fn describe(&self) -> String {
        let mut s = String::new();
        if let Some(v) = &self.shift {
            s.push_str(&format!(" shift={v}"));
        }
        if let Some(v) = &self.end {
            s.push_str(&format!(" end={v}"));
        }
        s
    }
}

/// A plan read and checked by the runtime (`Message::PlanRead`).
#[derive(Debug, Clone)]
pub struct PlanLoaded {
    pub path: PathBuf,
    pub words: PlanWords,
    pub rows: Vec<PlanRow>,
    pub preview: Vec<PreviewRow>,
    pub bad: Vec<BadRow>,
    /// The zone the times are shown in (`Europe/Berlin`).
    pub zone: String,
    /// The run journal the preview read (and the run writes).
    pub journal: PathBuf,
}

/// What a plan job sends (`JobSpec::Plan`).
#[derive(Debug, Clone, PartialEq)]
pub struct PlanJob {
    pub path: PathBuf,
    pub rows: Vec<PlanRow>,
    /// The run journal (what is done, what is in doubt).
    pub journal: PathBuf,
    /// The reschedule log (old times of later previews, the dialog's completion).
    pub log: Option<PathBuf>,
    /// The write journal (`:log`).
    pub write_journal: Option<PathBuf>,
    pub profile: String,
    /// The profile's safety flags: the gate each row passes in the runtime.
    pub flags: crate::safety::ProfileSafety,
}

/// One row of a plan run's report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanRowReport {
    pub line: u64,
    pub id: String,
    pub outcome: Outcome,
    /// Why, in words (empty for a plain success).
    pub detail: String,
}

/// A plan run's report: every row's outcome, in file order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlanReport {
    pub path: PathBuf,
    pub rows: Vec<PlanRowReport>,
    /// Stopped from `:jobs`: rows not sent yet were not sent.
    pub stopped: bool,
    /// Why the run stopped by itself (the token refused, too many failures in a row).
    pub halted: Option<String>,
    /// How many times a rate limit slowed it down.
    pub rate_limited: u64,
}

impl PlanReport {
    pub fn count(&self, o: Outcome) -> usize {
        self.rows.iter().filter(|r| r.outcome == o).count()
    }

    /// `18 moved, 2 done before, 1 failed` (then `stopped` or why it halted).
    pub fn summary(&self) -> String {
        let mut parts = vec![format!("{} moved", self.count(Outcome::Moved))];
        for (o, words) in [
            (Outcome::AlreadyDone, "done before"),
            (Outcome::Failed, "failed"),
            (Outcome::InDoubt, "in doubt"),
            (Outcome::Taken, "sent by another run"),
            (Outcome::NotSent, "not sent"),
        ] {
            let n = self.count(o);
            if n > 0 {
                parts.push(format!("{n} {words}"));
            }
        }
        let mut s = parts.join(", ");
        if self.stopped {
            s.push_str("; stopped (run :plan again to send the rest)");
        } else if let Some(why) = &self.halted {
            s.push_str(&format!("; halted: {why}"));
        }
        s
    }
}

impl App {
    /// `:plan PATH ...`: the runtime reads and checks it (`Message::PlanRead`).
    pub(crate) fn read_plan(&mut self, path: PathBuf, words: PlanWords) -> Vec<Effect> {
        let id = self.new_id();
        self.note(format!("Reading the plan {}…", path.display()));
        vec![Effect::ReadPlan { id, path, words }]
    }

    /// The plan read: its preview (or why it could not be read).
    pub(crate) fn plan_read(&mut self, result: Result<Box<PlanLoaded>, String>) -> Vec<Effect> {
        match result {
            Ok(loaded) => {
                self.status.note = None;
                let base = PlanJob {
                    path: PathBuf::new(),
                    rows: Vec::new(),
                    journal: PathBuf::new(),
                    log: self.forms.config.log_path.clone(),
                    write_journal: self.safety.config.journal.clone(),
                    profile: self.workspace.profile.clone(),
                    flags: self.profile_safety(),
                };
                let view = PlanView::preview(*loaded, base);
                self.overlays.push(Overlay::Plan(Box::new(view)));
                self.dirty = true;
            }
            Err(e) => self.show_error(e),
        }
        Vec::new()
    }

    /// Enter in `:jobs`: a plan run's per-row report.
    pub(crate) fn open_job_report(&mut self, at: usize) -> Vec<Effect> {
        let Some(j) = self.jobs.in_order().get(at).map(|j| (*j).clone()) else {
            return Vec::new();
        };
        match j.report.clone() {
            Some(crate::app::jobs::JobReport::Plan(report)) => {
                let view = PlanView::report(report, j.id, j.running());
                self.overlays.push(Overlay::Plan(Box::new(view)));
                self.dirty = true;
            }
            Some(crate::app::jobs::JobReport::Import(report)) => {
                let view = crate::app::dialogs::import::ImportView::report(&report, j.id);
                self.overlays.push(Overlay::Import(Box::new(view)));
                self.dirty = true;
            }
            // The outcome whole, wrapped: the list cuts it to a line.
            None => {
                let state = if j.running() { "Running" } else { "Ended" };
                let text = format!(
                    "{}\n\nStarted {}. {state}: {}",
                    j.title,
                    self.config.zone.format_labelled(j.started),
                    j.outcome()
                );
                self.overlays
                    .push(Overlay::Notice(crate::app::dialogs::notice::Notice {
                        title: format!("Job · {}", j.kind.name()),
                        text,
                        copy: None,
                    }));
                self.dirty = true;
            }
        }
        Vec::new()
    }
}
