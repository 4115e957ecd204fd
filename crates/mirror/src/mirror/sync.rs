//! Sync: the service's records into the mirror.
//!
//! - A **full pass** walks a resource oldest created first (`per_page` up to 100, every
//!   include) through a window of concurrent requests (`[cache] sync_jobs`, default 8) that a
//!   rate limit narrows ([`Governor`]), the dashboard's own requests still going first (the
//!   client's priority gate). Its reads are chained ([`walk`]): every record that exists for
//!   the whole pass is read, whatever is created, changed or deleted meanwhile. Records are
//!   keyed by id, so none is ever doubled; a writer on the blocking pool stores them a few
//!   thousand at a time with the pass's position, so a killed sync continues where it stopped.
//! - An **incremental pass** reads what changed since the watermark (minus an overlap for
//!   clock skew and late commits), newest first and chained the same way: contacts with
//!   `updated_after`, deals and projects with `sort_by=updated_at&sort_direction=desc` until a
//!   read reaches older records. N changed records cost about N/100+1 requests.
//! - A sync is full when asked (`--full`), when none was ever completed, or when the last is
//!   older than `full_after`; a full pass is followed by an incremental one (for what changed
//!   while it ran) and only then marks the records neither saw as gone. One sync per mirror at
//!   a time ([`SyncLock`]).

mod query;
mod walk;
mod writer;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::doc::{Mirrored, sortable, sortable_ts};
use super::store::{FullPass, SyncState};
use super::{Mirror, MirrorError, MirrorLocation, Resource, SyncLock};
use crate::api::{
    ApiRecord, Client, ContactQuery, DealQuery, Governor, ProjectQuery, RequestEvent,
};
pub use query::SyncQuery;
pub use walk::{Interval, OVERLAP, Order, Tail, chains};
use walk::{Walk, Walked};
use writer::Writer;

/// Requests a sync has in flight at most when `[cache] sync_jobs` does not say.
pub const DEFAULT_JOBS: usize = crate::config::DEFAULT_SYNC_JOBS;
/// The most `sync_jobs` may ask for.
pub const MAX_JOBS: usize = 32;

impl SyncOptions {
    /// The options `[cache]` asks for (the CLI's `crmdash sync` and the dashboard's
    /// background sync alike): a full pass when the last one is older than
    /// `full_sync_after_hours`, `sync_jobs` requests in flight.
    pub fn from_settings(
        cache: &crate::config::CacheSettings,
        full: bool,
        resources: Vec<Resource>,
    ) -> SyncOptions {
        SyncOptions {
            resources,
            full,
            full_after: Duration::from_secs(cache.full_sync_after_hours.saturating_mul(3600)),
            jobs: cache.sync_jobs.clamp(1, MAX_JOBS),
            history_days: cache.history_days,
            ..SyncOptions::default()
        }
    }
}

/// What to sync and how.
#[derive(Debug, Clone)]
pub struct SyncOptions {
    /// Empty: all three.
    pub resources: Vec<Resource>,
    /// A full pass even when the last one is recent.
    pub full: bool,
    /// A full pass when the last completed one is older than this.
    pub full_after: Duration,
    /// How far before the watermark an incremental pass starts.
    pub overlap: Duration,
    /// Records per request at most (20 to 100: smaller pages could not overlap and advance).
    pub per_page: u32,
    /// Requests in flight at most (a rate limit halves it for a while).
    pub jobs: usize,
    /// Changes older than this many days are pruned at the end of a sync.
    pub history_days: u32,
}

impl Default for SyncOptions {
    fn default() -> Self {
        SyncOptions {
            resources: Vec::new(),
            full: false,
            full_after: Duration::from_secs(24 * 3600),
            overlap: Duration::from_secs(60),
            per_page: 100,
            jobs: DEFAULT_JOBS,
            history_days: crate::config::DEFAULT_HISTORY_DAYS,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PassKind {
    Full,
    Incremental,
}

/// Reported as the reads chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyncProgress {
    pub resource: Resource,
    pub pass: PassKind,
    /// Records read by this pass so far (across resumed runs for a full pass).
    pub fetched: u64,
    /// The server's count, when it sends one (for a full pass: all records).
    pub total: Option<u64>,
}

/// What a sync did to one resource.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResourceReport {
    pub resource: Resource,
    /// The passes run, in order.
    pub passes: Vec<PassKind>,
    /// A full pass continued from an interrupted run.
    pub resumed: bool,
    /// List requests sent by this run (retries inside the client not counted).
    pub requests: u64,
    pub fetched: u64,
    pub inserted: u64,
    pub updated: u64,
    pub unchanged: u64,
    /// Marked gone by a full pass.
    pub gone: u64,
    /// Reads that did not chain onto the one before (records deleted meanwhile): each sent
    /// the pass back to read again from farther before.
    pub rereads: u64,
    pub elapsed_ms: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SyncReport {
    pub resources: Vec<ResourceReport>,
    /// A damaged or foreign file found at the mirror's place, moved here.
    pub moved_aside: Option<std::path::PathBuf>,
}

type Shared = Arc<Mutex<Mirror>>;

/// Runs `f` on the mirror on the blocking pool.
async fn on_disk<T: Send + 'static>(
    m: &Shared,
    f: impl FnOnce(&mut Mirror) -> Result<T, MirrorError> + Send + 'static,
) -> Result<T, MirrorError> {
    let m = m.clone();
    tokio::task::spawn_blocking(move || f(&mut m.lock().unwrap_or_else(|e| e.into_inner())))
        .await
        .map_err(|e| MirrorError::Stopped(e.to_string()))?
}

/// Whether this sync of a resource must be a full one.
pub fn needs_full(state: &SyncState, opts: &SyncOptions, now: DateTime<Utc>) -> bool {
    if opts.full || state.pass.is_some() {
        return true;
    }
    match state.last_full_at {
        None => true,
        Some(t) => (now - t).to_std().unwrap_or_default() >= opts.full_after,
    }
}

/// What every pass of one sync shares.
struct Ctx<'a> {
    client: Client,
    gov: Arc<Governor>,
    mirror: Shared,
    opts: &'a SyncOptions,
    per_page: u32,
    progress: &'a (dyn Fn(&SyncProgress) + Send + Sync),
}

/// The client the sync sends with: rate limits seen while it retries reach the governor at
/// once (not only when it gives up), as the import's do.
fn governed(client: &Client, gov: Arc<Governor>) -> Client {
    client.also_observed_by(Arc::new(move |ev: &RequestEvent| {
        if let RequestEvent::Retrying { delay, reason, .. } = ev
            && reason.starts_with("Rate limited")
        {
            gov.rate_limited(*delay);
        }
    }))
}

/// Syncs the mirror at `location` from `client`. Takes the mirror's sync lock for the whole
/// run (`MirrorError::Busy` when another sync holds it), and holds it until its last write
/// even when dropped half way. `progress` is called as reads chain.
pub async fn sync(
    client: &Client,
    location: &MirrorLocation,
    opts: &SyncOptions,
    progress: &(dyn Fn(&SyncProgress) + Send + Sync),
) -> Result<SyncReport, MirrorError> {
    let lock_path = location.lock_path();
    let db_path = location.db_path();
    let root = location.root.clone();
    let opened = tokio::task::spawn_blocking(move || {
        super::paths::ensure_dir(&root)?;
        let lock = SyncLock::acquire(&lock_path)?;
        let mut opened = Mirror::open(&db_path)?;
        // Held by the connection: a sync dropped half way keeps the lock until its writer
        // (on its own thread) has committed what it was handed and closed the file.
        opened.mirror.sync_lock = Some(lock);
        // A file damaged where no sync reads (or found so by a read) is caught here.
        if opened.moved_aside.is_none()
            && opened.mirror.check_due(Utc::now())
            && let Some(problem) = opened.mirror.quick_check()?
        {
            tracing::warn!(%problem, "mirror failed its check; rebuilding");
            opened.moved_aside = Some(opened.mirror.rebuild()?);
        }
        // Index pages stay in memory across a transaction of thousands of records instead of
        // spilling to the journal and being written again (this connection ends with the sync).
        let _ = opened
            .mirror
            .conn
            .pragma_update(None, "cache_size", -32_768);
        Ok::<_, MirrorError>(opened)
    })
    .await
    .map_err(|e| MirrorError::Stopped(e.to_string()))??;
    let mut moved_aside = opened.moved_aside;
    let gov = Arc::new(Governor::new(opts.jobs.clamp(1, MAX_JOBS)));
    let ctx = Ctx {
        client: governed(client, gov.clone()),
        gov,
        mirror: Arc::new(Mutex::new(opened.mirror)),
        opts,
        per_page: opts.per_page.clamp(20, crate::api::MAX_PER_PAGE),
        progress,
    };
    let resources = if opts.resources.is_empty() {
        Resource::ALL.to_vec()
    } else {
        let mut r = opts.resources.clone();
        r.sort();
        r.dedup();
        r
    };
    let mut rebuilt = false;
    loop {
        match sync_all(&ctx, &resources).await {
            Ok(resources) => {
                return Ok(SyncReport {
                    resources,
                    moved_aside,
                });
            }
            // The file was damaged under us: start over once, in a fresh one.
            Err(e) if e.is_corruption() && !rebuilt => {
                tracing::warn!(error = %e, "mirror damaged during sync; rebuilding");
                rebuilt = true;
                moved_aside = Some(on_disk(&ctx.mirror, |m| m.rebuild()).await?);
            }
            Err(e) => return Err(e),
        }
    }
}

async fn sync_all(
    ctx: &Ctx<'_>,
    resources: &[Resource],
) -> Result<Vec<ResourceReport>, MirrorError> {
    let mut reports = Vec::new();
    for r in resources {
        reports.push(match r {
            Resource::Contacts => sync_one::<ContactQuery>(ctx).await?,
            Resource::Deals => sync_one::<DealQuery>(ctx).await?,
            Resource::Projects => sync_one::<ProjectQuery>(ctx).await?,
        });
    }
    let before = Utc::now() - chrono::Duration::days(i64::from(ctx.opts.history_days));
    on_disk(&ctx.mirror, move |m| m.prune_changes(before)).await?;
    Ok(reports)
}

/// How the passes of one resource ended: the state to save, and the full pass's generation
/// when one ran (records it and the incremental pass after it did not see are gone).
struct Passed {
    state: SyncState,
    full: Option<i64>,
}

async fn sync_one<Q: SyncQuery + Send + Sync>(
    ctx: &Ctx<'_>,
) -> Result<ResourceReport, MirrorError> {
    let r = Q::Item::RESOURCE;
    let started = Instant::now();
    let state = on_disk(&ctx.mirror, move |m| m.sync_state(r)).await?;
    let mut report = ResourceReport {
        resource: r,
        passes: Vec::new(),
        resumed: state.pass.is_some(),
        requests: 0,
        fetched: 0,
        inserted: 0,
        updated: 0,
        unchanged: 0,
        gone: 0,
        rereads: 0,
        elapsed_ms: 0,
    };
    let writer = Writer::<Q::Item>::start(ctx.mirror.clone());
    let passed = passes::<Q>(ctx, &writer, state, &mut report).await;
    // What was read is written even when a pass failed: the next sync goes on from there.
    let applied = writer.finish().await;
    let (passed, applied) = match (passed, applied) {
        (Ok(p), Ok(a)) => (p, a),
        // The writer's failure (a damaged file, a full disk) is why the walk stopped.
        (_, Err(w)) => return Err(w),
        (Err(e), Ok(_)) => return Err(e),
    };
    report.inserted += applied.inserted;
    report.updated += applied.updated;
    report.unchanged += applied.unchanged;
    let Passed { state, full } = passed;
    match full {
        Some(generation) => {
            report.gone += on_disk(&ctx.mirror, move |m| {
                m.finish_full_pass(r, generation, &state)
            })
            .await?;
        }
        None => on_disk(&ctx.mirror, move |m| m.set_sync_state(r, &state)).await?,
    }
    report.elapsed_ms = started.elapsed().as_millis() as u64;
    Ok(report)
}

async fn passes<Q: SyncQuery + Send + Sync>(
    ctx: &Ctx<'_>,
    writer: &Writer<Q::Item>,
    state: SyncState,
    report: &mut ResourceReport,
) -> Result<Passed, MirrorError> {
    let now = Utc::now();
    let full = needs_full(&state, ctx.opts, now);
    let (generation, since) = if full {
        report.passes.push(PassKind::Full);
        let pass = full_pass::<Q>(ctx, writer, state.clone(), report).await?;
        if pass.deferred {
            build_indexes::<Q>(ctx, writer).await?;
        }
        (
            Some(pass.generation),
            pass.start_mark.or(state.watermark.clone()),
        )
    } else {
        (None, state.watermark.clone())
    };
    report.passes.push(PassKind::Incremental);
    let newest = incremental_pass::<Q>(ctx, writer, since.clone(), generation, report).await?;
    let now = Utc::now();
    Ok(Passed {
        state: SyncState {
            watermark: match (since, newest) {
                (Some(a), Some(b)) => Some(a.max(b)),
                (a, b) => a.or(b),
            },
            last_sync_at: Some(now),
            last_full_at: if full { Some(now) } else { state.last_full_at },
            generation: generation.unwrap_or(state.generation),
            pass: None,
        },
        full: generation,
    })
}

/// Reads every record (seen with the pass's generation); the pass is saved with the records
/// as it goes, and returned for the incremental pass and the gone marking that follow.
async fn full_pass<Q: SyncQuery + Send + Sync>(
    ctx: &Ctx<'_>,
    writer: &Writer<Q::Item>,
    mut state: SyncState,
    report: &mut ResourceReport,
) -> Result<FullPass, MirrorError> {
    let r = Q::Item::RESOURCE;
    let pass = match state.pass.take() {
        Some(p) => p,
        None => {
            // The newest change before the pass starts: what changes during the pass is
            // newer, so the incremental pass after it catches it.
            let newest =
                walk::fetch(&ctx.client, &ctx.gov, &Q::changed(None, walk::one_record())).await?;
            report.requests += 1;
            let first = !on_disk(&ctx.mirror, move |m| m.has_records(r)).await?;
            FullPass {
                deferred: first,
                generation: state.generation + 1,
                chain: None,
                start_mark: newest
                    .data
                    .iter()
                    .filter_map(|rec| sortable_ts(rec.updated_at()))
                    .max(),
                fetched: 0,
                requests: 1,
            }
        }
    };
    if pass.deferred {
        writer.index(false);
        let bulk = on_disk(&ctx.mirror, move |m| {
            m.drop_sort_indexes(r)?;
            m.bulk_journal(true)
        })
        .await?;
        tracing::debug!(resource = %r, rollback_journal = bulk, "first sync: search indexes deferred");
    }
    let walk = Walk {
        client: &ctx.client,
        gov: &ctx.gov,
        window: ctx.opts.jobs.clamp(1, MAX_JOBS),
        per_page: ctx.per_page,
        order: Order::Ascending,
        query: &|p| Q::everything(p),
        key: |rec: &Q::Item| sortable_ts(rec.created_at()),
        stop_before: None,
        generation: Some(pass.generation),
    };
    let saved = |tail: &Tail, w: &Walked| {
        let mut p = pass.clone();
        p.chain = Some(tail.clone());
        p.fetched += w.fetched;
        p.requests += w.requests;
        (ctx.progress)(&SyncProgress {
            resource: r,
            pass: PassKind::Full,
            fetched: p.fetched,
            total: w.total,
        });
        Some(SyncState {
            pass: Some(p),
            ..state.clone()
        })
    };
    let mut walked = Walked::default();
    let result = walk
        .run(pass.chain.clone(), writer, &mut walked, &saved)
        .await;
    report.requests += walked.requests;
    report.fetched += walked.fetched;
    report.rereads += walked.breaks;
    result?;
    Ok(pass)
}

/// The end of a first full pass (`deferred`): what is queued goes to disk, then the search
/// indexes are built in one transaction and write-ahead logging comes back.
async fn build_indexes<Q: SyncQuery + Send + Sync>(
    ctx: &Ctx<'_>,
    writer: &Writer<Q::Item>,
) -> Result<(), MirrorError> {
    writer.flush().await?;
    let built = on_disk(&ctx.mirror, |m| {
        let built = m.build_search_indexes::<Q::Item>()?;
        m.bulk_journal(false)?;
        Ok(built)
    })
    .await?;
    writer.index(true);
    tracing::debug!(resource = %Q::Item::RESOURCE, built, "search indexes built");
    Ok(())
}

/// Reads what changed since `since` (minus the overlap), newest first; returns the newest
/// change it saw (the next watermark).
async fn incremental_pass<Q: SyncQuery + Send + Sync>(
    ctx: &Ctx<'_>,
    writer: &Writer<Q::Item>,
    since: Option<String>,
    generation: Option<i64>,
    report: &mut ResourceReport,
) -> Result<Option<String>, MirrorError> {
    let r = Q::Item::RESOURCE;
    let overlap = chrono::Duration::from_std(ctx.opts.overlap).unwrap_or_default();
    let since: Option<DateTime<Utc>> = since
        .as_deref()
        .and_then(|w| DateTime::parse_from_rfc3339(w).ok())
        .map(|w| w.with_timezone(&Utc) - overlap);
    let filter = since.filter(|_| Q::UPDATED_AFTER);
    let walk = Walk {
        client: &ctx.client,
        gov: &ctx.gov,
        // Without `updated_after` nothing says how far back the changes go: one at a time.
        window: if Q::UPDATED_AFTER {
            ctx.opts.jobs.clamp(1, MAX_JOBS)
        } else {
            1
        },
        per_page: ctx.per_page,
        order: Order::Descending,
        query: &move |p| Q::changed(filter, p),
        key: |rec: &Q::Item| sortable_ts(rec.updated_at()),
        stop_before: since.map(sortable),
        generation,
    };
    let told = |_: &Tail, w: &Walked| {
        (ctx.progress)(&SyncProgress {
            resource: r,
            pass: PassKind::Incremental,
            fetched: w.fetched,
            total: if Q::UPDATED_AFTER { w.total } else { None },
        });
        None
    };
    let mut walked = Walked::default();
    let result = walk.run(None, writer, &mut walked, &told).await;
    report.requests += walked.requests;
    report.fetched += walked.fetched;
    report.rereads += walked.breaks;
    result?;
    Ok(walked.first_key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_when_asked_interrupted_never_done_or_old() {
        let opts = SyncOptions::default();
        let now = Utc::now();
        assert!(needs_full(&SyncState::default(), &opts, now));
        let recent = SyncState {
            last_full_at: Some(now - chrono::Duration::hours(1)),
            ..SyncState::default()
        };
        assert!(!needs_full(&recent, &opts, now));
        assert!(needs_full(
            &recent,
            &SyncOptions {
                full: true,
                ..opts.clone()
            },
            now
        ));
        let old = SyncState {
            last_full_at: Some(now - chrono::Duration::hours(25)),
            ..SyncState::default()
        };
        assert!(needs_full(&old, &opts, now));
    }
}
