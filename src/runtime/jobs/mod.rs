//! The one place long work runs. A job is started by `Effect::StartJob { id, job }` with a
//! [`JobSpec`] (data the app chose), runs as a task of its own with a cancel token, reports
//! `Message::Job { id, event }` (progress as it goes, then exactly one of done, failed or
//! cancelled) and is stopped by `Effect::CancelJob(id)` or at quit.
//!
//! Adding a kind of long work:
//! 1. a `JobSpec` variant in `app::jobs` (what to do, as data) and its `JobKind`;
//! 2. one file here with a type implementing [`Work`] (how: pages from `cx.pages`, progress
//!    through `cx.progress`, a `JobOutput` at the end; the runner handles cancelling);
//! 3. its arm in [`work_of`].

mod matching_ids;
mod selection_records;

use std::collections::HashMap;
use std::sync::Arc;

use futures::future::BoxFuture;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

use super::pipeline::Pages;
use crate::app::jobs::{JobEvent, JobOutput, JobSpec};
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
}

/// One kind of long work. `run` does it all; dropping the future (a cancel, the quit) must
/// leave nothing half done behind (a temporary file is removed by its owner's drop or the
/// job's end).
pub(super) trait Work: Send + 'static {
    fn run(self: Box<Self>, cx: JobCx) -> BoxFuture<'static, Result<JobOutput, String>>;
}

fn work_of(spec: JobSpec) -> Box<dyn Work> {
    match spec {
        JobSpec::MatchingIds { spec } => Box::new(matching_ids::MatchingIds { spec }),
        JobSpec::SelectionRecords { spec, ids, export } => {
            Box::new(selection_records::SelectionRecords { spec, ids, export })
        }
    }
}

/// The running jobs, by id.
#[derive(Default)]
pub(super) struct Jobs {
    running: HashMap<RequestId, CancellationToken>,
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
        self.running.insert(id, cancel.clone());
        let tx = tx.clone();
        let cx = JobCx {
            pages,
            progress: Progress { id, tx: tx.clone() },
        };
        let work = work_of(spec);
        tokio::spawn(async move {
            let event = tokio::select! {
                biased;
                _ = cancel.cancelled() => JobEvent::Cancelled,
                r = work.run(cx) => match r {
                    Ok(out) => JobEvent::Done(out),
                    Err(e) => JobEvent::Failed(e),
                },
            };
            let _ = tx.send(Message::Job { id, event });
        });
    }

    pub fn cancel(&mut self, id: RequestId) {
        if let Some(c) = self.running.get(&id) {
            c.cancel();
        }
    }

    /// Forgets a job whose last message this is.
    pub fn finished(&mut self, msg: &Message) {
        if let Message::Job { id, event } = msg
            && !matches!(event, JobEvent::Progress { .. })
        {
            self.running.remove(id);
        }
    }

    pub fn busy(&self) -> bool {
        !self.running.is_empty()
    }

    pub fn stop_all(&mut self) {
        for (_, c) in self.running.drain() {
            c.cancel();
        }
    }
}

/// A shared, read-only selection for a job.
pub(super) type Ids = Arc<crate::app::selection::Selection>;
