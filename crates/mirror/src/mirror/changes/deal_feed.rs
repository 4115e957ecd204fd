//! What the pipeline-over-time reports read from the mirror: every deal as stored (gone ones
//! too) and the deals' changes that touch their status, value or currency (or their being
//! there: created, gone, back), each in one pass: the changes in (id, seq) order through the
//! `changes_record` index, so a deal's changes come together and no deal is queried apart.

use rusqlite::params;
use serde_json::value::RawValue;

use super::super::store::Mirror;
use super::super::{MirrorError, Resource};
use super::{
    ChangeKind, FieldChange, RecordChange, decode, encode, from_secs, insert, resource_code,
};
use crate::api::{ApiRecord, Deal};

/// The meta key that remembers when the deals' first full sync completed: their history
/// starts there.
pub(in crate::mirror) const FEED_FROM_DEALS: &str = "feed_from.deals";
/// The meta key saying the deals' history before their first sync was made up (`--demo`).
const DEMO_HISTORY: &str = "demo_history.deals";

impl Mirror {
    /// Every stored deal (gone ones too, said by the flag), in id order.
    pub fn each_deal_stored(&self, mut f: impl FnMut(Deal, bool)) -> Result<(), MirrorError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT packed, gone_at IS NOT NULL FROM records WHERE resource = ?1 ORDER BY id",
            )
            .map_err(|e| self.err(e))?;
        let mut rows = stmt
            .query([Resource::Deals.noun()])
            .map_err(|e| self.err(e))?;
        while let Some(row) = rows.next().map_err(|e| self.err(e))? {
            let packed: String = row.get(0).map_err(|e| self.err(e))?;
            let gone: bool = row.get(1).map_err(|e| self.err(e))?;
            let raw = self.unpack(&packed)?;
            let Some(deal) = RawValue::from_string(raw)
                .ok()
                .and_then(|r| Deal::from_raw(r).ok())
            else {
                continue;
            };
            f(deal, gone);
        }
        Ok(())
    }

    /// The deals' changes of their status, value or currency, and every created, gone and
    /// back, in (id, seq) order.
    pub fn each_deal_change(&self, mut f: impl FnMut(RecordChange)) -> Result<(), MirrorError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT seq, at, id, kind, fields FROM changes INDEXED BY changes_record
                 WHERE resource = ?1 AND (kind <> ?2 OR fields LIKE '%[\"status\",%'
                   OR fields LIKE '%[\"value\",%' OR fields LIKE '%[\"currency\",%')
                 ORDER BY id, seq",
            )
            .map_err(|e| self.err(e))?;
        let mut rows = stmt
            .query(params![
                resource_code(Resource::Deals),
                ChangeKind::Updated.code()
            ])
            .map_err(|e| self.err(e))?;
        while let Some(row) = rows.next().map_err(|e| self.err(e))? {
            let get = |e| self.err(e);
            let fields: Option<String> = row.get(4).map_err(get)?;
            f(RecordChange {
                seq: row.get(0).map_err(get)?,
                at: from_secs(row.get(1).map_err(get)?),
                resource: Resource::Deals,
                id: row.get(2).map_err(get)?,
                kind: ChangeKind::from_code(row.get(3).map_err(get)?),
                fields: decode(fields.as_deref()),
            });
        }
        Ok(())
    }

    /// When the deals' history starts: their first full sync (remembered since this version),
    /// or their oldest change kept when it is older; `None` before any.
    pub fn deal_feed_from(&self) -> Result<Option<i64>, MirrorError> {
        self.conn
            .query_row(
                "SELECT min(coalesce((SELECT CAST(value AS INTEGER)
                                      FROM meta WHERE key = ?1), 9223372036854775807),
                            coalesce((SELECT min(at) FROM changes WHERE resource = ?2),
                                     9223372036854775807))",
                params![FEED_FROM_DEALS, resource_code(Resource::Deals)],
                |r| r.get::<_, i64>(0),
            )
            .map(|t| (t != i64::MAX).then_some(t))
            .map_err(|e| self.err(e))
    }

    /// Writes a made-up past of the deals (`--demo` only) into the feed: each change an
    /// update of a deal seen at its time (seconds), oldest first, ending in the deal's stored
    /// state. The deals' history then starts at `from`, and says it is demo data.
    pub fn add_demo_deal_history(
        &self,
        changes: &[(i64, String, Vec<FieldChange>)],
        from: i64,
    ) -> Result<(), MirrorError> {
        let tx = self.conn.unchecked_transaction().map_err(|e| self.err(e))?;
        for (at, id, fields) in changes {
            insert(
                &tx,
                *at,
                Resource::Deals,
                id,
                ChangeKind::Updated,
                encode(fields),
            )
            .map_err(|e| self.err(e))?;
        }
        for (key, value) in [
            (FEED_FROM_DEALS, from.to_string()),
            (DEMO_HISTORY, "1".into()),
        ] {
            tx.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)",
                params![key, value],
            )
            .map_err(|e| self.err(e))?;
        }
        tx.commit().map_err(|e| self.err(e))
    }

    /// Whether the deals' history holds a made-up past (`--demo`).
    pub fn has_demo_deal_history(&self) -> Result<bool, MirrorError> {
        self.conn
            .query_row(
                "SELECT count(*) FROM meta WHERE key = ?1",
                [DEMO_HISTORY],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n > 0)
            .map_err(|e| self.err(e))
    }
}
