//! `:plan PATH`: reading a plan for its preview ([`read`], answering `Message::PlanRead`) and
//! running it ([`PlanRun`]) with the CLI's engine: the same parser and checks, the same
//! run journal (a re-run sends only what is not done; never a row twice), the governor, the
//! reschedule log and the write journal. A cancel stops new requests; those under way finish
//! and are recorded, so no row is left in doubt by the dashboard.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use chrono::Utc;
use futures::future::BoxFuture;
use tokio::sync::mpsc::UnboundedSender;

use super::{JobCx, Work};
use crate::app::dialogs::FormsConfig;
use crate::app::jobs::JobOutput;
use crate::app::plan::{PlanJob, PlanLoaded, PlanReport, PlanRowReport, PlanWords};
use crate::app::{Message, RequestId};
use crate::reschedule::plan::journal::{FILE_NAME, Journal};
use crate::reschedule::plan::run::{MAX_FAILURE_STREAK, Runner};
use crate::reschedule::plan::{Plan, PlanOptions, preview};
use crate::runtime::source::DataSource;

/// Requests in flight at once (the CLI's `--jobs` default); a rate limit lowers it.
pub const PLAN_JOBS: usize = 8;

/// The run journal beside the reschedule log (where the CLI keeps it).
pub fn journal_path(log: Option<&Path>) -> Option<PathBuf> {
    log.map(|p| p.with_file_name(FILE_NAME))
}

/// Reads and checks the plan at `path` off the event loop (run by `Jobs::spawn`); answers
/// `Message::PlanRead`.
pub fn read(
    id: RequestId,
    path: PathBuf,
    words: PlanWords,
    forms: &FormsConfig,
    source: Option<Arc<dyn DataSource>>,
    tx: &UnboundedSender<Message>,
) -> impl Future<Output = ()> + Send + 'static {
    let forms = forms.clone();
    let tx = tx.clone();
    async move {
        let result = tokio::task::spawn_blocking(move || {
            load(path, words, &forms, source.as_deref()).map(Box::new)
        })
        .await
        .unwrap_or_else(|e| Err(format!("The plan was not read: {e}")));
        let _ = tx.send(Message::PlanRead { id, result });
    }
}

fn load(
    typed: PathBuf,
    words: PlanWords,
    forms: &FormsConfig,
    source: Option<&dyn DataSource>,
) -> Result<PlanLoaded, String> {
    let path = expand_home(&typed);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("Cannot read the plan {}: {e}", path.display()))?;
    let client = source.and_then(DataSource::client).ok_or(
        "Not signed in: a plan is checked against the service's run journal (log in first)",
    )?;
    let host = crate::config::host_label(client.base_url().as_str());
    let opts = PlanOptions {
        shift: words.shift.clone(),
        default_end: words.end.clone(),
        extra: Default::default(),
    };
    let settings = &forms.reschedule;
    let plan = Plan::parse(&text, &opts, settings, &forms.zone, Utc::now()).map_err(|e| {
        // The CLI's flags are `:plan`'s words here.
        let e = e.replace("--shift", "shift=").replace("--end", "end=");
        format!("The plan {}: {e}", path.display())
    })?;
    let journal = journal_path(forms.log_path.as_deref())
        .ok_or("No data directory for the plan's run journal: nothing can be sent")?;
    let run_journal = Journal::open(&journal, &host)
        .map_err(|e| format!("Cannot read the run journal {}: {e}", journal.display()))?;
    let log = forms
        .log_path
        .as_deref()
        .and_then(|p| crate::reschedule::read_log(p, usize::MAX).ok())
        .unwrap_or_default();
    let rows = preview::preview(
        &plan,
        &run_journal,
        &log,
        &host,
        settings,
        &forms.zone,
        false,
    );
    Ok(PlanLoaded {
        path: typed,
        words,
        rows: plan.rows,
        preview: rows,
        bad: plan.bad,
        zone: forms.zone.describe(),
        journal,
    })
}

/// `~/moves.csv` as a shell reads it.
pub(super) fn expand_home(path: &Path) -> PathBuf {
    match (
        path.strip_prefix("~"),
        directories::BaseDirs::new().map(|d| d.home_dir().to_path_buf()),
    ) {
        (Ok(rest), Some(home)) => home.join(rest),
        _ => path.to_path_buf(),
    }
}

pub(super) struct PlanRun {
    pub job: PlanJob,
}

impl Work for PlanRun {
    fn stops_itself(&self) -> bool {
        true
    }

    fn run(self: Box<Self>, cx: JobCx) -> BoxFuture<'static, Result<JobOutput, String>> {
        let run = async move {
            let job = self.job;
            let client = match cx.pages.source.as_ref().and_then(|s| s.client()) {
                Some(c) => c,
                None if cx.pages.reason.is_empty() => return Err("Not signed in".to_string()),
                None => return Err(cx.pages.reason),
            };
            let host = crate::config::host_label(client.base_url().as_str());
            let path = job.journal.clone();
            let journal = tokio::task::spawn_blocking(move || Journal::open(&path, &host))
                .await
                .map_err(|e| e.to_string())?
                .map_err(|e| {
                    format!("Cannot read the run journal {}: {e}", job.journal.display())
                })?;
            let stop = Arc::new(AtomicBool::new(false));
            let watch = {
                let (stop, cancel) = (stop.clone(), cx.cancel.clone());
                tokio::spawn(async move {
                    cancel.cancelled().await;
                    stop.store(true, Ordering::Relaxed);
                })
            };
            let runner = Runner {
                client,
                jobs: PLAN_JOBS,
                journal: Arc::new(journal),
                log_path: job.log,
                write_journal: job.write_journal.clone(),
                run_id: format!("plan-{}", uuid::Uuid::new_v4()),
                profile: job.profile.clone(),
                stop,
                resend_in_doubt: false,
                who: crate::journal::Who::Dashboard,
                gate: crate::writes::Gatekeeper {
                    flags: job.flags,
                    guard: job.profile.clone(),
                    requester: crate::writes::Requester::Dashboard,
                    journal: crate::journal::JournalFile {
                        path: job.write_journal.clone(),
                    },
                },
            };
            let total = job.rows.len() as u64;
            let mut rows = Vec::with_capacity(job.rows.len());
            let end = runner
                .run(job.rows, |r| {
                    rows.push(PlanRowReport {
                        line: r.line,
                        id: r.id,
                        outcome: r.outcome,
                        detail: r.detail,
                    });
                    cx.progress.report(rows.len() as u64, Some(total), "rows");
                })
                .await;
            watch.abort();
            let halted = match (end.fatal, end.streak) {
                (Some(e), _) => Some(e.summary()),
                (None, Some(e)) => Some(format!(
                    "{MAX_FAILURE_STREAK} rows in a row failed (the last: {})",
                    e.summary()
                )),
                (None, None) => None,
            };
            Ok(JobOutput::Plan(Arc::new(PlanReport {
                path: job.path,
                rows,
                stopped: cx.cancel.is_cancelled(),
                halted,
                rate_limited: end.rate_limited,
            })))
        };
        Box::pin(crate::runtime::source::ORIGIN.scope("plan", run))
    }
}
