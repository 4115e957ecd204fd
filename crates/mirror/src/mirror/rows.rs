//! What the dashboard browses from the mirror: a tab's rows answered from disk with the API's
//! own query types (same filters, sorts and paging as the service), single records, and the
//! relations between them (a contact's deals, a deal's account and contacts).

use chrono::{DateTime, Utc};
use rusqlite::types::Value as SqlValue;
use rusqlite::{OptionalExtension, params, params_from_iter};
use serde_json::value::RawValue;

use super::doc::{Mirrored, micros};
use super::schema::rel;
use super::{Mirror, MirrorError, Resource};
use crate::api::{
    ContactQuery, ContactSort, Deal, DealQuery, DealSort, ListQuery, Meta, Page, ProjectQuery,
    ProjectSort, Related, SortDirection,
};

/// A page answered from the mirror, with the time its data was synced.
#[derive(Debug, Clone)]
pub struct MirrorPage<T> {
    pub page: Page<T>,
    /// The last sync of this resource (for "offline · data from 12:03").
    pub synced_at: Option<DateTime<Utc>>,
}

/// A related record as included on the server, and the mirrored record when there is one.
#[derive(Debug, Clone)]
pub struct LinkedRecord<T> {
    pub related: Related,
    pub record: Option<T>,
}

/// A deal's account and contacts.
#[derive(Debug, Clone)]
pub struct DealRelations {
    pub account: Option<Related>,
    pub contacts: Vec<LinkedRecord<crate::api::Contact>>,
}

/// SQL pieces of a list query: conditions with their arguments, and the sort column.
#[derive(Debug)]
pub struct Clauses {
    resource: Resource,
    conditions: Vec<String>,
    args: Vec<SqlValue>,
    sort_column: &'static str,
    descending: bool,
}

impl Clauses {
    /// Live (not gone) records of `r`, sorted by `sort_column`. The resource is written into
    /// the SQL (it is one of three nouns), so the planner can use the resource's partial
    /// indexes (`schema::sort_columns`), which a bound parameter would not let it prove.
    fn new(r: Resource, sort_column: &'static str, descending: bool) -> Clauses {
        Clauses {
            resource: r,
            conditions: vec![format!("resource = '{}' AND gone_at IS NULL", r.noun())],
            args: Vec::new(),
            sort_column,
            descending,
        }
    }

    fn contains(&mut self, column: &str, text: &Option<String>) {
        if let Some(t) = text.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
            self.args.push(SqlValue::Text(t.to_lowercase()));
            self.conditions
                .push(format!("instr({column}, ?{}) > 0", self.args.len()));
        }
    }

    fn equals(&mut self, column: &str, text: &Option<String>) {
        if let Some(t) = text.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
            self.args.push(SqlValue::Text(t.to_lowercase()));
            self.conditions
                .push(format!("{column} = ?{}", self.args.len()));
        }
    }

    /// The `WHERE` condition and its arguments (`mirror::select` reads only the ids).
    pub(super) fn condition(&self) -> (String, &[SqlValue]) {
        (self.conditions.join(" AND "), &self.args)
    }

    /// The resource, the sort column and whether it is read descending (`mirror::seek`).
    pub(super) fn order(&self) -> (Resource, &'static str, bool) {
        (self.resource, self.sort_column, self.descending)
    }

    fn after(&mut self, column: &str, t: &Option<DateTime<Utc>>) {
        if let Some(t) = t {
            self.args.push(SqlValue::Integer(micros(*t)));
            self.conditions
                .push(format!("{column} > ?{}", self.args.len()));
        }
    }
}

/// A list query the mirror can answer like the service does.
pub trait MirrorQuery: ListQuery<Item: Mirrored> {
    fn clauses(&self) -> Clauses;
}

fn descending(d: Option<SortDirection>) -> bool {
    d == Some(SortDirection::Desc)
}

impl MirrorQuery for ContactQuery {
    fn clauses(&self) -> Clauses {
        let mut c = Clauses::new(
            Self::Item::RESOURCE,
            match self.sort_by.unwrap_or(ContactSort::CreatedAt) {
                ContactSort::CreatedAt => "created_us",
                ContactSort::UpdatedAt => "updated_us",
                ContactSort::FirstName => "first_lc",
                ContactSort::LastName => "last_lc",
                ContactSort::Email => "email_lc",
            },
            descending(self.sort_direction),
        );
        c.contains("name_lc", &self.full_name);
        c.equals("email_lc", &self.email);
        c.after("created_us", &self.created_after);
        c.after("updated_us", &self.updated_after);
        c
    }
}

impl MirrorQuery for DealQuery {
    fn clauses(&self) -> Clauses {
        let mut c = Clauses::new(
            Self::Item::RESOURCE,
            match self.sort_by.unwrap_or(DealSort::CreatedAt) {
                DealSort::CreatedAt => "created_us",
                DealSort::UpdatedAt => "updated_us",
                DealSort::Name => "name_lc",
                DealSort::Status => "status_lc",
                DealSort::Value => "value_num",
            },
            descending(self.sort_direction),
        );
        c.contains("name_lc", &self.name);
        c.equals("status_lc", &self.status);
        c
    }
}

impl MirrorQuery for ProjectQuery {
    fn clauses(&self) -> Clauses {
        let mut c = Clauses::new(
            Self::Item::RESOURCE,
            match self.sort_by.unwrap_or(ProjectSort::CreatedAt) {
                ProjectSort::CreatedAt => "created_us",
                ProjectSort::UpdatedAt => "updated_us",
                ProjectSort::Name => "name_lc",
                ProjectSort::Status => "status_lc",
                ProjectSort::StartDate => "start_us",
                ProjectSort::EndDate => "end_us",
            },
            descending(self.sort_direction),
        );
        c.contains("name_lc", &self.name);
        c.equals("status_lc", &self.status);
        c
    }
}

/// A record as the server sent it back into its typed form.
fn decode<T: Mirrored>(raw: String) -> Option<T> {
    let raw = RawValue::from_string(raw).ok()?;
    T::from_raw(raw).ok()
}

/// One run of a listing: the records with (`IS NOT NULL`) or without (`IS NULL`) a value in
/// the sort column, in the index's order.
struct Run {
    test: &'static str,
    len: u64,
    /// Where the run starts among all the listing's records.
    at: u64,
}

impl Mirror {
    /// The server's text of a stored record.
    pub(super) fn unpack(&self, packed: &str) -> Result<String, MirrorError> {
        self.parts
            .unpack(&self.conn, packed)
            .map_err(|e| self.err(e))
    }

    fn typed<T: Mirrored>(&self, packed: &str) -> Result<Option<T>, MirrorError> {
        Ok(decode(self.unpack(packed)?))
    }

    /// How many live records `c` matches. Unfiltered: the count the triggers keep (`schema`),
    /// not a count of every row.
    fn matching(&self, r: Resource, c: &Clauses) -> Result<u64, MirrorError> {
        let total: i64 = if c.conditions.len() == 1 {
            self.conn
                .prepare_cached(
                    "SELECT coalesce((SELECT n FROM live_counts WHERE resource = ?1), 0)",
                )
                .and_then(|mut s| s.query_row([r.noun()], |row| row.get(0)))
        } else {
            let cond = c.conditions.join(" AND ");
            self.conn
                .prepare_cached(&format!("SELECT count(*) FROM records WHERE {cond}"))
                .and_then(|mut s| s.query_row(params_from_iter(c.args.iter()), |row| row.get(0)))
        }
        .map_err(|e| self.err(e))?;
        Ok(total as u64)
    }

    /// The two runs of a listing in its order: records without a value in the sort column
    /// come last ascending, first descending. Each run is read in the order of an index, so
    /// a page's rows are found without sorting every record.
    fn runs(&self, c: &Clauses, total: u64) -> Result<[Run; 2], MirrorError> {
        let cond = c.conditions.join(" AND ");
        let col = c.sort_column;
        // Named, as a page's read is: left to itself the planner counts through the
        // (resource, id) index, reading every record of the resource (5 s for a page of a
        // million contacts); the sort column's index counts only the missing values.
        let indexed = format!("INDEXED BY {}_by_{col}", c.resource.noun());
        let missing: i64 = super::deferred::or_unindexed(&indexed, |indexed| {
            self.conn
                .prepare_cached(&format!(
                    "SELECT count(*) FROM records {indexed} WHERE {cond} AND {col} IS NULL"
                ))
                .and_then(|mut s| s.query_row(params_from_iter(c.args.iter()), |row| row.get(0)))
                .map_err(|e| self.err(e))
        })?;
        let missing = (missing as u64).min(total);
        let present = total - missing;
        Ok(if c.descending {
            [
                Run {
                    test: "IS NULL",
                    len: missing,
                    at: 0,
                },
                Run {
                    test: "IS NOT NULL",
                    len: present,
                    at: missing,
                },
            ]
        } else {
            [
                Run {
                    test: "IS NOT NULL",
                    len: present,
                    at: 0,
                },
                Run {
                    test: "IS NULL",
                    len: missing,
                    at: present,
                },
            ]
        })
    }

    /// Records `skip..skip + take` of one run, stored text handed to `f` in order.
    fn read_run(
        &self,
        c: &Clauses,
        test: &str,
        skip: u64,
        take: u64,
        f: &mut dyn FnMut(&str) -> Result<bool, MirrorError>,
    ) -> Result<bool, MirrorError> {
        let cond = c.conditions.join(" AND ");
        let col = c.sort_column;
        let dir = if c.descending { "DESC" } else { "ASC" };
        let n = c.args.len();
        let mut args = c.args.clone();
        args.push(SqlValue::Integer(take.min(i64::MAX as u64) as i64));
        args.push(SqlValue::Integer(skip.min(i64::MAX as u64) as i64));
        // Named: without statistics the planner would take the (resource, id) index and
        // sort every record of the resource for one page.
        let indexed = format!("INDEXED BY {}_by_{col}", c.resource.noun());
        super::deferred::or_unindexed(&indexed, |indexed| {
            let sql = format!(
                "SELECT packed FROM records {indexed} WHERE {cond} AND {col} {test}
             ORDER BY {col} {dir}, id {dir} LIMIT ?{} OFFSET ?{}",
                n + 1,
                n + 2,
            );
            self.read_packed(&sql, &args, f)
        })
    }

    /// Hands the text of every row `sql` reads (one column: `packed`) to `f` until it says stop.
    fn read_packed(
        &self,
        sql: &str,
        args: &[SqlValue],
        f: &mut dyn FnMut(&str) -> Result<bool, MirrorError>,
    ) -> Result<bool, MirrorError> {
        let mut stmt = self.conn.prepare_cached(sql).map_err(|e| self.err(e))?;
        let mut rows = stmt
            .query(params_from_iter(args.iter()))
            .map_err(|e| self.err(e))?;
        while let Some(row) = rows.next().map_err(|e| self.err(e))? {
            let packed: String = row.get(0).map_err(|e| self.err(e))?;
            if !f(&packed)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// A tab's page from the mirror: the same filters, sort (missing values last ascending,
    /// ties by id, `desc` the exact reverse) and paging as the service. Gone records are left out.
    pub fn list<Q: MirrorQuery>(&self, q: &Q) -> Result<MirrorPage<Q::Item>, MirrorError> {
        let r = Q::Item::RESOURCE;
        let c = q.clauses();
        let paging = q.paging();
        let per_page = u64::from(paging.per_page.unwrap_or(25).max(1));
        let page = u64::from(paging.page.unwrap_or(1).max(1));
        let total = self.matching(r, &c)?;
        let start = (page - 1).saturating_mul(per_page);
        let end = start.saturating_add(per_page);
        let mut packed: Vec<String> = Vec::new();
        for run in self.runs(&c, total)? {
            let from = start.max(run.at);
            let to = end.min(run.at + run.len);
            if from >= to {
                continue;
            }
            self.read_run(&c, run.test, from - run.at, to - from, &mut |p| {
                packed.push(p.to_string());
                Ok(true)
            })?;
        }
        let mut data = Vec::with_capacity(packed.len());
        for p in &packed {
            data.extend(self.typed::<Q::Item>(p)?);
        }
        Ok(MirrorPage {
            page: Page {
                data,
                meta: Some(Meta {
                    current_page: Some(page),
                    last_page: Some(total.div_ceil(per_page).max(1)),
                    per_page: Some(per_page),
                    total: Some(total),
                }),
                links: None,
            },
            synced_at: self.sync_state(r)?.last_sync_at,
        })
    }

    /// Every record `q` matches (its paging ignored), in its order, handed to `f` in batches
    /// of `batch` as the server's text: one statement per run, so a million records stream
    /// in one pass (a page walk with OFFSET would step over the skipped rows again on every
    /// page). `f` returns `false` to stop (a closed pipe). Returns how many matched.
    pub fn each_listed<Q: MirrorQuery>(
        &self,
        q: &Q,
        batch: usize,
        mut f: impl FnMut(Vec<Q::Item>) -> bool,
    ) -> Result<u64, MirrorError> {
        let c = q.clauses();
        let total = self.matching(Q::Item::RESOURCE, &c)?;
        let batch = batch.max(1);
        let mut held: Vec<Q::Item> = Vec::with_capacity(batch);
        let mut go_on = true;
        for run in self.runs(&c, total)? {
            if run.len == 0 || !go_on {
                continue;
            }
            go_on = self.read_run(&c, run.test, 0, u64::MAX >> 1, &mut |p| {
                held.extend(self.typed::<Q::Item>(p)?);
                if held.len() >= batch {
                    return Ok(f(std::mem::replace(&mut held, Vec::with_capacity(batch))));
                }
                Ok(true)
            })?;
        }
        if go_on && !held.is_empty() {
            f(held);
        }
        Ok(total)
    }

    /// Every live (not gone) record of `T`'s resource in id order, handed to `f` one at a
    /// time: a caller keeping a few fields of 100,000 contacts never holds them all decoded.
    pub fn each_live<T: Mirrored>(&self, mut f: impl FnMut(T)) -> Result<(), MirrorError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT packed FROM records WHERE resource = ?1 AND gone_at IS NULL ORDER BY id",
            )
            .map_err(|e| self.err(e))?;
        let mut rows = stmt.query([T::RESOURCE.noun()]).map_err(|e| self.err(e))?;
        while let Some(row) = rows.next().map_err(|e| self.err(e))? {
            let packed: String = row.get(0).map_err(|e| self.err(e))?;
            if let Some(record) = self.typed(&packed)? {
                f(record);
            }
        }
        Ok(())
    }

    /// One mirrored record by id (gone ones too: the caller can tell by [`Mirror::is_gone`]).
    pub fn get<T: Mirrored>(&self, id: &str) -> Result<Option<T>, MirrorError> {
        Ok(self.raw(T::RESOURCE, id)?.and_then(decode))
    }

    /// A stored record's raw JSON as the server last sent it (gone ones too).
    pub fn raw(&self, r: Resource, id: &str) -> Result<Option<String>, MirrorError> {
        super::packed::stored_raw(&self.conn, &self.parts, r, id).map_err(|e| self.err(e))
    }

    /// When a full sync found the record missing on the server.
    pub fn gone_at(&self, r: Resource, id: &str) -> Result<Option<String>, MirrorError> {
        self.conn
            .prepare_cached("SELECT gone_at FROM records WHERE resource = ?1 AND id = ?2")
            .and_then(|mut s| {
                s.query_row(params![r.noun(), id], |row| row.get::<_, Option<String>>(0))
                    .optional()
            })
            .map(Option::flatten)
            .map_err(|e| self.err(e))
    }

    /// The deals that include this contact, newest first.
    pub fn deals_of_contact(&self, contact_id: &str) -> Result<Vec<Deal>, MirrorError> {
        self.deals_linked(rel::DEAL_CONTACT, contact_id)
    }

    /// The deals of an account, newest first.
    pub fn deals_of_account(&self, account_id: &str) -> Result<Vec<Deal>, MirrorError> {
        self.deals_linked(rel::DEAL_ACCOUNT, account_id)
    }

    /// The deals linked by `code` (a deal's [`rel`] code) to `target`.
    fn deals_linked(&self, code: i64, target: &str) -> Result<Vec<Deal>, MirrorError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT r.packed FROM links l JOIN records r ON r.rid = l.rid
                 WHERE l.rel = ?1 AND l.target_id = ?2 AND r.resource = 'deals' AND r.gone_at IS NULL
                 GROUP BY r.rid ORDER BY r.updated_us DESC, r.id",
            )
            .map_err(|e| self.err(e))?;
        let packed: Vec<String> = stmt
            .query_map(params![code, target], |row| row.get::<_, String>(0))
            .and_then(|rows| rows.collect())
            .map_err(|e| self.err(e))?;
        let mut deals = Vec::with_capacity(packed.len());
        for p in &packed {
            deals.extend(self.typed(p)?);
        }
        Ok(deals)
    }

    /// A deal's account (as included by the server) and contacts (with their mirrored
    /// records). `None` when the deal is not in the mirror.
    pub fn deal_relations(&self, deal_id: &str) -> Result<Option<DealRelations>, MirrorError> {
        let Some(deal) = self.get::<Deal>(deal_id)? else {
            return Ok(None);
        };
        let mut contacts = Vec::new();
        for related in deal.contacts.unwrap_or_default() {
            let record = match &related.id {
                Some(id) => self.get(id)?,
                None => None,
            };
            contacts.push(LinkedRecord { related, record });
        }
        Ok(Some(DealRelations {
            account: deal.account,
            contacts,
        }))
    }
}
