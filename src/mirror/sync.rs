//! Sync: the service's records into the mirror.
//!
//! - A **full pass** pages through a resource by `created_at` (`per_page=100`, every include),
//!   saving its position with every page, so a killed sync continues where it stopped; records
//!   are keyed by id, so none is ever doubled. When it completes, records it did not see are
//!   marked gone. If `meta.total` drops between pages (deletions shift later records back),
//!   the pass re-reads the pages those records moved into.
//! - An **incremental pass** reads what changed since the watermark (minus an overlap for
//!   clock skew and late commits), newest first: contacts with `updated_after`, deals and
//!   projects with `sort_by=updated_at&sort_direction=desc` until a page reaches older records.
//!   N changed records cost about ceil(N/100)+1 requests.
//! - A sync is full when asked (`--full`), when none was ever completed, or when the last is
//!   older than `full_after`; a full pass is followed by an incremental one (for what changed
//!   while it ran). One sync per mirror at a time ([`SyncLock`]).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::doc::{Mirrored, sortable, sortable_ts};
use super::store::{Applied, FullPass, SyncState};
use super::{Mirror, MirrorError, MirrorLocation, Resource, SyncLock};
use crate::api::{
    ApiRecord, Client, ContactInclude, ContactQuery, ContactSort, DealInclude, DealQuery, DealSort,
    ListQuery, Page, Paging, ProjectInclude, ProjectQuery, ProjectSort, SortDirection,
};

impl SyncOptions {
    /// The options `[cache]` asks for (the CLI's `crmdash sync` and the dashboard's
    /// background sync alike): a full pass when the last one is older than
    /// `full_sync_after_hours`.
    pub fn from_settings(
        cache: &crate::config::CacheSettings,
        full: bool,
        resources: Vec<Resource>,
    ) -> SyncOptions {
        SyncOptions {
            resources,
            full,
            full_after: Duration::from_secs(cache.full_sync_after_hours.saturating_mul(3600)),
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
    pub per_page: u32,
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

/// Reported after every page.
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
    pub elapsed_ms: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SyncReport {
    pub resources: Vec<ResourceReport>,
    /// A damaged or foreign file found at the mirror's place, moved here.
    pub moved_aside: Option<std::path::PathBuf>,
}

/// A list query the sync can page with.
pub trait SyncQuery: ListQuery<Item: Mirrored> {
    /// Whether the API filters this resource by `updated_after`.
    const UPDATED_AFTER: bool;
    /// Everything, oldest created first, with every include.
    fn everything(paging: Paging) -> Self;
    /// Newest changed first, with every include; `since` only for `UPDATED_AFTER` resources.
    fn changed(since: Option<DateTime<Utc>>, paging: Paging) -> Self;
}

impl SyncQuery for ContactQuery {
    const UPDATED_AFTER: bool = true;
    fn everything(paging: Paging) -> Self {
        ContactQuery {
            sort_by: Some(ContactSort::CreatedAt),
            sort_direction: Some(SortDirection::Asc),
            include: ContactInclude::ALL.to_vec(),
            paging,
            ..ContactQuery::default()
        }
    }
    fn changed(since: Option<DateTime<Utc>>, paging: Paging) -> Self {
        ContactQuery {
            updated_after: since,
            sort_by: Some(ContactSort::UpdatedAt),
            sort_direction: Some(SortDirection::Desc),
            include: ContactInclude::ALL.to_vec(),
            paging,
            ..ContactQuery::default()
        }
    }
}

impl SyncQuery for DealQuery {
    const UPDATED_AFTER: bool = false;
    fn everything(paging: Paging) -> Self {
        DealQuery {
            sort_by: Some(DealSort::CreatedAt),
            sort_direction: Some(SortDirection::Asc),
            include: DealInclude::ALL.to_vec(),
            paging,
            ..DealQuery::default()
        }
    }
    fn changed(_since: Option<DateTime<Utc>>, paging: Paging) -> Self {
        DealQuery {
            sort_by: Some(DealSort::UpdatedAt),
            sort_direction: Some(SortDirection::Desc),
            include: DealInclude::ALL.to_vec(),
            paging,
            ..DealQuery::default()
        }
    }
}

impl SyncQuery for ProjectQuery {
    const UPDATED_AFTER: bool = false;
    fn everything(paging: Paging) -> Self {
        ProjectQuery {
            sort_by: Some(ProjectSort::CreatedAt),
            sort_direction: Some(SortDirection::Asc),
            include: ProjectInclude::ALL.to_vec(),
            paging,
            ..ProjectQuery::default()
        }
    }
    fn changed(_since: Option<DateTime<Utc>>, paging: Paging) -> Self {
        ProjectQuery {
            sort_by: Some(ProjectSort::UpdatedAt),
            sort_direction: Some(SortDirection::Desc),
            include: ProjectInclude::ALL.to_vec(),
            paging,
            ..ProjectQuery::default()
        }
    }
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

/// Whether a page was not the last one: by `meta`, else by being full.
fn more_after<T>(page: &Page<T>, per_page: u32) -> bool {
    match page.meta {
        Some(m) if m.current_page.is_some() && m.last_page.is_some() => page.has_next(),
        _ => page.data.len() >= per_page as usize,
    }
}

/// The page to read next: the following one, or back over the pages records moved into when
/// `meta.total` dropped since the previous read (deletions shift later records back).
fn next_page(read: u32, prev_total: Option<u64>, total: Option<u64>, per_page: u32) -> u32 {
    match (prev_total, total) {
        (Some(prev), Some(now)) if now < prev => {
            let back = (prev - now)
                .div_ceil(u64::from(per_page))
                .min(u64::from(read)) as u32;
            read.saturating_sub(back).max(1)
        }
        _ => read + 1,
    }
}

fn paging(page: u32, per_page: u32) -> Paging {
    Paging {
        page: Some(page),
        per_page: Some(per_page),
    }
}

fn add(report: &mut ResourceReport, a: Applied) {
    report.inserted += a.inserted;
    report.updated += a.updated;
    report.unchanged += a.unchanged;
}

/// Syncs the mirror at `location` from `client`. Takes the mirror's sync lock for the whole
/// run (`MirrorError::Busy` when another sync holds it). `progress` is called after every page.
pub async fn sync(
    client: &Client,
    location: &MirrorLocation,
    opts: &SyncOptions,
    progress: &(dyn Fn(&SyncProgress) + Send + Sync),
) -> Result<SyncReport, MirrorError> {
    let lock_path = location.lock_path();
    let db_path = location.db_path();
    let root = location.root.clone();
    let (_lock, opened) = tokio::task::spawn_blocking(move || {
        super::paths::ensure_dir(&root)?;
        let lock = SyncLock::acquire(&lock_path)?;
        let mut opened = Mirror::open(&db_path)?;
        // A file damaged where no sync reads (or found so by a read) is caught here.
        if opened.moved_aside.is_none()
            && opened.mirror.check_due(Utc::now())
            && let Some(problem) = opened.mirror.quick_check()?
        {
            tracing::warn!(%problem, "mirror failed its check; rebuilding");
            opened.moved_aside = Some(opened.mirror.rebuild()?);
        }
        Ok::<_, MirrorError>((lock, opened))
    })
    .await
    .map_err(|e| MirrorError::Stopped(e.to_string()))??;
    let mut moved_aside = opened.moved_aside;
    let mirror: Shared = Arc::new(Mutex::new(opened.mirror));
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
        match sync_all(client, &mirror, &resources, opts, progress).await {
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
                moved_aside = Some(on_disk(&mirror, |m| m.rebuild()).await?);
            }
            Err(e) => return Err(e),
        }
    }
}

async fn sync_all(
    client: &Client,
    mirror: &Shared,
    resources: &[Resource],
    opts: &SyncOptions,
    progress: &(dyn Fn(&SyncProgress) + Send + Sync),
) -> Result<Vec<ResourceReport>, MirrorError> {
    let mut reports = Vec::new();
    for r in resources {
        reports.push(match r {
            Resource::Contacts => sync_one::<ContactQuery>(client, mirror, opts, progress).await?,
            Resource::Deals => sync_one::<DealQuery>(client, mirror, opts, progress).await?,
            Resource::Projects => sync_one::<ProjectQuery>(client, mirror, opts, progress).await?,
        });
    }
    let before = Utc::now() - chrono::Duration::days(i64::from(opts.history_days));
    on_disk(mirror, move |m| m.prune_changes(before)).await?;
    Ok(reports)
}

async fn sync_one<Q: SyncQuery>(
    client: &Client,
    mirror: &Shared,
    opts: &SyncOptions,
    progress: &(dyn Fn(&SyncProgress) + Send + Sync),
) -> Result<ResourceReport, MirrorError> {
    let r = Q::Item::RESOURCE;
    let started = Instant::now();
    let state = on_disk(mirror, move |m| m.sync_state(r)).await?;
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
        elapsed_ms: 0,
    };
    let per_page = opts.per_page.clamp(1, crate::api::MAX_PER_PAGE);
    if needs_full(&state, opts, Utc::now()) {
        report.passes.push(PassKind::Full);
        full_pass::<Q>(client, mirror, state, per_page, &mut report, progress).await?;
    }
    report.passes.push(PassKind::Incremental);
    incremental_pass::<Q>(client, mirror, opts, per_page, &mut report, progress).await?;
    report.elapsed_ms = started.elapsed().as_millis() as u64;
    Ok(report)
}

async fn full_pass<Q: SyncQuery>(
    client: &Client,
    mirror: &Shared,
    mut state: SyncState,
    per_page: u32,
    report: &mut ResourceReport,
    progress: &(dyn Fn(&SyncProgress) + Send + Sync),
) -> Result<(), MirrorError> {
    let r = Q::Item::RESOURCE;
    let mut pass = match state.pass.take() {
        Some(p) => p,
        None => {
            // The newest change before the pass starts: what changes during the pass is
            // newer, so the incremental pass after it catches it.
            let newest = client.list(&Q::changed(None, paging(1, 1))).await?;
            report.requests += 1;
            FullPass {
                generation: state.generation + 1,
                next_page: 1,
                last_total: None,
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
    loop {
        let read = pass.next_page;
        let page = client.list(&Q::everything(paging(read, per_page))).await?;
        report.requests += 1;
        pass.requests += 1;
        let total = page.meta.and_then(|m| m.total);
        let next = next_page(read, pass.last_total, total, per_page);
        pass.last_total = total;
        pass.fetched += page.data.len() as u64;
        report.fetched += page.data.len() as u64;
        let done = next > read && (page.data.is_empty() || !more_after(&page, per_page));
        pass.next_page = next;
        let generation = pass.generation;
        progress(&SyncProgress {
            resource: r,
            pass: PassKind::Full,
            fetched: pass.fetched,
            total,
        });
        let mut page_state = state.clone();
        page_state.pass = Some(pass.clone());
        let records = page.data;
        let applied = on_disk(mirror, move |m| {
            m.apply_page(&records, Some(generation), &page_state)
        })
        .await?;
        add(report, applied);
        if done {
            break;
        }
    }
    let now = Utc::now();
    let generation = pass.generation;
    let final_state = SyncState {
        watermark: pass.start_mark.clone().or(state.watermark.clone()),
        last_sync_at: Some(now),
        last_full_at: Some(now),
        generation,
        pass: None,
    };
    report.gone += on_disk(mirror, move |m| {
        m.finish_full_pass(r, generation, &final_state)
    })
    .await?;
    Ok(())
}

async fn incremental_pass<Q: SyncQuery>(
    client: &Client,
    mirror: &Shared,
    opts: &SyncOptions,
    per_page: u32,
    report: &mut ResourceReport,
    progress: &(dyn Fn(&SyncProgress) + Send + Sync),
) -> Result<(), MirrorError> {
    let r = Q::Item::RESOURCE;
    let state = on_disk(mirror, move |m| m.sync_state(r)).await?;
    let overlap = chrono::Duration::from_std(opts.overlap).unwrap_or_default();
    let since: Option<DateTime<Utc>> = state
        .watermark
        .as_deref()
        .and_then(|w| DateTime::parse_from_rfc3339(w).ok())
        .map(|w| w.with_timezone(&Utc) - overlap);
    let since_text = since.map(sortable);
    let mut read = 1;
    let mut last_total = None;
    // A drop in `meta.total` means records were deleted mid-pass: the pages are re-read, but
    // the watermark stays put (the next pass reads this range again) to be safe.
    let mut deletions_seen = false;
    let mut newest: Option<String> = None;
    let mut fetched = 0u64;
    loop {
        let page = client
            .list(&Q::changed(
                since.filter(|_| Q::UPDATED_AFTER),
                paging(read, per_page),
            ))
            .await?;
        report.requests += 1;
        let total = page.meta.and_then(|m| m.total);
        let next = next_page(read, last_total, total, per_page);
        deletions_seen |= next <= read;
        last_total = total;
        let stamps: Vec<Option<String>> = page
            .data
            .iter()
            .map(|rec| sortable_ts(rec.updated_at()))
            .collect();
        if read == 1 && newest.is_none() {
            newest = stamps.iter().flatten().max().cloned();
        }
        let reached_older = match &since_text {
            Some(s) => stamps.iter().flatten().any(|t| t < s),
            None => false,
        };
        fetched += page.data.len() as u64;
        report.fetched += page.data.len() as u64;
        progress(&SyncProgress {
            resource: r,
            pass: PassKind::Incremental,
            fetched,
            total: if Q::UPDATED_AFTER { total } else { None },
        });
        let done =
            next > read && (page.data.is_empty() || reached_older || !more_after(&page, per_page));
        let records = page.data;
        let unchanged_state = state.clone();
        let applied = on_disk(mirror, move |m| {
            m.apply_page(&records, None, &unchanged_state)
        })
        .await?;
        add(report, applied);
        if done {
            break;
        }
        read = next;
    }
    let mut final_state = state;
    if !deletions_seen {
        final_state.watermark = match (final_state.watermark.take(), newest) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
    }
    final_state.last_sync_at = Some(Utc::now());
    on_disk(mirror, move |m| m.set_sync_state(r, &final_state)).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_total_drop_steps_back_over_the_shifted_records() {
        assert_eq!(next_page(3, Some(1000), Some(1000), 100), 4);
        assert_eq!(next_page(3, Some(1000), Some(1003), 100), 4);
        assert_eq!(next_page(3, Some(1000), Some(999), 100), 2);
        assert_eq!(next_page(3, Some(1000), Some(850), 100), 1);
        assert_eq!(next_page(1, Some(1000), Some(999), 100), 1);
        assert_eq!(next_page(1, None, Some(999), 100), 2);
    }

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
