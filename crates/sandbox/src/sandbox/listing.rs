//! List queries: the seed's filters, sort keys, directions and includes per resource, checked
//! (422 with field errors), answered from an ordering computed once per query shape and cached
//! until the table changes, then paged without copying more than one page of records.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use serde_json::{Map, Value, json};

use super::error::Failure;
use super::store::{Related, Row, SortValue, Store, Table};
use super::timefmt::parse_instant;
use crate::resource::Resource;

/// `per_page` when the request does not say.
pub const DEFAULT_PER_PAGE: u64 = 25;
pub const MAX_PER_PAGE: u64 = 100;

/// Where an include's records come from: the listed record's field holding their ids, and
/// what they are. Every include of every [`Resource`] is here (a test checks).
const RELATIONS: &[(&str, &str, Related)] = &[
    ("accounts", "account_ids", Related::Account),
    ("account", "account_id", Related::Account),
    ("contacts", "contact_ids", Related::Contact),
    ("assigned_user", "assigned_user_id", Related::User),
    ("assigned_users", "assigned_user_ids", Related::User),
    ("owner", "owner_id", Related::User),
    ("members", "member_ids", Related::User),
];

/// The id field and related kind of include `name`.
fn relation(name: &str) -> Option<(&'static str, Related)> {
    RELATIONS
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|(_, field, related)| (*field, *related))
}

/// The store's table of a resource.
fn table_of(store: &Store, resource: Resource) -> &Table {
    match resource {
        Resource::Contacts => &store.contacts,
        Resource::Deals => &store.deals,
        Resource::Projects => &store.projects,
    }
}

/// One filter, already normalised.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Filter {
    /// `full_name` / `name`: partial, case-insensitive.
    NameContains(String),
    /// `email`: exact, case-insensitive.
    EmailIs(String),
    /// `status`: exact, case-insensitive.
    StatusIs(String),
    /// Strictly after.
    CreatedAfter(DateTime<Utc>),
    UpdatedAfter(DateTime<Utc>),
}

impl Filter {
    fn matches(&self, row: &Row) -> bool {
        match self {
            Filter::NameContains(s) => row.name_lc.contains(s.as_str()),
            Filter::EmailIs(e) => row.email_lc.as_deref() == Some(e.as_str()),
            Filter::StatusIs(s) => row.status_lc.as_deref() == Some(s.as_str()),
            Filter::CreatedAfter(t) => row.created.is_some_and(|c| c > *t),
            Filter::UpdatedAfter(t) => row.updated.is_some_and(|u| u > *t),
        }
    }
}

/// A checked list request.
#[derive(Debug, Clone, PartialEq)]
pub struct ListParams {
    resource: Resource,
    filters: Vec<Filter>,
    sort_by: &'static str,
    descending: bool,
    include: Vec<&'static str>,
    pub page: u64,
    pub per_page: u64,
}

fn positive(field: &str, raw: &str, max: Option<u64>, errors: &mut Failure) -> Option<u64> {
    match raw.trim().parse::<u64>() {
        Ok(n) if n >= 1 && max.is_none_or(|m| n <= m) => Some(n),
        _ => {
            let msg = match max {
                Some(m) => format!("The {field} must be an integer between 1 and {m}."),
                None => format!("The {field} must be an integer of at least 1."),
            };
            errors.field(field, msg);
            None
        }
    }
}

impl ListParams {
    /// Checks the query string. Unknown parameters are ignored; a repeated one counts once
    /// (the last); an empty filter value means no filter.
    pub fn parse(resource: Resource, query: Option<&str>) -> Result<ListParams, Failure> {
        let pairs: HashMap<String, String> =
            url::form_urlencoded::parse(query.unwrap_or("").as_bytes())
                .into_owned()
                .collect();
        let get = |k: &str| pairs.get(k).map(String::as_str);
        let mut errors = Failure::validation();
        let mut p = ListParams {
            resource,
            filters: Vec::new(),
            sort_by: "created_at",
            descending: false,
            include: Vec::new(),
            page: 1,
            per_page: DEFAULT_PER_PAGE,
        };
        if let Some(v) = get("page") {
            p.page = positive("page", v, None, &mut errors).unwrap_or(1);
        }
        if let Some(v) = get("per_page") {
            p.per_page = positive("per_page", v, Some(MAX_PER_PAGE), &mut errors).unwrap_or(1);
        }
        if let Some(v) = get("sort_by") {
            match resource.sort_keys().iter().find(|k| **k == v) {
                Some(k) => p.sort_by = k,
                None => errors.field(
                    "sort_by",
                    format!(
                        "The selected sort_by '{v}' is invalid; allowed: {}.",
                        resource.sort_keys().join(", ")
                    ),
                ),
            }
        }
        if let Some(v) = get("sort_direction") {
            match v {
                "asc" => p.descending = false,
                "desc" => p.descending = true,
                _ => errors.field(
                    "sort_direction",
                    format!("The selected sort_direction '{v}' is invalid; allowed: asc, desc."),
                ),
            }
        }
        if let Some(v) = get("include") {
            // Exact names, comma separated, no empty entries (as an OpenAPI `form` array with
            // at least one item: `include=` would be an empty list or a list of "").
            for part in v.split(',') {
                match resource.include(part) {
                    Some(name) if !p.include.contains(&name) => p.include.push(name),
                    Some(_) => {}
                    None => {
                        errors.field(
                            "include",
                            format!(
                                "The include '{part}' is invalid; allowed: {}.",
                                resource.includes().join(", ")
                            ),
                        );
                    }
                }
            }
        }
        let text = |k: &str| get(k).map(str::trim).filter(|v| !v.is_empty());
        match resource {
            Resource::Contacts => {
                if let Some(v) = text("full_name") {
                    p.filters.push(Filter::NameContains(v.to_lowercase()));
                }
                if let Some(v) = text("email") {
                    p.filters.push(Filter::EmailIs(v.to_lowercase()));
                }
                for (field, make) in [
                    (
                        "created_after",
                        Filter::CreatedAfter as fn(DateTime<Utc>) -> Filter,
                    ),
                    ("updated_after", Filter::UpdatedAfter),
                ] {
                    if let Some(v) = text(field) {
                        match parse_instant(v, Tz::UTC) {
                            Some(t) => p.filters.push(make(t)),
                            None => errors.field(
                                field,
                                format!("The {field} must be an RFC 3339 date-time (2025-03-04T10:11:12Z) or a date (2025-03-04)."),
                            ),
                        }
                    }
                }
            }
            Resource::Deals | Resource::Projects => {
                if let Some(v) = text("name") {
                    p.filters.push(Filter::NameContains(v.to_lowercase()));
                }
                if let Some(v) = text("status") {
                    p.filters.push(Filter::StatusIs(v.to_lowercase()));
                }
            }
        }
        if errors.has_field_errors() {
            return Err(errors);
        }
        Ok(p)
    }

    /// The cache key of the ordering this query needs (direction excluded: desc reads backwards).
    fn shape(&self) -> Shape {
        Shape {
            resource: self.resource,
            sort_by: self.sort_by,
            filters: self.filters.clone(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Shape {
    resource: Resource,
    sort_by: &'static str,
    filters: Vec<Filter>,
}

/// One ordering, computed by the first request (or warm-up) that needs it; others wait for it.
type Cell = Arc<OnceLock<Arc<Vec<u32>>>>;

/// Orderings per query shape, valid for one table version.
#[derive(Debug, Default)]
pub struct OrderCache {
    entries: HashMap<Shape, (u64, Cell)>,
}

/// Kept small: a dashboard typing a filter makes a new shape per keystroke.
const CACHE_CAPACITY: usize = 128;

/// The order key of a row: its sort value, then its id.
fn order_key<'a>(row: &'a Row, sort_by: &str) -> (SortValue, &'a str) {
    (row.sort_value(sort_by), row.id())
}

/// Row indexes matching the filters, ascending by the sort key, ties by id ascending.
fn compute_order(params: &ListParams, table: &Table) -> Vec<u32> {
    let mut keyed: Vec<((SortValue, &str), u32)> = table
        .rows
        .iter()
        .enumerate()
        .filter(|(_, r)| params.filters.iter().all(|f| f.matches(r)))
        .map(|(i, r)| (order_key(r, params.sort_by), i as u32))
        .collect();
    keyed.sort_unstable();
    keyed.into_iter().map(|(_, i)| i).collect()
}

impl OrderCache {
    /// The cell of a shape at a table version, created empty when missing or stale.
    fn cell(&mut self, shape: &Shape, version: u64) -> Cell {
        if let Some((v, cell)) = self.entries.get(shape)
            && *v == version
        {
            return cell.clone();
        }
        if self.entries.len() >= CACHE_CAPACITY {
            self.entries.retain(|_, (v, _)| *v == version);
            if self.entries.len() >= CACHE_CAPACITY {
                self.entries.clear();
            }
        }
        let cell = Cell::default();
        self.entries.insert(shape.clone(), (version, cell.clone()));
        cell
    }

    /// A row was appended to `table` (one version step): computed orderings of that table are
    /// updated (one insertion each) instead of being recomputed by the next list.
    pub fn row_added(&mut self, resource: Resource, table: &Table, index: usize) {
        let Some(row) = table.rows.get(index) else {
            return;
        };
        for (shape, (version, cell)) in &mut self.entries {
            if shape.resource != resource || *version + 1 != table.version {
                continue;
            }
            let Some(order) = cell.get() else {
                continue;
            };
            let mut order = Vec::clone(order);
            if shape.filters.iter().all(|f| f.matches(row)) {
                let key = order_key(row, shape.sort_by);
                let pos = order
                    .partition_point(|&j| order_key(&table.rows[j as usize], shape.sort_by) < key);
                order.insert(pos, index as u32);
            }
            *cell = Arc::new(OnceLock::from(Arc::new(order)));
            *version = table.version;
        }
    }
}

/// Computes the orderings of the unfiltered list queries ahead of their first request: with
/// `every_key` false only the default sort, else every sort key.
pub fn warm(store: &Store, cache: &Mutex<OrderCache>, every_key: bool) {
    for resource in [Resource::Contacts, Resource::Deals, Resource::Projects] {
        let keys = if every_key {
            resource.sort_keys()
        } else {
            &resource.sort_keys()[..1]
        };
        for key in keys {
            if let Ok(params) = ListParams::parse(resource, Some(&format!("sort_by={key}"))) {
                ordering(store, cache, &params);
            }
        }
    }
}

/// The ordering for a query: cached, being computed (then waited for), or computed here. The
/// cache lock is not held while computing.
fn ordering(store: &Store, cache: &Mutex<OrderCache>, params: &ListParams) -> Arc<Vec<u32>> {
    let table = table_of(store, params.resource);
    let cell = cache
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .cell(&params.shape(), table.version);
    cell.get_or_init(|| Arc::new(compute_order(params, table)))
        .clone()
}

/// Builds the `{data, meta}` body of a list request. Past the last page, `data` is empty and
/// `meta` still tells the truth.
pub fn list_page(store: &Store, cache: &Mutex<OrderCache>, params: &ListParams) -> Value {
    let table = table_of(store, params.resource);
    let order = ordering(store, cache, params);
    let total = order.len() as u64;
    let last_page = total.div_ceil(params.per_page).max(1);
    // Saturating: `page` may be as large as u64::MAX (then the page is past the end, empty).
    let start = (params.page - 1).saturating_mul(params.per_page);
    let end = start.saturating_add(params.per_page).min(total);
    let data: Vec<Value> = (start..end.max(start))
        .map(|pos| {
            // Descending is the exact reverse of ascending: ties by id descending, nulls first.
            let i = if params.descending {
                total - 1 - pos
            } else {
                pos
            };
            let row = &table.rows[order[i as usize] as usize];
            Value::Object(render(store, row, params.resource, &params.include))
        })
        .collect();
    json!({
        "data": data,
        "meta": {
            "current_page": params.page,
            "last_page": last_page,
            "per_page": params.per_page,
            "total": total,
        }
    })
}

/// A record as served, with the requested relations embedded.
pub fn render(
    store: &Store,
    row: &Row,
    resource: Resource,
    include: &[&str],
) -> Map<String, Value> {
    let mut m = row.json().into_owned();
    for name in resource.includes() {
        if include.contains(name)
            && let Some((id_field, target)) = relation(name)
        {
            m.insert((*name).to_string(), store.related(row, id_field, target));
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_include_has_a_relation() {
        for r in Resource::ALL {
            for name in r.includes() {
                assert!(relation(name).is_some(), "{r}: {name}");
            }
        }
    }
}
