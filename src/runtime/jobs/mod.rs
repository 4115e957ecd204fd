//! The one place long work runs. A job is started by `Effect::StartJob { id, job }` with a
//! [`JobSpec`] (data the app chose), runs as a task of its own with a cancel token, reports
//! `Message::Job { id, event }` (progress as it goes, then exactly one of done, failed or
//! cancelled) and is stopped by `Effect::CancelJob(id)` or at quit. Every kind runs here:
//! a tab's export ([`export`]), the sync ([`sync`]), `*` and `:select`, a selection's
//! records, a plan run; the app translates their reports for whoever follows them (the
//! export dialog, the mirror's status line).
//!
//! The pipeline's and timeline's readings run here too (`Jobs::spawn`), reporting through
//! their own messages (their views own them). Work that must not be dropped half way
//! ([`Work::stops_itself`]: a plan run stops sending and reports what it did, an export
//! removes its staging file, a sync lets its writer commit) watches `cx.cancel` itself; an
//! error it ends with after a cancel is reported as cancelled.
//!
//! Adding a kind of long work:
//! 1. a `JobSpec` variant in `app::jobs` (what to do, as data), its `JobKind`, and its title
//!    in `App::jobs_track` (`app::jobs_update`);
//! 2. one file here with a type implementing [`Work`] (how: pages from `cx.pages`, progress
//!    through `cx.progress`, a `JobOutput` at the end; the runner handles cancelling);
//! 3. its arm in [`work_of`].

mod export;
mod import;
mod matching_ids;
pub(super) mod plan;
mod selection_records;
mod sync;

use std::collections::HashMap;
use std::sync::Arc;

use futures::future::BoxFuture;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

use super::pipeline::Pages;
use crate::app::jobs::{JobEvent, JobOutput, JobSpec};
use crate::app::message::{CollectEvent, SummaryEvent};
use crate::app::{Message, RequestId};

/// How a job says how far it got: `done` of `total` `unit`s (`pages`, `contacts`).
#[derive(Clone)]
pub(super) struct Progress {
    id: RequestId,
    tx: UnboundedSender<Message>,
}

impl Progress {
    pub fn report(&self, done: u64, total: Option<u64>, unit: &'static str) {
        self.send(done, total, unit, None);
    }

    /// `page` of `last_page` pages, `records` records written so far (an export).
    pub fn pages(&self, page: u32, last_page: Option<u32>, records: usize) {
        self.send(
            u64::from(page),
            last_page.map(u64::from),
            "pages",
            Some(records as u64),
        );
    }

    fn send(&self, done: u64, total: Option<u64>, unit: &'static str, records: Option<u64>) {
        let _ = self.tx.send(Message::Job {
            id: self.id,
            event: JobEvent::Progress {
                done,
                total,
                unit,
                records,
            },
        });
    }
}

/// What a running job may use.
pub(super) struct JobCx {
    /// Where pages come from: the mirror's complete copy, else the service.
    pub pages: Pages,
    pub progress: Progress,
    /// Fired by a cancel: work that [`Work::stops_itself`] watches it.
    pub cancel: CancellationToken,
    /// The service cannot be reached (why, in words): an export reads the mirror instead.
    pub offline: Option<String>,
    /// The active profile's mirror, for a sync (`None`: no mirror).
    pub mirror: Option<super::mirror::SyncCx>,
}

/// What the engine hands a job when it starts, beside its spec.
pub(super) struct JobEnv {
    pub pages: Pages,
    pub offline: Option<String>,
    pub mirror: Option<super::mirror::SyncCx>,
}

/// One kind of long work. `run` does it all; dropping the future (a cancel, the quit) must
/// leave nothing half done behind (a temporary file is removed by its owner's drop or the
/// job's end).
pub(super) trait Work: Send + 'static {
    fn run(self: Box<Self>, cx: JobCx) -> BoxFuture<'static, Result<JobOutput, String>>;

    /// Work that must not be dropped half way (writes under way would be left in doubt):
    /// it watches `cx.cancel` itself, stops starting new work, finishes what is under way
    /// and reports it as its result.
    fn stops_itself(&self) -> bool {
        false
    }
}

fn work_of(spec: JobSpec) -> Box<dyn Work> {
    match spec {
        JobSpec::MatchingIds { spec } => Box::new(matching_ids::MatchingIds { spec }),
        JobSpec::SelectionRecords { spec, ids, export } => {
            Box::new(selection_records::SelectionRecords { spec, ids, export })
        }
        JobSpec::Plan(job) => Box::new(plan::PlanRun { job: *job }),
        JobSpec::Export { spec, to } => Box::new(export::TabExport { spec, to }),
        JobSpec::Sync => Box::new(sync::MirrorSync),
        JobSpec::ImportPreview(job) => Box::new(import::ImportPreviewWork { job: *job }),
        JobSpec::Import(job) => Box::new(import::ImportRun { job: *job }),
    }
}

/// The running jobs, by id.
#[derive(Default)]
pub(super) struct Jobs {
    /// Each running job's cancel, and whether it reports its end when stopped (the
    /// runner's jobs do; a stopped reading sends nothing more).
    running: HashMap<RequestId, (CancellationToken, bool)>,
}

impl Jobs {
    pub fn start(
        &mut self,
        id: RequestId,
        spec: JobSpec,
        env: JobEnv,
        tx: &UnboundedSender<Message>,
    ) {
        let cancel = CancellationToken::new();
        self.running.insert(id, (cancel.clone(), true));
        let tx = tx.clone();
        let cx = JobCx {
            pages: env.pages,
            progress: Progress { id, tx: tx.clone() },
            cancel: cancel.clone(),
            offline: env.offline,
            mirror: env.mirror,
        };
        let work = work_of(spec);
        let ended = |r: Result<JobOutput, String>| match r {
            Ok(out) => JobEvent::Done(out),
            Err(e) => JobEvent::Failed(e),
        };
        tokio::spawn(async move {
            let event = if work.stops_itself() {
                match work.run(cx).await {
                    // It stopped because it was asked to: no failure.
                    Err(_) if cancel.is_cancelled() => JobEvent::Cancelled,
                    r => ended(r),
                }
            } else {
                tokio::select! {
                    biased;
                    _ = cancel.cancelled() => JobEvent::Cancelled,
                    r = work.run(cx) => ended(r),
                }
            };
            let _ = tx.send(Message::Job { id, event });
        });
    }

    /// Long work that reports through messages of its own (the pipeline's and the
    /// timeline's readings: `Message::Summary`, `Message::Collected`): run and stopped here
    /// like the others. A stopped one sends nothing more (the app marks it cancelled).
    pub fn spawn(&mut self, id: RequestId, task: impl Future<Output = ()> + Send + 'static) {
        let cancel = CancellationToken::new();
        self.running.insert(id, (cancel.clone(), false));
        tokio::spawn(async move {
            tokio::select! {
                biased;
                _ = cancel.cancelled() => {}
                _ = task => {}
            }
        });
    }

    pub fn cancel(&mut self, id: RequestId) {
        match self.running.get(&id) {
            // Forgotten when its `Cancelled` arrives (`settle` waits for it).
            Some((c, true)) => c.cancel(),
            Some((c, false)) => {
                c.cancel();
                self.running.remove(&id);
            }
            None => {}
        }
    }

    /// Forgets a job whose last message this is.
    pub fn finished(&mut self, msg: &Message) {
        let ended = match msg {
            Message::Job { id, event } => {
                (!matches!(event, JobEvent::Progress { .. })).then_some(id)
            }
            Message::Summary { id, event } => {
                (!matches!(event, SummaryEvent::Progress { .. })).then_some(id)
            }
            Message::Collected { id, event } => {
                (!matches!(event, CollectEvent::Progress { .. })).then_some(id)
            }
            Message::PlanRead { id, .. } => Some(id),
            _ => None,
        };
        if let Some(id) = ended {
            self.running.remove(id);
        }
    }

    pub fn busy(&self) -> bool {
        !self.running.is_empty()
    }

    pub fn stop_all(&mut self) {
        for (_, (c, _)) in self.running.drain() {
            c.cancel();
        }
    }
}

/// A shared, read-only selection for a job.
pub(super) type Ids = Arc<crate::app::selection::Selection>;
