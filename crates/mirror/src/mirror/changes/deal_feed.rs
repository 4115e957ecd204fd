//! What the pipeline-over-time reports read from the mirror: every deal as stored (gone ones
//! too) and the deals' changes that touch their status, value or currency (or their being
//! there: created, gone, back), each in one pass: the changes in the table's own order (by
//! `seq`: pages read one after the other, never a lookup per row), no deal queried apart.

use rusqlite::{OptionalExtension, params};
use serde_json::value::RawValue;

use super::super::packed::fields::{Stored, each_top_level};
use super::super::store::Mirror;
use super::super::{MirrorError, Resource};
use super::{ChangeKind, FieldChange, encode, insert, resource_code};
use crate::api::{ApiRecord, Deal, Money, Timestamp};

/// The meta key that remembers when the deals' first full sync completed: their history
/// starts there.
pub(in crate::mirror) const FEED_FROM_DEALS: &str = "feed_from.deals";
/// The meta key saying the deals' history before their first sync was made up (`--demo`).
const DEMO_HISTORY: &str = "demo_history.deals";

/// A stored deal's fields the pipeline-over-time reports read.
#[derive(Debug, Clone, PartialEq)]
pub struct DealFacts {
    pub id: String,
    pub name: Option<String>,
    pub status: Option<String>,
    pub value: Option<Money>,
    pub currency: Option<String>,
    /// Seconds since 1970.
    pub updated_at: Option<i64>,
    pub gone: bool,
}

/// A stored text: a JSON string's content (`None` for anything else).
fn text(s: Stored<'_>) -> Option<String> {
    match s {
        Stored::Json(t) if t.starts_with('"') => serde_json::from_str(t).ok(),
        _ => None,
    }
}

impl DealFacts {
    /// From the stored text, as [`Deal`] decodes the same fields; `None` when the text is not
    /// one packing leaves (the caller reads the record whole).
    fn read(id: &str, packed: &str, gone: bool) -> Option<DealFacts> {
        let mut d = DealFacts {
            id: id.to_string(),
            name: None,
            status: None,
            value: None,
            currency: None,
            updated_at: None,
            gone,
        };
        each_top_level(packed, |k, v| match k {
            "name" => d.name = text(v),
            "status" => d.status = text(v),
            "currency" => d.currency = text(v),
            "value" => {
                d.value = match v {
                    Stored::Json(t) if t.starts_with('"') => text(v).map(|s| Money::parse(&s)),
                    Stored::Json(t) if t != "null" => Some(Money::parse(t)),
                    _ => None,
                }
            }
            "updated_at" => {
                d.updated_at = match v {
                    Stored::Time(us) => Some(us.div_euclid(1_000_000)),
                    other => text(other)
                        .and_then(|t| Timestamp::parse(&t).instant())
                        .map(|t| t.timestamp()),
                }
            }
            _ => {}
        })?;
        Some(d)
    }

    fn of(deal: &Deal, gone: bool) -> DealFacts {
        DealFacts {
            id: deal.id.clone(),
            name: deal.name.clone(),
            status: deal.status.clone(),
            value: deal.value.clone(),
            currency: deal
                .extra
                .get("currency")
                .and_then(|v| v.as_str())
                .map(str::to_string),
            updated_at: deal
                .updated_at
                .as_ref()
                .and_then(Timestamp::instant)
                .map(|t| t.timestamp()),
            gone,
        }
    }
}

impl Mirror {
    /// Every stored deal's fields the reports read (gone ones too, said by the flag), in id
    /// order: read straight from the stored text (nothing unpacked), or from the whole record
    /// when that text cannot be read so.
    pub fn each_deal_stored(&self, mut f: impl FnMut(DealFacts)) -> Result<(), MirrorError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT id, packed, gone_at IS NOT NULL FROM records WHERE resource = ?1
                 ORDER BY id",
            )
            .map_err(|e| self.err(e))?;
        let mut rows = stmt
            .query([Resource::Deals.noun()])
            .map_err(|e| self.err(e))?;
        while let Some(row) = rows.next().map_err(|e| self.err(e))? {
            let get = |e| self.err(e);
            let id: &str = row
                .get_ref(0)
                .map_err(get)?
                .as_str()
                .map_err(|e| self.err(e.into()))?;
            let packed: &str = row
                .get_ref(1)
                .map_err(get)?
                .as_str()
                .map_err(|e| self.err(e.into()))?;
            let gone: bool = row.get(2).map_err(get)?;
            let facts = match DealFacts::read(id, packed, gone) {
                Some(facts) => facts,
                None => {
                    let raw = self.unpack(packed)?;
                    let Some(deal) = RawValue::from_string(raw)
                        .ok()
                        .and_then(|r| Deal::from_raw(r).ok())
                    else {
                        continue;
                    };
                    DealFacts::of(&deal, gone)
                }
            };
            f(facts);
        }
        Ok(())
    }

    /// The deals' changes of their status, value or currency, and every created, gone and
    /// back, in `seq` order (a deal's changes in the order they were stored), each handed to
    /// `f` as it is stored: when it was seen (seconds), the deal's id, its kind and its fields
    /// (a JSON array of `[path, old, new]`, none for created and gone), borrowed from the row.
    pub fn each_deal_change(
        &self,
        mut f: impl FnMut(i64, &str, ChangeKind, Option<&str>),
    ) -> Result<(), MirrorError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT at, id, kind, fields FROM changes NOT INDEXED
                 WHERE resource = ?1 AND (kind <> ?2 OR fields LIKE '%[\"status\",%'
                   OR fields LIKE '%[\"value\",%' OR fields LIKE '%[\"currency\",%')
                 ORDER BY seq",
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
            let at: i64 = row.get(0).map_err(get)?;
            let kind = ChangeKind::from_code(row.get(2).map_err(get)?);
            let id = row.get_ref(1).map_err(get)?.as_str().ok();
            let fields = row.get_ref(3).map_err(get)?.as_str().ok();
            if let Some(id) = id {
                f(at, id, kind, fields);
            }
        }
        Ok(())
    }

    /// When the deals' history starts, as far as the mirror remembers: their first full sync
    /// (remembered since this version); `None` before it. The loader also takes the oldest
    /// change it reads, for mirrors older than that.
    pub fn deal_feed_from(&self) -> Result<Option<i64>, MirrorError> {
        self.conn
            .query_row(
                "SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?1",
                [FEED_FROM_DEALS],
                |r| r.get::<_, i64>(0),
            )
            .optional()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mirror::SyncState;

    fn deal(json: &str) -> Deal {
        Deal::from_raw(RawValue::from_string(json.to_string()).unwrap()).unwrap()
    }

    #[test]
    fn the_stored_text_reads_as_the_whole_record_decodes() {
        let dir = tempfile::tempdir().unwrap();
        let mut m = Mirror::open(&dir.path().join("m.sqlite3")).unwrap().mirror;
        let deals: Vec<Deal> = [
            r#"{"id":"d1","name":"Caf\u00e9 \"A\"","status":"won","value":"12.50","currency":"eur","updated_at":"2026-11-01T10:00:00.000000Z"}"#,
            r#"{"id":"d2","name":"B","status":"open","value":1200,"updated_at":"2026-11-01T10:00:00+01:00"}"#,
            r#"{"id":"d3","value":null,"currency":"USD","account":{"id":"a1","name":"Acme"}}"#,
            r#"{"id":"d4","name":"D","status":"lost","value":"n/a","updated_at":"2026-11-02"}"#,
        ]
        .iter()
        .map(|j| deal(j))
        .collect();
        m.apply_page(&deals, None, &SyncState::default()).unwrap();
        let mut read = Vec::new();
        m.each_deal_stored(|d| read.push(d)).unwrap();
        let whole: Vec<DealFacts> = deals.iter().map(|d| DealFacts::of(d, false)).collect();
        assert_eq!(read, whole);
        assert_eq!(read[0].name.as_deref(), Some("Café \"A\""));
        assert_eq!(
            read[1].value.as_ref().and_then(Money::decimal),
            Some(1200.into())
        );
        assert_eq!(read[1].updated_at, Some(1_793_523_600));
    }
}
