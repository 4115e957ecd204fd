//! The one place long work runs. A job is started by `Effect::StartJob { id, job }` with a
//! [`JobSpec`] (data the app chose), runs as a task of its own with a cancel token, reports
//! `Message::Job { id, event }` (progress as it goes, then exactly one of done, failed or
//! cancelled) and is stopped by `Effect::CancelJob(id)` or at quit.
//!
//! The pipeline's and timeline's readings run here too (`Jobs::spawn`), reporting through
//! their own messages; a tab's export still runs in `requests` (its dialog owns its
//! messages) and the sync in the mirror's runtime (its messages drive the status line).
//! `CancelJob` stops those too: the engine routes the sync's id and an export's id there.
//! Work that writes ([`Work::stops_itself`], a plan run) is not dropped on a cancel: it
//! stops sending and reports what it did.
//!
//! Adding a kind of long work:
//! 1. a `JobSpec` variant in `app::jobs` (what to do, as data) and its `JobKind`;
//! 2. one file here with a type implementing [`Work`] (how: pages from `cx.pages`, progress
//!    through `cx.progress`, a `JobOutput` at the end; the runner handles cancelling);
//! 3. its arm in [`work_of`].

mod import;
mod matching_ids;
pub(super) mod plan;
mod selection_records;

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
        let _ = self.tx.send(Message::Job {
            id: self.id,
            event: JobEvent::Progress { done, total, unit },
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
        pages: Pages,
        tx: &UnboundedSender<Message>,
    ) {
        let cancel = CancellationToken::new();
        self.running.insert(id, (cancel.clone(), true));
        let tx = tx.clone();
        let cx = JobCx {
            pages,
            progress: Progress { id, tx: tx.clone() },
            cancel: cancel.clone(),
        };
        let work = work_of(spec);
        let ended = |r: Result<JobOutput, String>| match r {
            Ok(out) => JobEvent::Done(out),
            Err(e) => JobEvent::Failed(e),
        };
        tokio::spawn(async move {
            let event = if work.stops_itself() {
                ended(work.run(cx).await)
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
