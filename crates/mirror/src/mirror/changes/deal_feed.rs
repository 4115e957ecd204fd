//! What the pipeline-over-time reports read from the mirror: every deal as stored (gone ones
//! too) and the deals' changes that touch their status, value or currency (or their being
//! there: created, gone, back), each in one pass: the changes in (id, seq) order through the
//! `changes_record` index, so a deal's changes come together and no deal is queried apart.

use rusqlite::params;
use serde_json::value::RawValue;

use super::super::store::Mirror;
use super::super::{MirrorError, Resource};
use super::{ChangeKind, RecordChange, decode, from_secs, resource_code};
use crate::api::{ApiRecord, Deal};

/// The meta key that remembers when the deals' first full sync completed: their history
/// starts there.
pub(in crate::mirror) const FEED_FROM_DEALS: &str = "feed_from.deals";

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
}
