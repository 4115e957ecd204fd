//! Long work as jobs: every piece of work that outlives a keypress (an export, the pipeline
//! and timeline readings, a sync, a `*` over every page, a selection's records for an
//! action, a plan run, an import) is one `JobEntry` here, with its progress, a cancel and
//! its outcome. `:jobs` (`J`) lists them, running first; the status line counts the running.
//!
//! The app keeps the list; the runtime (`runtime::jobs`) runs the work. A kind of work the
//! runtime runs through its job runner is a [`JobSpec`] variant (data, sent as
//! `Effect::StartJob`) and one file in `runtime/jobs/`; its progress and result come back as
//! `Message::Job` with the job's id. The export dialog follows its export's job; the sync's
//! job is translated into the mirror's status line (`App::on_job`). The pipeline's and
//! timeline's readings report through their own messages (their views own them), which
//! `App::jobs_heard` translates. Every job but the readings is stopped with
//! `Effect::CancelJob` (`x` in `:jobs`, Esc in the export dialog), the runner's one cancel.

use std::sync::Arc;

use chrono::{DateTime, Utc};

use crate::app::effects::{ExportFormat, RequestId};
use crate::app::selection::{IdBatch, Selection};
use crate::app::table::record::Record;
use crate::app::table::spec::QuerySpec;
use crate::resource::Resource;

/// How many finished jobs `:jobs` keeps.
pub const FINISHED_KEPT: usize = 30;

/// What kind of work a job is (its name in `:jobs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobKind {
    Export,
    Pipeline,
    Timeline,
    Sync,
    /// `*` or `:select` / `:unselect` over every page of a query.
    Select,
    /// A selection's records, read for an action (copy, export).
    Selection,
    /// A reschedule plan run (`:plan`).
    Plan,
    /// An import started from the dashboard.
    Import,
}

impl JobKind {
    pub fn name(self) -> &'static str {
        match self {
            JobKind::Export => "export",
            JobKind::Pipeline => "pipeline",
            JobKind::Timeline => "timeline",
            JobKind::Sync => "sync",
            JobKind::Select => "select",
            JobKind::Selection => "selection",
            JobKind::Plan => "plan",
            JobKind::Import => "import",
        }
    }
}

/// Work the runtime's job runner does (`Effect::StartJob`); one file in `runtime/jobs/` each.
#[derive(Debug, Clone, PartialEq)]
pub enum JobSpec {
    /// Every id matching `spec` (all pages): from the mirror when its copy is complete, else
    /// page by page from the service. Answers `JobOutput::Ids`.
    MatchingIds { spec: QuerySpec },
    /// The records of `ids` (the tab's filter first, then the whole resource, until every
    /// one is found), in the tab's order. Answers `JobOutput::Records`; with `export`, the
    /// records are written there instead (the CLI's writers, as `e` does) and it answers
    /// `JobOutput::Exported`.
    SelectionRecords {
        spec: QuerySpec,
        ids: Arc<Selection>,
        export: Option<ExportTo>,
    },
    /// A reschedule plan's checked rows sent through the CLI's plan runner
    /// (`reschedule::plan::run`), its run journal and logs. Answers `JobOutput::Plan`; a
    /// cancel stops new requests and lets those under way finish (the report says so).
    Plan(Box<crate::app::plan::PlanJob>),
    /// A tab's export (`e`): every page of `spec` (from page 1) written to `to` with the
    /// CLI's writers, through a staging file put in place at the end (never replacing a file
    /// unless `to.overwrite`). Offline, the pages come from the local mirror. Answers
    /// `JobOutput::Exported`; a cancel leaves no file behind.
    Export { spec: QuerySpec, to: ExportTo },
    /// A sync of the active profile's local mirror (`:sync`, the periodic one). Progress is
    /// the resource being read; answers `JobOutput::Synced`. A cancel stops it between
    /// writes: what it committed stays, and the next sync goes on from there.
    Sync,
    /// `:import`'s preview: the CLI's dry run of the file (checked, emails looked up, near
    /// duplicates found; nothing created). Answers `JobOutput::ImportPreview`.
    ImportPreview(Box<crate::app::import::ImportJob>),
    /// An import run through the CLI's engine (governor, stable keys, write journal).
    /// Answers `JobOutput::Import`; a cancel stops new requests and lets those under way
    /// finish (the report says so).
    Import(Box<crate::app::import::ImportJob>),
}

/// Where a selection's export goes.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportTo {
    pub path: std::path::PathBuf,
    pub format: ExportFormat,
    pub overwrite: bool,
}

/// What a finished job hands back.
#[derive(Debug, Clone)]
pub enum JobOutput {
    Ids(Arc<IdBatch>),
    /// The records found, and how many of the asked ids were not.
    Records {
        records: Arc<Vec<Record>>,
        missing: usize,
    },
    Exported {
        records: usize,
        missing: usize,
        path: std::path::PathBuf,
    },
    /// A plan run's per-row report.
    Plan(Arc<crate::app::plan::PlanReport>),
    /// A sync's one-line summary (`12 changes in 3 requests`).
    Synced(String),
    /// An import's preview (its dialog opens).
    ImportPreview(Arc<crate::app::import::ImportPreview>),
    /// An import run's per-row report.
    Import(Arc<crate::app::import::ImportReport>),
}

/// A finished job's per-row report, opened from `:jobs` (Enter).
#[derive(Debug, Clone)]
pub enum JobReport {
    Plan(Arc<crate::app::plan::PlanReport>),
    Import(Arc<crate::app::import::ImportReport>),
}

/// A job's report (`Message::Job`).
#[derive(Debug, Clone)]
pub enum JobEvent {
    /// `done` of `total` (when known) `unit`s so far; `records`: the records written so
    /// far when the unit is something else (an export counts pages).
    Progress {
        done: u64,
        total: Option<u64>,
        unit: &'static str,
        records: Option<u64>,
    },
    Done(JobOutput),
    Failed(String),
    Cancelled,
}

/// What the app does with a job's result.
#[derive(Debug, Clone, PartialEq)]
pub enum JobThen {
    /// Nothing beyond the list (kinds that report elsewhere).
    Report,
    /// Mark (or unmark) the ids on `kind`'s tab.
    Mark { kind: Resource, unmark: bool },
    /// Use the selection's records.
    Use(SelectionUse),
}

/// What to do with a selection's records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SelectionUse {
    CopyJson,
    CopyEmails,
    CopyIds,
    Export,
    /// Run the user action at this position of `App::user_actions` on the records.
    Action(usize),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobState {
    Running,
    Done(String),
    Failed(String),
    Cancelled,
}

/// One job in `:jobs`.
#[derive(Debug, Clone)]
pub struct JobEntry {
    pub id: RequestId,
    pub kind: JobKind,
    /// In the user's words: `select contacts status=open`.
    pub title: String,
    pub started: DateTime<Utc>,
    pub progress: Option<String>,
    pub state: JobState,
    pub then: JobThen,
    /// Whether `:jobs` can stop it.
    pub cancellable: bool,
    /// A per-row report `:jobs` opens (Enter): a plan run's, an import's.
    pub report: Option<JobReport>,
    /// It sends writes (a plan run, an import run): quitting asks before stopping it.
    pub sends: bool,
    /// The last progress: done, and of how many (when known).
    pub counted: Option<(u64, Option<u64>)>,
}

impl JobEntry {
    pub fn running(&self) -> bool {
        self.state == JobState::Running
    }

    /// `done`, `failed: …`: the outcome as `:jobs` shows it.
    pub fn outcome(&self) -> String {
        match &self.state {
            JobState::Running => self.progress.clone().unwrap_or_else(|| "running".into()),
            JobState::Done(s) => s.clone(),
            JobState::Failed(e) => format!("failed: {e}"),
            JobState::Cancelled => "stopped".into(),
        }
    }
}

/// Every job of this session, newest last.
#[derive(Debug, Clone, Default)]
pub struct Jobs {
    pub list: Vec<JobEntry>,
    /// The sync under way (`JobSpec::Sync`): its reports drive the status line too.
    pub sync: Option<RequestId>,
}

impl Jobs {
    pub fn running(&self) -> usize {
        self.list.iter().filter(|j| j.running()).count()
    }

    pub fn get_mut(&mut self, id: RequestId) -> Option<&mut JobEntry> {
        self.list.iter_mut().rev().find(|j| j.id == id)
    }

    pub fn get(&self, id: RequestId) -> Option<&JobEntry> {
        self.list.iter().rev().find(|j| j.id == id)
    }

    /// A job started now.
    pub fn add(&mut self, entry: JobEntry) {
        self.list.push(entry);
        self.trim();
    }

    /// Forgets the oldest finished jobs past [`FINISHED_KEPT`].
    fn trim(&mut self) {
        let finished = self.list.iter().filter(|j| !j.running()).count();
        for _ in FINISHED_KEPT..finished {
            if let Some(i) = self.list.iter().position(|j| !j.running()) {
                self.list.remove(i);
            }
        }
    }

    /// Progress in words: `1,200/5,000 contacts`.
    pub fn progress(&mut self, id: RequestId, done: u64, total: Option<u64>, unit: &str) -> bool {
        let Some(j) = self.get_mut(id).filter(|j| j.running()) else {
            return false;
        };
        let text = match total {
            Some(t) => format!("{done}/{t} {unit}"),
            None => format!("{done} {unit}"),
        };
        let changed = j.progress.as_deref() != Some(text.as_str());
        j.progress = Some(text);
        j.counted = Some((done, total));
        changed
    }

    /// The job ended; false when it was not running (a late or repeated report).
    pub fn finish(&mut self, id: RequestId, state: JobState) -> bool {
        match self.get_mut(id).filter(|j| j.running()) {
            Some(j) => {
                j.state = state;
                self.trim();
                true
            }
            None => false,
        }
    }

    /// Running first (oldest first), then finished (newest first): the `:jobs` order.
    pub fn in_order(&self) -> Vec<&JobEntry> {
        let mut v: Vec<&JobEntry> = self.list.iter().filter(|j| j.running()).collect();
        v.extend(self.list.iter().rev().filter(|j| !j.running()));
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: u64) -> JobEntry {
        JobEntry {
            id: RequestId(id),
            kind: JobKind::Select,
            title: format!("job {id}"),
            started: Utc::now(),
            progress: None,
            state: JobState::Running,
            then: JobThen::Report,
            cancellable: true,
            report: None,
            sends: false,
            counted: None,
        }
    }

    #[test]
    fn lists_running_first_and_keeps_a_bounded_history() {
        let mut jobs = Jobs::default();
        for i in 0..40 {
            jobs.add(entry(i));
            if i != 5 {
                assert!(jobs.finish(RequestId(i), JobState::Done("ok".into())));
            }
        }
        assert!(
            !jobs.finish(RequestId(1), JobState::Cancelled),
            "not running"
        );
        assert_eq!(jobs.running(), 1);
        let order = jobs.in_order();
        assert_eq!(order[0].id, RequestId(5));
        assert_eq!(order[1].id, RequestId(39));
        assert_eq!(order.len(), FINISHED_KEPT + 1);
        assert!(jobs.progress(RequestId(5), 3, Some(10), "pages"));
        assert!(
            !jobs.progress(RequestId(5), 3, Some(10), "pages"),
            "same words"
        );
        assert_eq!(jobs.get(RequestId(5)).unwrap().outcome(), "3/10 pages");
    }
}
