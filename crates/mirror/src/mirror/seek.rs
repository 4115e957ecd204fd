//! Lists read from the mirror as the service would send them: every record a query matches,
//! in its order, in keyset batches (each batch seeks past the last row of the one before in
//! the sort index: a million records cost one pass, where OFFSET pages would step over the
//! skipped rows again on every page), inside one read transaction (a sync writing meanwhile
//! is not seen half way), and each record stripped of the includes the query did not ask for
//! (the mirror keeps every include the sync fetched).

use rusqlite::params_from_iter;
use rusqlite::types::Value as SqlValue;
use serde_json::value::RawValue;

use super::doc::Mirrored;
use super::rows::{Clauses, MirrorPage, MirrorQuery};
use super::{Mirror, MirrorError, Resource};
use crate::api::{ApiRecord, ListQuery};

/// The includes a query did not ask for: the keys to take out of a stored record so it
/// equals what the service sends for that query.
fn left_out<Q: ListQuery>(q: &Q) -> Vec<&'static str> {
    let asked: Vec<String> = q
        .to_pairs()
        .map(|pairs| {
            pairs
                .into_iter()
                .filter(|(k, _)| *k == "include")
                .flat_map(|(_, v)| v.split(',').map(str::to_string).collect::<Vec<_>>())
                .collect()
        })
        .unwrap_or_default();
    Q::RESOURCE
        .includes()
        .iter()
        .copied()
        .filter(|name| !asked.iter().any(|a| a == name))
        .collect()
}

/// The record's text without the top-level keys in `left_out`: the other entries keep their
/// order and their bytes (the service writes compact JSON, so the result is what it sends).
/// Text that is not an object, or holds none of those keys, comes back as it was.
pub(crate) fn without_keys(raw: String, left_out: &[&str]) -> String {
    if left_out.is_empty() {
        return raw;
    }
    let Some(entries) = serde_json::from_str::<&RawValue>(&raw)
        .ok()
        .and_then(crate::output::top_level)
    else {
        return raw;
    };
    if !entries.iter().any(|(k, _)| left_out.contains(&k.as_str())) {
        return raw;
    }
    let mut out = String::with_capacity(raw.len());
    out.push('{');
    for (k, v) in entries
        .iter()
        .filter(|(k, _)| !left_out.contains(&k.as_str()))
    {
        if out.len() > 1 {
            out.push(',');
        }
        out.push_str(&serde_json::Value::from(k.as_str()).to_string());
        out.push(':');
        out.push_str(v.get());
    }
    out.push('}');
    out
}

fn typed<T: Mirrored>(raw: String) -> Option<T> {
    T::from_raw(RawValue::from_string(raw).ok()?).ok()
}

/// One keyset read of a run: the rows with (`IS NOT NULL`) or without (`IS NULL`) a value in
/// the sort column, after `(value, id)` of the last row read when `seeking`, in index order.
/// Parameters: the conditions' own, then the cursor's value and id, then the batch size.
/// `indexed`: the `INDEXED BY` clause naming the sort index, or nothing (see `or_unindexed`).
fn seek_sql(c: &Clauses, test: &str, seeking: bool, indexed: &str) -> String {
    let (_, col, desc) = c.order();
    let (cond, args) = c.condition();
    let n = args.len();
    let (dir, cmp) = if desc { ("DESC", "<") } else { ("ASC", ">") };
    let seek = match (seeking, test) {
        (false, _) => String::new(),
        (true, "IS NULL") => format!(" AND id {cmp} ?{}", n + 2),
        (true, _) => format!(" AND ({col}, id) {cmp} (?{}, ?{})", n + 1, n + 2),
    };
    format!(
        "SELECT {col}, id, packed FROM records {indexed} \
         WHERE {cond} AND {col} {test}{seek} ORDER BY {col} {dir}, id {dir} LIMIT ?{}",
        n + 3,
    )
}

impl Mirror {
    /// Runs `f` in one read transaction: every statement it runs sees the mirror as it was
    /// at the first read (WAL), so a sync committing meanwhile cannot shift a walk.
    pub fn in_snapshot<T>(&self, f: impl FnOnce(&Mirror) -> T) -> Result<T, MirrorError> {
        let read = self.conn.unchecked_transaction().map_err(|e| self.err(e))?;
        let out = f(self);
        // A read: nothing to commit; dropping ends it.
        drop(read);
        Ok(out)
    }

    /// A stored record as the service sends it for a query leaving out `left_out`.
    fn as_sent<T: Mirrored>(
        &self,
        packed: &str,
        left_out: &[&str],
    ) -> Result<Option<T>, MirrorError> {
        Ok(typed(without_keys(self.unpack(packed)?, left_out)))
    }

    /// One page of `q` (its paging) from the mirror, each record as the service sends it for
    /// `q` (includes it did not ask for left out).
    pub fn page_as_sent<Q: MirrorQuery>(&self, q: &Q) -> Result<MirrorPage<Q::Item>, MirrorError> {
        let mut page = self.list(q)?;
        let left_out = left_out(q);
        if !left_out.is_empty() {
            page.page.data = std::mem::take(&mut page.page.data)
                .into_iter()
                .filter_map(|r| typed(without_keys(r.raw().get().to_string(), &left_out)))
                .collect();
        }
        Ok(page)
    }

    /// Every live record `q` matches (its paging ignored), in its order (the service's: the
    /// records without a value in the sort column last ascending, first descending; ties by
    /// id), handed to `f` in batches of `batch` as the service sends them for `q`. Each batch
    /// is one indexed seek past the previous one; only one batch is held. An error from `f`
    /// (a closed pipe) stops the walk. Returns how many records were handed over.
    pub fn each_seek<Q, E>(
        &self,
        q: &Q,
        batch: usize,
        mut f: impl FnMut(Vec<Q::Item>) -> Result<(), E>,
    ) -> Result<u64, E>
    where
        Q: MirrorQuery,
        E: From<MirrorError>,
    {
        let c = q.clauses();
        let (r, col, desc) = c.order();
        let indexed = format!("INDEXED BY {}_by_{col}", r.noun());
        let (_, args) = c.condition();
        let left_out = left_out(q);
        let batch = batch.max(1);
        let runs = if desc {
            ["IS NULL", "IS NOT NULL"]
        } else {
            ["IS NOT NULL", "IS NULL"]
        };
        let mut handed = 0u64;
        for test in runs {
            let mut cursor: Option<(SqlValue, String)> = None;
            loop {
                let seeking = cursor.is_some();
                let mut bound = args.to_vec();
                let (value, id) = match cursor.take() {
                    Some((v, id)) => (v, SqlValue::Text(id)),
                    None => (SqlValue::Null, SqlValue::Null),
                };
                bound.extend([value, id, SqlValue::Integer(batch as i64)]);
                // A batch is read whole before `f` sees it: a retry hands nothing twice.
                let (items, read, last) = super::deferred::or_unindexed(&indexed, |indexed| {
                    let sql = seek_sql(&c, test, seeking, indexed);
                    self.seek_batch::<Q::Item>(&sql, &bound, batch, &left_out)
                })?;
                handed += items.len() as u64;
                if !items.is_empty() {
                    f(items)?;
                }
                if read < batch {
                    break;
                }
                cursor = last;
            }
        }
        Ok(handed)
    }

    /// One batch: its records, how many rows were read, and the last row's `(value, id)`.
    #[allow(clippy::type_complexity)]
    fn seek_batch<T: Mirrored>(
        &self,
        sql: &str,
        bound: &[SqlValue],
        batch: usize,
        left_out: &[&str],
    ) -> Result<(Vec<T>, usize, Option<(SqlValue, String)>), MirrorError> {
        let mut stmt = self.conn.prepare_cached(sql).map_err(|e| self.err(e))?;
        let mut rows = stmt
            .query(params_from_iter(bound.iter()))
            .map_err(|e| self.err(e))?;
        let mut items = Vec::with_capacity(batch);
        let mut read = 0;
        let mut last = None;
        while let Some(row) = rows.next().map_err(|e| self.err(e))? {
            read += 1;
            let value: SqlValue = row.get(0).map_err(|e| self.err(e))?;
            let id: String = row.get(1).map_err(|e| self.err(e))?;
            let packed: String = row.get(2).map_err(|e| self.err(e))?;
            items.extend(self.as_sent::<T>(&packed, left_out)?);
            last = Some((value, id));
        }
        Ok((items, read, last))
    }

    /// How many live records of `r` have no value in `column` (one of its sort columns: a
    /// time the mirror could not read). A filter on that column cannot be answered for them.
    pub fn without_value(&self, r: Resource, column: &'static str) -> Result<u64, MirrorError> {
        let n = r.noun();
        super::deferred::or_unindexed(&format!("INDEXED BY {n}_by_{column}"), |indexed| {
            let sql = format!(
                "SELECT count(*) FROM records {indexed} \
                 WHERE resource = '{n}' AND gone_at IS NULL AND {column} IS NULL"
            );
            self.conn
                .prepare_cached(&sql)
                .and_then(|mut s| s.query_row([], |row| row.get::<_, i64>(0)))
                .map(|n| n.max(0) as u64)
                .map_err(|e| self.err(e))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::without_keys;

    #[test]
    fn left_out_keys_go_the_rest_keeps_its_bytes_and_order() {
        let raw = r#"{"zeta":1,"accounts":[{"id":"a","name":"X"}],"email":"a\u00e9@b.c","assigned_user":null,"id":"c1"}"#;
        assert_eq!(
            without_keys(raw.into(), &["accounts", "assigned_user", "assigned_users"]),
            r#"{"zeta":1,"email":"a\u00e9@b.c","id":"c1"}"#
        );
        // Nothing to take out: the very same text.
        let plain = r#"{ "id" : "c1" }"#;
        assert_eq!(without_keys(plain.into(), &["accounts"]), plain);
        assert_eq!(without_keys("[1]".into(), &["accounts"]), "[1]");
        assert_eq!(
            without_keys(r#"{"accounts":[]}"#.into(), &["accounts"]),
            "{}"
        );
    }
}
