//! Ids with their names for shell completion (`crmdash api GET contacts/<TAB>`): by id prefix
//! through the `(resource, id)` index, by name through the search index, or the most recently
//! updated. Every query is indexed: completion must answer in a few milliseconds at 100,000
//! records.

use rusqlite::params;

use super::{Mirror, MirrorError, Resource, SearchQuery};

impl Mirror {
    /// Up to `limit` `(id, label)` of `resource`: ids starting with `typed` first, then
    /// records whose name matches it (as search does); for nothing typed, the most recently
    /// updated. Records gone from the server are left out.
    pub fn complete_ids(
        &self,
        resource: Resource,
        typed: &str,
        limit: usize,
    ) -> Result<Vec<(String, String)>, MirrorError> {
        let sq = |e| MirrorError::sqlite(&self.path, e);
        let noun = resource.noun();
        let mut out: Vec<(String, String)> = Vec::new();
        if typed.trim().is_empty() {
            // The resource's own partial index of live records by update time; without it
            // during a first sync's bulk phase (`deferred`).
            let hint = format!("INDEXED BY {noun}_by_updated_us");
            let rows = super::deferred::or_unindexed(&hint, |indexed| {
                let sql = format!(
                    "SELECT id, packed FROM records {indexed} \
                     WHERE resource = '{noun}' AND gone_at IS NULL \
                     ORDER BY updated_us DESC, id DESC LIMIT ?1"
                );
                self.conn
                    .prepare_cached(&sql)
                    .and_then(|mut s| {
                        s.query_map(params![limit as i64], |r| Ok((r.get(0)?, r.get(1)?)))?
                            .collect::<rusqlite::Result<Vec<(String, String)>>>()
                    })
                    .map_err(sq)
            })?;
            for (id, packed) in rows {
                out.push((id, self.label_of(resource, &packed)?));
            }
            return Ok(out);
        }
        // `id` in [typed, typed + U+10FFFF): a range of the unique (resource, id) index.
        let upper = format!("{typed}\u{10FFFF}");
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT id, packed FROM records WHERE resource = ?1 AND id >= ?2 AND id < ?3 \
                 AND gone_at IS NULL ORDER BY id LIMIT ?4",
            )
            .map_err(sq)?;
        let rows = stmt
            .query_map(params![noun, typed, upper, limit as i64], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
            })
            .map_err(sq)?;
        for row in rows {
            let (id, packed) = row.map_err(sq)?;
            out.push((id, self.label_of(resource, &packed)?));
        }
        if out.len() < limit {
            let found = self.search(&SearchQuery {
                text: typed.to_string(),
                resources: vec![resource],
                limit: limit - out.len(),
            })?;
            for hit in found.groups.into_iter().flat_map(|g| g.hits) {
                if !out.iter().any(|(id, _)| *id == hit.id) {
                    out.push((hit.id, hit.label));
                }
            }
        }
        out.truncate(limit);
        Ok(out)
    }

    /// A stored record's label (derived from the record, as a search hit's).
    fn label_of(&self, resource: Resource, packed: &str) -> Result<String, MirrorError> {
        let raw = self.unpack(packed)?;
        Ok(super::search::shown(resource, &raw).label)
    }
}
