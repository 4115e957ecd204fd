//! What the dashboard browses from the mirror: a tab's rows answered from disk with the API's
//! own query types (same filters, sorts and paging as the service), single records, and the
//! relations between them (a contact's deals, a deal's account and contacts).

use chrono::{DateTime, Utc};
use rusqlite::types::Value as SqlValue;
use rusqlite::{OptionalExtension, params, params_from_iter};
use serde_json::value::RawValue;

use super::doc::{Mirrored, sortable};
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
    conditions: Vec<String>,
    args: Vec<SqlValue>,
    sort_column: &'static str,
    descending: bool,
}

impl Clauses {
    /// Live (not gone) records of `r`, sorted by `sort_column`.
    fn new(r: Resource, sort_column: &'static str, descending: bool) -> Clauses {
        Clauses {
            conditions: vec!["resource = ?1 AND gone_at IS NULL".to_string()],
            args: vec![SqlValue::Text(r.noun().to_string())],
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

    fn after(&mut self, column: &str, t: &Option<DateTime<Utc>>) {
        if let Some(t) = t {
            self.args.push(SqlValue::Text(sortable(*t)));
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
                ContactSort::CreatedAt => "created_at",
                ContactSort::UpdatedAt => "updated_at",
                ContactSort::FirstName => "first_lc",
                ContactSort::LastName => "last_lc",
                ContactSort::Email => "email_lc",
            },
            descending(self.sort_direction),
        );
        c.contains("name_lc", &self.full_name);
        c.equals("email_lc", &self.email);
        c.after("created_at", &self.created_after);
        c.after("updated_at", &self.updated_after);
        c
    }
}

impl MirrorQuery for DealQuery {
    fn clauses(&self) -> Clauses {
        let mut c = Clauses::new(
            Self::Item::RESOURCE,
            match self.sort_by.unwrap_or(DealSort::CreatedAt) {
                DealSort::CreatedAt => "created_at",
                DealSort::UpdatedAt => "updated_at",
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
                ProjectSort::CreatedAt => "created_at",
                ProjectSort::UpdatedAt => "updated_at",
                ProjectSort::Name => "name_lc",
                ProjectSort::Status => "status_lc",
                ProjectSort::StartDate => "start_date",
                ProjectSort::EndDate => "end_date",
            },
            descending(self.sort_direction),
        );
        c.contains("name_lc", &self.name);
        c.equals("status_lc", &self.status);
        c
    }
}

/// A stored raw record back into its typed form.
fn decode<T: Mirrored>(raw: String) -> Option<T> {
    let raw = RawValue::from_string(raw).ok()?;
    T::from_raw(raw).ok()
}

impl Mirror {
    /// A tab's page from the mirror: the same filters, sort (missing values last ascending,
    /// ties by id, `desc` the exact reverse) and paging as the service. Gone records are left out.
    pub fn list<Q: MirrorQuery>(&self, q: &Q) -> Result<MirrorPage<Q::Item>, MirrorError> {
        let r = Q::Item::RESOURCE;
        let c = q.clauses();
        let paging = q.paging();
        let per_page = u64::from(paging.per_page.unwrap_or(25).max(1));
        let page = u64::from(paging.page.unwrap_or(1).max(1));
        let cond = c.conditions.join(" AND ");
        let args = &c.args;
        // Unfiltered: the count the triggers keep (`schema`), not a count of every row.
        let total: i64 = if c.conditions.len() == 1 {
            self.conn
                .prepare_cached(
                    "SELECT coalesce((SELECT n FROM live_counts WHERE resource = ?1), 0)",
                )
                .and_then(|mut s| s.query_row([r.noun()], |row| row.get(0)))
        } else {
            self.conn
                .prepare_cached(&format!("SELECT count(*) FROM records WHERE {cond}"))
                .and_then(|mut s| s.query_row(params_from_iter(args.iter()), |row| row.get(0)))
        }
        .map_err(|e| self.err(e))?;
        let col = c.sort_column;
        // Records without a value come last ascending, first descending. Read as two runs,
        // each in the order of an index (`schema::SORT_COLUMNS`): the page's rows are found
        // without sorting every record.
        let missing: i64 = self
            .conn
            .prepare_cached(&format!(
                "SELECT count(*) FROM records WHERE {cond} AND {col} IS NULL"
            ))
            .and_then(|mut s| s.query_row(params_from_iter(args.iter()), |row| row.get(0)))
            .map_err(|e| self.err(e))?;
        let (total, missing) = (total as u64, missing as u64);
        let present = total - missing;
        let start = (page - 1).saturating_mul(per_page);
        let end = start.saturating_add(per_page);
        let dir = if c.descending { "DESC" } else { "ASC" };
        // Positions [a, b) of each run, in the page's order.
        let (first, second) = if c.descending {
            (("IS NULL", missing, 0), ("IS NOT NULL", present, missing))
        } else {
            (("IS NOT NULL", present, 0), ("IS NULL", missing, present))
        };
        let mut raws: Vec<String> = Vec::new();
        for (test, len, at) in [first, second] {
            let from = start.max(at);
            let to = end.min(at + len);
            if from >= to {
                continue;
            }
            let sql = format!(
                "SELECT raw FROM records WHERE {cond} AND {col} {test}
                 ORDER BY {col} {dir}, id {dir} LIMIT {} OFFSET {}",
                to - from,
                from - at
            );
            let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.err(e))?;
            let rows = stmt
                .query_map(params_from_iter(args.iter()), |row| row.get::<_, String>(0))
                .map_err(|e| self.err(e))?;
            for raw in rows {
                raws.push(raw.map_err(|e| self.err(e))?);
            }
        }
        let data: Vec<Q::Item> = raws.into_iter().filter_map(decode).collect();
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

    /// Every live (not gone) record of `T`'s resource in id order, handed to `f` one at a
    /// time: a caller keeping a few fields of 100,000 contacts never holds them all decoded.
    pub fn each_live<T: Mirrored>(&self, mut f: impl FnMut(T)) -> Result<(), MirrorError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT raw FROM records WHERE resource = ?1 AND gone_at IS NULL ORDER BY id",
            )
            .map_err(|e| self.err(e))?;
        let mut rows = stmt.query([T::RESOURCE.noun()]).map_err(|e| self.err(e))?;
        while let Some(row) = rows.next().map_err(|e| self.err(e))? {
            let raw: String = row.get(0).map_err(|e| self.err(e))?;
            if let Some(record) = decode(raw) {
                f(record);
            }
        }
        Ok(())
    }

    /// One mirrored record by id (gone ones too: the caller can tell by [`Mirror::is_gone`]).
    pub fn get<T: Mirrored>(&self, id: &str) -> Result<Option<T>, MirrorError> {
        let raw: Option<String> = self
            .conn
            .prepare_cached("SELECT raw FROM records WHERE resource = ?1 AND id = ?2")
            .and_then(|mut s| {
                s.query_row(params![T::RESOURCE.noun(), id], |row| row.get(0))
                    .optional()
            })
            .map_err(|e| self.err(e))?;
        Ok(raw.and_then(decode))
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
        self.deals_linked("contact", contact_id)
    }

    /// The deals of an account, newest first.
    pub fn deals_of_account(&self, account_id: &str) -> Result<Vec<Deal>, MirrorError> {
        self.deals_linked("account", account_id)
    }

    fn deals_linked(&self, rel: &str, target: &str) -> Result<Vec<Deal>, MirrorError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT r.raw FROM links l JOIN records r ON r.resource = l.resource AND r.id = l.id
                 WHERE l.rel = ?1 AND l.target_id = ?2 AND l.resource = 'deals' AND r.gone_at IS NULL
                 GROUP BY r.rid ORDER BY r.updated_at DESC, r.id",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(params![rel, target], |row| row.get::<_, String>(0))
            .map_err(|e| self.err(e))?;
        Ok(rows.filter_map(|r| r.ok().and_then(decode)).collect())
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
