//! The sync of the active profile's local mirror (`:sync`, the periodic one): the CLI's
//! `mirror::sync` with the background lane's client, its progress as the resource read now
//! (`contacts`, records read of the server's count), its end as a one-line summary.
//!
//! A cancel drops the sync between awaits: its writer, on its own thread, commits what it
//! was handed (records with their sync position, so the next sync goes on from there) and
//! closes the file, which releases the mirror's sync lock. Until then the sync keeps the
//! mirror's turn ([`SyncCx::turn`]), so a sync started right after a stop waits for the
//! stopped one's last writes instead of finding the lock taken ("another sync runs") or the
//! file locked. The job reports stopped at once: the wait is the next sync's.

use std::time::Duration;

use futures::future::BoxFuture;

use super::{JobCx, Work};
use crate::app::Message;
use crate::app::jobs::JobOutput;
use crate::app::mirror::MirrorMessage;
use crate::mirror::{MirrorError, MirrorLocation, SyncLock};
use crate::runtime::export::give_memory_back;
use crate::runtime::mirror::SyncCx;

/// How often a stopped sync's end is looked for (its writer's last commit is quick).
const TAIL_POLL: Duration = Duration::from_millis(25);
/// A guard against a writer that never ends: the turn is given back after this.
const TAIL_LIMIT: Duration = Duration::from_secs(300);
/// How long a stopped sync's writer of this process may take to let the file go.
const OWN_TAIL_MAX: Duration = Duration::from_secs(3);
/// How often another process's sync is looked at while this one waits for it.
const OTHER_POLL: Duration = Duration::from_secs(1);

pub(super) struct MirrorSync;

impl Work for MirrorSync {
    /// Stopped between awaits by itself, so that the mirror's turn is kept until its writer
    /// ends (see the module's comment).
    fn stops_itself(&self) -> bool {
        true
    }

    fn run(self: Box<Self>, cx: JobCx) -> BoxFuture<'static, Result<JobOutput, String>> {
        Box::pin(async move {
            let Some(m) = cx.mirror else {
                return Err(
                    "no local mirror for this profile ([cache] off or no cache directory)".into(),
                );
            };
            // A stopped sync's writer may still be committing what it was handed.
            let turn = tokio::select! {
                biased;
                _ = cx.cancel.cancelled() => return Err("stopped".into()),
                t = m.turn.clone().lock_owned() => t,
            };
            let progress = cx.progress.clone();
            let mut running = Box::pin(sync(&m, progress));
            let ended = tokio::select! {
                biased;
                _ = cx.cancel.cancelled() => None,
                r = &mut running => Some(r),
            };
            drop(running);
            match ended {
                Some(result) => {
                    // The sync's page cache and pages of records are freed: handed back to the
                    // system, so an idle dashboard's resident memory is what it was before.
                    let _ = tokio::task::spawn_blocking(give_memory_back).await;
                    drop(turn);
                    result.map(JobOutput::Synced)
                }
                None => {
                    let location = m.location.clone();
                    tokio::spawn(async move {
                        let own = std::process::id().to_string();
                        let ended = lock_free(&location, TAIL_POLL, Some(&own));
                        if tokio::time::timeout(TAIL_LIMIT, ended).await.is_err() {
                            tracing::warn!("a stopped sync's writer has not ended");
                        }
                        let _ = tokio::task::spawn_blocking(give_memory_back).await;
                        drop(turn);
                    });
                    Err("stopped".into())
                }
            }
        })
    }
}

/// One sync: its summary, or why it failed.
async fn sync(m: &SyncCx, progress: super::Progress) -> Result<String, String> {
    let Some(client) = m.client.clone() else {
        return Err("no API token yet".to_string());
    };
    let report = move |p: &crate::mirror::SyncProgress| {
        progress.report(p.fetched, p.total, p.resource.noun());
    };
    let own = std::process::id().to_string();
    let mut tail_waited = false;
    let result = loop {
        match crate::mirror::sync::sync(&client, &m.location, &m.opts, &report).await {
            // A sync of this dashboard stopped a moment ago and its file is not closed yet
            // (it took the lock after its end was looked for): its end is waited for too,
            // once and briefly (a writer's last commit); a lock this process holds longer is
            // not a stopped sync's tail and is said as any other holder's.
            Err(MirrorError::Busy { holder, .. })
                if !tail_waited && holder.as_deref() == Some(own.as_str()) =>
            {
                tail_waited = true;
                let _ = tokio::time::timeout(
                    OWN_TAIL_MAX,
                    lock_free(&m.location, TAIL_POLL, Some(&own)),
                )
                .await;
            }
            other => break other,
        }
    };
    match result {
        Ok(report) => {
            let changed: u64 = report
                .resources
                .iter()
                .map(|r| r.inserted + r.updated + r.gone)
                .sum();
            let requests: u64 = report.resources.iter().map(|r| r.requests).sum();
            tracing::info!(changed, requests, "background sync done");
            match &report.moved_aside {
                Some(aside) => {
                    // The reader's file was replaced: open the new one next time.
                    *m.reader.lock().unwrap_or_else(|e| e.into_inner()) = None;
                    Ok(format!(
                        "the damaged file was moved to {} and rebuilt: {changed} records in {requests} requests",
                        aside.display()
                    ))
                }
                None => Ok(format!("{changed} changes in {requests} requests")),
            }
        }
        Err(MirrorError::Busy { holder, .. }) => {
            // Another process syncs this mirror: say so, and say when it ends.
            tracing::info!("background sync waits: another sync runs");
            let _ =
                m.tx.send(Message::Mirror(MirrorMessage::SyncWaiting(holder.clone())));
            lock_free(&m.location, OTHER_POLL, None).await;
            *m.reader.lock().unwrap_or_else(|e| e.into_inner()) = None;
            let who = holder
                .map(|p| format!(" (process {p})"))
                .unwrap_or_default();
            Ok(format!("the other sync{who} ended"))
        }
        Err(e) => {
            tracing::warn!(error = %e, "background sync failed");
            Err(e.to_string())
        }
    }
}

/// Waits (abortably, looking every `every`) until the mirror's sync lock is free; with
/// `held_by`, only while that process holds it (a stopped sync of this one: once another
/// process has the lock, this one's writer has let it go).
async fn lock_free(location: &MirrorLocation, every: Duration, held_by: Option<&str>) {
    loop {
        let path = location.lock_path();
        let busy = tokio::task::spawn_blocking(move || match SyncLock::acquire(&path) {
            Err(MirrorError::Busy { holder, .. }) => Some(holder),
            _ => None,
        })
        .await
        .unwrap_or(None);
        match (busy, held_by) {
            (None, _) => return,
            (Some(holder), Some(own)) if holder.as_deref() != Some(own) => return,
            _ => {}
        }
        tokio::time::sleep(every).await;
    }
}
