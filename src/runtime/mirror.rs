//! The runtime's side of the local mirror: one read connection, opened on first use and
//! used only on the blocking pool (SQLite calls block: the loop never waits on disk), what
//! the sync job needs (`runtime::jobs::sync`: one sync at a time; its client waits at the
//! priority gate while the dashboard's own requests are in flight), and the offline
//! fallback of page requests.

use std::sync::{Arc, Mutex};

use tokio::sync::mpsc::UnboundedSender;

use crate::api::{ApiError, ApiRecord, Client, Deal, ErrorKind, Lane, ListQuery, PriorityGate};
use crate::app::mirror::{LinkKind, MirrorMessage, RecordRef, RelatedRecords};
use crate::app::resources::{ColumnId, Descriptor, WithQuery};
use crate::app::table::record::CellFormat;
use crate::app::table::record::{Mirrored as MirroredMark, TableRecord, build_page};
use crate::app::{FetchedPage, Message, QuerySpec};
use crate::config::CacheSettings;
use crate::mirror::sync::SyncOptions;
use crate::mirror::{
    HolderLock, Mirror, MirrorError, MirrorLocation, MirrorQuery, SearchQuery, SearchResults,
};
use crate::resource::Resource;

/// Hits per resource the search dialog shows.
pub const SEARCH_LIMIT: usize = 20;

/// Whether an error means the service cannot be reached (refused, DNS, timeout): the
/// dashboard then answers from the mirror and says it is offline.
pub fn unreachable(e: &ApiError) -> bool {
    matches!(e.kind, ErrorKind::Network | ErrorKind::Timeout) && e.status.is_none()
}

/// The mirror of the dashboard's profile and base URL.
pub struct MirrorRuntime {
    location: MirrorLocation,
    cache: CacheSettings,
    /// Opened on first use; `None` again after a failure (reopened next time).
    reader: Arc<Mutex<Option<Mirror>>>,
    gate: Arc<PriorityGate>,
    /// The background lane's client (none until a token is known).
    client: Option<Client>,
    format: CellFormat,
    /// Held by the sync job running on this mirror (see [`SyncCx::turn`]).
    turn: Arc<tokio::sync::Mutex<()>>,
    /// This dashboard's hold on the mirror: `cache clear` refuses while it is held.
    _holder: Option<HolderLock>,
    /// Where a damaged mirror found by a read is said (once; the app keeps it quiet after).
    notify: Option<UnboundedSender<Message>>,
}

impl MirrorRuntime {
    /// `None` when `[cache] enabled = false` or no cache directory is known.
    pub fn new(
        cache: &CacheSettings,
        profile: &str,
        base_url: &str,
        format: CellFormat,
    ) -> Option<MirrorRuntime> {
        let location = MirrorLocation::for_settings(cache, profile, base_url).ok()?;
        let holder = HolderLock::acquire(&location.db_path())
            .inspect_err(|e| tracing::warn!(error = %e, "cannot mark the mirror as open"))
            .ok();
        Some(MirrorRuntime {
            location,
            cache: cache.clone(),
            reader: Arc::new(Mutex::new(None)),
            gate: PriorityGate::new(),
            client: None,
            format,
            turn: Arc::new(tokio::sync::Mutex::new(())),
            _holder: holder,
            notify: None,
        })
    }

    /// Where reads say that the mirror is damaged.
    pub fn notify(&mut self, tx: UnboundedSender<Message>) {
        self.notify = Some(tx);
    }

    /// The mirror of another profile and base URL, with the same settings (`None` when no
    /// cache directory is known).
    pub fn for_profile(&self, profile: &str, base_url: &str) -> Option<MirrorRuntime> {
        let mut m = MirrorRuntime::new(&self.cache, profile, base_url, self.format.clone())?;
        m.notify = self.notify.clone();
        Some(m)
    }

    /// The dashboard's client for its own requests (foreground lane); the sync gets a
    /// background clone of it.
    pub fn adopt_client(&mut self, client: &Client) -> Client {
        self.client = Some(client.with_lane(self.gate.clone(), Lane::Background));
        client.with_lane(self.gate.clone(), Lane::Foreground)
    }

    /// Hands the read connection's page cache back ([`Mirror::release_cache`]) when no read
    /// holds it: called from the loop's idle trim, so it never waits for a read.
    pub fn release_cache(&self) {
        let Ok(guard) = self.reader.try_lock() else {
            return;
        };
        if let Some(m) = guard.as_ref()
            && let Err(e) = m.release_cache()
        {
            tracing::debug!(error = %e, "mirror cache not released");
        }
    }

    /// A handle for reads on the blocking pool.
    pub fn reader(&self) -> MirrorReader {
        MirrorReader {
            path: self.location.db_path(),
            conn: self.reader.clone(),
            format: self.format.clone(),
            notify: self.notify.clone(),
        }
    }

    /// What a sync job of this mirror needs (`runtime::jobs::sync`); `SyncWaiting` goes to
    /// `tx`.
    pub(super) fn sync_cx(&self, tx: &UnboundedSender<Message>) -> SyncCx {
        SyncCx {
            client: self.client.clone(),
            location: self.location.clone(),
            opts: SyncOptions::from_settings(&self.cache, false, Vec::new()),
            reader: self.reader.clone(),
            turn: self.turn.clone(),
            tx: tx.clone(),
        }
    }
}

/// What a sync job uses of the mirror's runtime.
pub(super) struct SyncCx {
    /// The background lane's client (none until a token is known).
    pub client: Option<Client>,
    pub location: MirrorLocation,
    pub opts: SyncOptions,
    /// The dashboard's read connection: closed when a sync replaced the file.
    pub reader: Arc<Mutex<Option<Mirror>>>,
    /// One sync of this mirror at a time, a stopped one's last writes included: a sync holds
    /// it from its start until its writer has closed the file.
    pub turn: Arc<tokio::sync::Mutex<()>>,
    /// Where a sync says that it waits for another process's.
    pub tx: UnboundedSender<Message>,
}

/// Reads from the mirror on the blocking pool.
#[derive(Clone)]
pub struct MirrorReader {
    path: std::path::PathBuf,
    conn: Arc<Mutex<Option<Mirror>>>,
    pub(super) format: CellFormat,
    notify: Option<UnboundedSender<Message>>,
}

impl MirrorReader {
    /// The mirror's file.
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    /// Runs `f` on the open mirror; `Ok(None)` when there is none on disk.
    pub(super) fn with<T>(
        &self,
        f: impl FnOnce(&Mirror) -> Result<T, MirrorError>,
    ) -> Result<Option<T>, String> {
        self.with_mut(|m| f(m))
    }

    /// [`Self::with`] for a write. A damaged mirror is said (to the app, which says it once)
    /// and left for the sync to rebuild: a read never moves anything.
    fn with_mut<T>(
        &self,
        f: impl FnOnce(&mut Mirror) -> Result<T, MirrorError>,
    ) -> Result<Option<T>, String> {
        let mut guard = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        if guard.is_none() {
            match Mirror::open_existing(&self.path) {
                Ok(Some(opened)) => {
                    // The session's connection: its caches are resident for as long.
                    if let Err(e) = opened.mirror.tune_for_dashboard() {
                        tracing::debug!(error = %e, "mirror connection not tuned");
                    }
                    *guard = Some(opened.mirror)
                }
                Ok(None) => return Ok(None),
                Err(e) => return Err(self.failed(e)),
            }
        }
        let Some(m) = guard.as_mut() else {
            return Ok(None);
        };
        match f(m) {
            Ok(v) => Ok(Some(v)),
            Err(e) => {
                // Reopened next time (after a sync rebuilt it, if it was damaged).
                *guard = None;
                Err(self.failed(e.for_read()))
            }
        }
    }

    fn failed(&self, e: MirrorError) -> String {
        if let (MirrorError::Damaged { .. }, Some(tx)) = (&e, &self.notify) {
            let _ = tx.send(Message::Mirror(MirrorMessage::Damaged(e.to_string())));
        }
        e.to_string()
    }

    /// Writes contacts the service just created into the mirror (when there is one).
    pub fn remember(&self, contacts: Vec<crate::api::Contact>) -> Result<Option<()>, String> {
        self.with_mut(|m| m.upsert(&contacts).map(|_| ()))
    }

    /// Runs a blocking read on the blocking pool.
    pub async fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce(&MirrorReader) -> Result<Option<T>, String> + Send + 'static,
    ) -> Result<Option<T>, String> {
        let me = self.clone();
        tokio::task::spawn_blocking(move || f(&me))
            .await
            .map_err(|e| format!("the mirror's disk work stopped: {e}"))?
    }

    /// When the mirror's copy of `kind` was last synced, if it is complete (a full sync
    /// finished and none is under way): a reading of every record can then come from disk.
    pub fn complete_since(
        &self,
        kind: Resource,
    ) -> Result<Option<chrono::DateTime<chrono::Utc>>, String> {
        let state = self.with(|m| m.sync_state(kind))?;
        Ok(state.and_then(|s| s.complete_since()))
    }

    /// The ids of every live record matching `spec`'s filters (`Ok(None)`: no mirror).
    pub fn matching_ids(
        &self,
        spec: &QuerySpec,
    ) -> Result<Option<crate::app::selection::IdBatch>, String> {
        self.with(|m| spec.with_query(MatchingIds(m)))
    }

    /// A page of a typed query, as the service would answer it (`Ok(None)`: no mirror).
    pub fn list<Q: MirrorQuery>(&self, q: &Q) -> Result<Option<crate::api::Page<Q::Item>>, String> {
        self.with(|m| m.list(q).map(|p| p.page))
    }

    /// A tab's page, formatted like the service's, marked as from the mirror.
    pub fn page(&self, spec: &QuerySpec) -> Result<Option<FetchedPage>, String> {
        let cols: Vec<ColumnId> = Descriptor::of(spec.kind)
            .columns
            .iter()
            .map(|c| c.id)
            .collect();
        let format = self.format.clone();
        self.with(|m| {
            spec.with_query(ListFrom {
                mirror: m,
                cols,
                format,
            })
        })
    }

    pub fn search(&self, text: &str) -> Result<Option<SearchResults>, String> {
        let q = SearchQuery {
            text: text.to_string(),
            resources: Vec::new(),
            limit: SEARCH_LIMIT,
        };
        let format = self.format.clone();
        self.with(|m| {
            let mut results = m.search(&q)?;
            // A deal's value as the table shows it (the mirror keeps it as sent).
            for g in &mut results.groups {
                if g.resource != Resource::Deals {
                    continue;
                }
                for hit in &mut g.hits {
                    let raw = serde_json::value::RawValue::from_string(hit.raw.clone());
                    if let Some(d) = raw.ok().and_then(|r| Deal::from_raw(r).ok()) {
                        let account = d.account.as_ref().map(crate::api::Related::label);
                        hit.detail = [Some(deal_summary(&d, &format)), account]
                            .into_iter()
                            .flatten()
                            .filter(|s| !s.is_empty())
                            .collect::<Vec<_>>()
                            .join(" · ");
                    }
                }
            }
            Ok(results)
        })
    }

    /// The records related to `of`.
    pub fn related(&self, of: &RecordRef) -> Result<Option<RelatedRecords>, String> {
        self.with(|m| {
            let mut groups = Vec::new();
            match of.kind {
                LinkKind::Record(Resource::Deals) => {
                    let Some(rel) = m.deal_relations(&of.id)? else {
                        return Ok(RelatedRecords {
                            groups,
                            unknown: true,
                        });
                    };
                    let account = rel.account.into_iter().filter_map(|a| {
                        let id = a.id.clone()?;
                        Some(RecordRef {
                            kind: LinkKind::Account,
                            label: a.label(),
                            detail: a
                                .fields
                                .get("website")
                                .and_then(crate::api::value_to_string)
                                .unwrap_or_default(),
                            raw: serde_json::Value::Object(a.fields).to_string().into(),
                            id,
                            note: Some("as included with the deal"),
                        })
                    });
                    groups.push(("Account", account.collect()));
                    let contacts = rel
                        .contacts
                        .into_iter()
                        .filter_map(|l| match l.record {
                            Some(c) => Some(RecordRef {
                                kind: LinkKind::Record(Resource::Contacts),
                                id: c.id.clone(),
                                label: c.label(),
                                detail: c.email.clone().unwrap_or_default(),
                                raw: c.raw().get().into(),
                                note: None,
                            }),
                            None => {
                                let id = l.related.id.clone()?;
                                Some(RecordRef {
                                    kind: LinkKind::Record(Resource::Contacts),
                                    label: l.related.label(),
                                    detail: String::new(),
                                    raw: serde_json::Value::Object(l.related.fields)
                                        .to_string()
                                        .into(),
                                    id,
                                    note: Some("not in the mirror; as included with the deal"),
                                })
                            }
                        })
                        .collect();
                    groups.push(("Contacts", contacts));
                }
                LinkKind::Record(Resource::Contacts) => {
                    groups.push((
                        "Deals",
                        deal_refs(m.deals_of_contact(&of.id)?, &self.format),
                    ));
                }
                LinkKind::Account => {
                    groups.push((
                        "Deals",
                        deal_refs(m.deals_of_account(&of.id)?, &self.format),
                    ));
                }
                LinkKind::Record(Resource::Projects) => {}
            }
            Ok(RelatedRecords {
                groups,
                unknown: false,
            })
        })
    }
}

/// A deal's status and value as the table shows them: `open · 71,645.00 PLN` (grouped, with
/// the deal's or the configured default currency).
fn deal_summary(d: &Deal, format: &CellFormat) -> String {
    let value = d.value.as_ref().map(|v| {
        let currency = crate::insights::pipeline::deal_currency(d, format.currency.as_deref());
        crate::app::table::record::money_cell(Some(v), currency.as_deref()).text
    });
    [d.status.clone(), value]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" · ")
}

/// Deals as related records: name, then [`deal_summary`].
fn deal_refs(deals: Vec<Deal>, format: &CellFormat) -> Vec<RecordRef> {
    deals
        .into_iter()
        .map(|d| {
            let detail = deal_summary(&d, format);
            RecordRef {
                kind: LinkKind::Record(Resource::Deals),
                id: d.id.clone(),
                label: d.label(),
                detail,
                raw: d.raw().get().into(),
                note: None,
            }
        })
        .collect()
}

/// A tab's typed query answered by the mirror.
struct ListFrom<'a> {
    mirror: &'a Mirror,
    cols: Vec<ColumnId>,
    format: CellFormat,
}

impl WithQuery for ListFrom<'_> {
    type Output = Result<FetchedPage, MirrorError>;

    fn run<Q>(self, query: Q) -> Self::Output
    where
        Q: ListQuery + MirrorQuery + Send + Sync + 'static,
        Q::Item: TableRecord + Send + 'static,
    {
        let answer = self.mirror.list(&query)?;
        let mut page = build_page(answer.page, &self.cols, &self.format);
        page.mirrored = Some(MirroredMark {
            synced_at: answer.synced_at,
        });
        Ok(page)
    }
}

/// The ids a tab's typed query matches, read by the mirror.
struct MatchingIds<'a>(&'a Mirror);

impl WithQuery for MatchingIds<'_> {
    type Output = Result<crate::app::selection::IdBatch, MirrorError>;

    fn run<Q>(self, query: Q) -> Self::Output
    where
        Q: ListQuery + MirrorQuery + Send + Sync + 'static,
        Q::Item: TableRecord + Send + 'static,
    {
        let mut batch = crate::app::selection::IdBatch::with_capacity(1024);
        self.0.matching_ids(&query, |id| batch.push(id))?;
        Ok(batch.finish())
    }
}
