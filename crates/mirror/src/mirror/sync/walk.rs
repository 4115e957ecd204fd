//! A walk through one ordering of a resource (oldest created first for a full pass, newest
//! changed first for an incremental one): pages read through a bounded window of concurrent
//! requests, and **chained**, so that no record that stayed put can fall between two reads
//! while records are created, changed and deleted (docs/mirror.md, "Why nothing is missed").
//!
//! Each read is a contiguous slice of the ordering at the moment the server answered it. Two
//! reads are *chained* when the later one in the ordering holds a record of the earlier one
//! (same id, same sort key) or a record strictly before the earlier one's last: their key
//! ranges then touch, whatever moved in between. Reads are planned to overlap by a few
//! records (the API pages by number, so each read picks the page size that overlaps its
//! neighbour and reaches farthest); a read that does not chain (more records were deleted
//! before it than it overlaps) sends the walk back: it plans again from farther before the
//! chain's end, doubling the step each time, until a read chains. The first read starts at
//! offset 0 and chains by itself; the walk ends at a chained read that is the last page (or,
//! incrementally, that reaches records older than the watermark).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use futures::stream::FuturesUnordered;
use serde::{Deserialize, Serialize};

use super::super::doc::sortable_ts;
use super::super::store::SyncState;
use super::writer::Writer;
use crate::api::{ApiError, ApiRecord, Client, ErrorKind, Governor, ListQuery, Page, Paging};

/// Records two neighbouring reads share when nothing moved: up to this many deletions before
/// a read between it and its neighbour are absorbed without reading again.
pub const OVERLAP: u64 = 3;
/// Records of the last read kept to chain the next one (and saved to resume a full pass).
const TAIL: usize = 20;
/// How far back (in records) the walk first goes when a read does not chain.
const FIRST_STEP_BACK: u64 = 50;
/// A full pass's position is committed at least this often (with the records before it):
/// each commit rewrites the index pages its records touched, so not more often either.
const COMMIT_EVERY: Duration = Duration::from_secs(5);

/// One record, newest changed first: the full pass's starting watermark.
pub fn one_record() -> Paging {
    Paging {
        page: Some(1),
        per_page: Some(1),
    }
}

/// One request's slice of the ordering: records `start..start + per_page`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interval {
    pub start: u64,
    pub per_page: u32,
}

impl Interval {
    pub fn end(&self) -> u64 {
        self.start + u64::from(self.per_page)
    }

    pub fn paging(&self) -> Paging {
        Paging {
            page: Some((self.start / u64::from(self.per_page)) as u32 + 1),
            per_page: Some(self.per_page),
        }
    }

    /// The read after one ending at `end`: it starts at least [`OVERLAP`] records before
    /// `end`, on a multiple of its own page size (pages are asked by number), with the page
    /// size (from `max / 2` to `max`) that reaches farthest.
    pub fn after(end: u64, max: u32) -> Interval {
        let overlap = OVERLAP.min(u64::from(max / 4)).max(1);
        if end <= overlap {
            return Interval {
                start: 0,
                per_page: max,
            };
        }
        let target = end - overlap;
        let mut best = Interval {
            start: 0,
            per_page: max,
        };
        for pp in (max / 2).max(2)..=max {
            let start = target / u64::from(pp) * u64::from(pp);
            let cand = Interval {
                start,
                per_page: pp,
            };
            if cand.end() > best.end() {
                best = cand;
            }
        }
        best
    }
}

/// The end of a chain: where its last read ended and that read's last records (id and sort
/// key), oldest first. Saved with a full pass so a resumed run chains onto it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tail {
    pub end: u64,
    pub records: Vec<(String, Option<String>)>,
}

impl Tail {
    /// The chain end a full pass leaves after reading `records` (oldest created first), the
    /// last of which was record number `end` of the ordering.
    pub fn after_full_read<T: ApiRecord>(end: u64, records: &[T]) -> Tail {
        let keep = records.len().saturating_sub(TAIL);
        Tail {
            end,
            records: records[keep..]
                .iter()
                .map(|r| (r.id().to_string(), sortable_ts(r.created_at())))
                .collect(),
        }
    }
}

/// How the records of a walk are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    Ascending,
    Descending,
}

impl Order {
    /// Whether sort key `a` comes strictly before `b`.
    fn before(self, a: &str, b: &str) -> bool {
        match self {
            Order::Ascending => a < b,
            Order::Descending => a > b,
        }
    }
}

/// Whether a read that started at `start` with these (id, key) records chains onto `tail`.
pub fn chains(
    tail: Option<&Tail>,
    start: u64,
    records: &[(String, Option<String>)],
    order: Order,
) -> bool {
    if start == 0 {
        return true;
    }
    let Some(tail) = tail else {
        return false;
    };
    let last_key = tail.records.iter().rev().find_map(|(_, k)| k.as_deref());
    records.iter().any(|(id, key)| {
        tail.records
            .iter()
            .any(|(tid, tkey)| tid == id && tkey == key)
            || matches!((key.as_deref(), last_key), (Some(k), Some(last)) if order.before(k, last))
    })
}

/// What a walk reads and how.
pub struct Walk<'a, Q: ListQuery> {
    pub client: &'a Client,
    pub gov: &'a Arc<Governor>,
    /// Requests at most in flight (1: one after the other, as an incremental pass of a
    /// resource without `updated_after` does: it cannot know how far it has to go).
    pub window: usize,
    pub per_page: u32,
    pub order: Order,
    pub query: &'a (dyn Fn(Paging) -> Q + Sync),
    /// The sort key of a record (sortable text).
    pub key: fn(&Q::Item) -> Option<String>,
    /// Incremental: the walk ends at a chained read holding a key before this one.
    pub stop_before: Option<String>,
    /// Marks the records written as seen by this full pass.
    pub generation: Option<i64>,
}

/// What a walk did.
#[derive(Debug, Default)]
pub struct Walked {
    pub requests: u64,
    pub fetched: u64,
    /// The first key of the first read (the newest change, walking newest first).
    pub first_key: Option<String>,
    /// The server's count in its last answer.
    pub total: Option<u64>,
    /// Reads that did not chain (each sent the walk back).
    pub breaks: u64,
}

/// A rate limit waits and is tried again, as often as it takes ("later", not "no"); every
/// request holds a permit of the governor.
pub async fn fetch<Q: ListQuery>(
    client: &Client,
    gov: &Governor,
    query: &Q,
) -> Result<Page<Q::Item>, ApiError> {
    loop {
        let permit = gov.acquire().await;
        // Lean: the sync stores the raw JSON and its columns, never the decoded relations.
        let result = client.list_lean(query).await;
        drop(permit);
        match result {
            Ok(p) => {
                gov.succeeded();
                return Ok(p);
            }
            Err(e) if e.kind == ErrorKind::RateLimited => {
                let wait = e
                    .retry_after
                    .unwrap_or(std::time::Duration::from_secs(1))
                    .min(client.options().max_retry_after);
                gov.rate_limited(wait);
            }
            Err(e) => return Err(e),
        }
    }
}

/// A page's records with each id once, the first copy kept: a service that lists one id twice
/// in a page (a stale copy beside the current one) would otherwise have both written, one
/// over the other, and every sync would record them as changes.
pub fn distinct<T: ApiRecord>(records: &mut Vec<T>) {
    if records.len() < 2 {
        return;
    }
    let mut seen = std::collections::HashSet::with_capacity(records.len());
    records.retain(|r| seen.insert(r.id().to_string()));
}

/// Whether a page was not the last one: by `meta`, else by being full.
pub fn more_after<T>(page: &Page<T>, per_page: u32) -> bool {
    match page.meta {
        Some(m) if m.current_page.is_some() && m.last_page.is_some() => page.has_next(),
        _ => page.data.len() >= per_page as usize,
    }
}

impl<Q> Walk<'_, Q>
where
    Q: ListQuery + Send + Sync,
    Q::Item: super::super::Mirrored,
{
    /// Walks from `resume` (a saved chain end) or from the start. Every record read goes to
    /// `writer`; `chained` hears each time the chain grows and may answer the sync state
    /// that the records written so far complete (saved with them at least every 5 seconds).
    pub async fn run(
        &self,
        resume: Option<Tail>,
        writer: &Writer<Q::Item>,
        walked: &mut Walked,
        chained: &(dyn Fn(&Tail, &Walked) -> Option<SyncState> + Send + Sync),
    ) -> Result<(), super::MirrorError> {
        // The first chained read is committed at once: from then on the pass is resumable.
        let mut committed: Option<Instant> = None;
        let mut chain = resume.filter(|t| t.end > 0);
        let mut plan_end = chain.as_ref().map(|t| t.end);
        // Bumped each time the walk goes back: reads planned before are written, not chained.
        let mut epoch = 0u64;
        let mut step_back = 0u64;
        // Reads are taken in the order they were planned, but the window counts only the
        // unanswered ones: a read answered before the one planned ahead of it waits in
        // `answered` and no longer holds a place, so `window` requests stay at the server.
        let mut unanswered = FuturesUnordered::new();
        let mut answered = BTreeMap::new();
        let (mut planned, mut taken) = (0u64, 0u64);
        let start = |seq: u64, iv: Interval, epoch: u64| {
            let q = (self.query)(iv.paging());
            async move { (seq, iv, epoch, fetch(self.client, self.gov, &q).await) }
        };
        loop {
            // Plan ahead only as far as the server's count says there is something to read.
            let window = if walked.total.is_some() {
                self.window
            } else {
                1
            };
            // Answers waiting for an earlier one are bounded too (memory, and the walk's
            // order): at most a window of them.
            while unanswered.len() < window.max(1) && answered.len() < window.max(1) {
                let iv = match plan_end {
                    None => Interval {
                        start: 0,
                        per_page: self.per_page,
                    },
                    Some(end) => Interval::after(end, self.per_page),
                };
                // The reads planned already reach the server's count: the rest waits for
                // their answers (which say whether records were added meanwhile).
                let beyond = walked
                    .total
                    .is_some_and(|t| plan_end.is_some_and(|e| e >= t.max(1)));
                if planned > taken && beyond {
                    break;
                }
                plan_end = Some(iv.end());
                unanswered.push(start(planned, iv, epoch));
                planned += 1;
            }
            let Some((iv, read_epoch, result)) = answered.remove(&taken) else {
                // The next read in order is still out: wait for any answer, then plan again.
                match unanswered.next().await {
                    Some((seq, iv, read_epoch, result)) => {
                        answered.insert(seq, (iv, read_epoch, result));
                        continue;
                    }
                    None => break,
                }
            };
            taken += 1;
            let mut page = result?;
            distinct(&mut page.data);
            walked.requests += 1;
            walked.fetched += page.data.len() as u64;
            if let Some(t) = page.meta.and_then(|m| m.total) {
                walked.total = Some(t);
            }
            let records: Vec<(String, Option<String>)> = page
                .data
                .iter()
                .map(|r| (r.id().to_string(), (self.key)(r)))
                .collect();
            if iv.start == 0 && walked.first_key.is_none() {
                walked.first_key = records.iter().find_map(|(_, k)| k.clone());
            }
            let more = more_after(&page, iv.per_page);
            writer.records(page.data, self.generation).await?;
            if read_epoch != epoch {
                continue;
            }
            if !chains(chain.as_ref(), iv.start, &records, self.order) {
                // More records moved before this read than it overlaps: go back.
                walked.breaks += 1;
                step_back = if step_back == 0 {
                    FIRST_STEP_BACK
                } else {
                    step_back * 2
                };
                epoch += 1;
                let end = chain.as_ref().map_or(0, |t| t.end);
                plan_end = (end > step_back).then(|| end - step_back);
                continue;
            }
            step_back = 0;
            let reached_older = match &self.stop_before {
                Some(s) => records
                    .iter()
                    .filter_map(|(_, k)| k.as_deref())
                    .any(|k| self.order.before(s, k)),
                None => false,
            };
            let keep = records.len().saturating_sub(TAIL);
            let tail = Tail {
                end: iv.start + records.len() as u64,
                records: records.into_iter().skip(keep).collect(),
            };
            if tail.records.is_empty() {
                // An empty first page: nothing to chain onto, and nothing more to read.
                chain = None;
            } else {
                if let Some(state) = chained(&tail, walked) {
                    let now = committed.is_none_or(|t| t.elapsed() >= COMMIT_EVERY);
                    if now {
                        committed = Some(Instant::now());
                    }
                    writer.state(state, now).await?;
                }
                chain = Some(tail);
            }
            if !more || reached_older || chain.is_none() {
                break;
            }
        }
        // Reads still in flight finish (counted and written), so the report matches the server's log.
        while let Some((seq, iv, read_epoch, result)) = unanswered.next().await {
            answered.insert(seq, (iv, read_epoch, result));
        }
        for (_, (_, _, result)) in answered {
            let mut page = result?;
            distinct(&mut page.data);
            walked.requests += 1;
            walked.fetched += page.data.len() as u64;
            writer.records(page.data, self.generation).await?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(id: &str, key: &str) -> (String, Option<String>) {
        (id.to_string(), Some(key.to_string()))
    }

    #[test]
    fn every_read_overlaps_its_neighbour_and_moves_on() {
        for max in [20u32, 37, 99, 100] {
            let overlap = OVERLAP.min(u64::from(max / 4)).max(1);
            let mut end = u64::from(max);
            let mut reads = 1;
            while end < 200_000 {
                let iv = Interval::after(end, max);
                assert_eq!(iv.start % u64::from(iv.per_page), 0);
                assert!(iv.start + overlap <= end, "{max} {end} {iv:?}");
                assert!(iv.end() > end, "{max} {end} {iv:?}");
                assert!(iv.per_page <= max);
                end = iv.end();
                reads += 1;
            }
            if max == 100 {
                // About 17% more requests than pages of 100: the price of the proof.
                assert!(reads < 2_000 * 120 / 100, "{reads}");
            }
        }
        let iv = Interval::after(100, 100);
        assert_eq!(iv.paging().page, Some(iv.start as u32 / iv.per_page + 1));
    }

    #[test]
    fn a_read_chains_by_a_shared_record_or_an_earlier_key() {
        let tail = Tail {
            end: 100,
            records: vec![rec("a", "2022-01-01"), rec("b", "2022-01-02")],
        };
        let asc = Order::Ascending;
        assert!(chains(
            Some(&tail),
            97,
            &[rec("b", "2022-01-02"), rec("c", "2022-01-03")],
            asc
        ));
        // Same id but another key: the record moved, it proves nothing.
        assert!(!chains(
            Some(&tail),
            97,
            &[rec("b", "2023-05-05"), rec("c", "2023-05-06")],
            asc
        ));
        // b was deleted, but a record before it is here: the ranges touch.
        assert!(chains(
            Some(&tail),
            97,
            &[rec("x", "2022-01-01T12"), rec("c", "2022-01-03")],
            asc
        ));
        // Starts after b: something may have fallen between.
        assert!(!chains(Some(&tail), 97, &[rec("c", "2022-01-03")], asc));
        assert!(!chains(Some(&tail), 97, &[], asc));
        assert!(chains(Some(&tail), 0, &[], asc));
        assert!(!chains(None, 97, &[rec("a", "2022-01-01")], asc));
        let desc = Order::Descending;
        assert!(chains(Some(&tail), 97, &[rec("y", "2022-01-03")], desc));
        assert!(!chains(Some(&tail), 97, &[rec("y", "2021-12-31")], desc));
    }
}
