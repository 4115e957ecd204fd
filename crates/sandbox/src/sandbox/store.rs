//! The sandbox's data: records as served (JSON objects, unknown fields and all) plus the few
//! typed keys filters and sorts need, with id indexes for relations.

use std::borrow::Cow;
use std::collections::HashMap;

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde_json::{Map, Value};

use super::gen_contacts::SynthContact;
use super::seed::Dataset;
use super::timefmt::parse_stored;

/// A record's content: JSON as served, or a generated contact built into JSON when served.
#[derive(Debug, Clone)]
enum Body {
    Json(Map<String, Value>),
    Contact(Box<SynthContact>),
}

/// One record and precomputed keys for filtering.
#[derive(Debug, Clone)]
pub struct Row {
    body: Body,
    id: String,
    pub created: Option<DateTime<Utc>>,
    pub updated: Option<DateTime<Utc>>,
    /// Lower-cased full name (contacts) or name (deals, projects), for partial matches.
    pub name_lc: String,
    pub email_lc: Option<String>,
    pub status_lc: Option<String>,
}

impl Row {
    pub fn new(json: Map<String, Value>) -> Row {
        let text = |k: &str| json.get(k).and_then(Value::as_str);
        let time = |k: &str| text(k).and_then(parse_stored);
        let name_lc = match text("full_name").or(text("name")) {
            Some(n) => n.to_lowercase(),
            None => [text("first_name"), text("last_name")]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(" ")
                .to_lowercase(),
        };
        Row {
            id: json.get("id").and_then(value_id).unwrap_or_default(),
            created: time("created_at"),
            updated: time("updated_at"),
            name_lc,
            email_lc: text("email").map(str::to_lowercase),
            status_lc: text("status").map(str::to_lowercase),
            body: Body::Json(json),
        }
    }

    pub fn synthetic(c: SynthContact) -> Row {
        Row {
            id: c.id(),
            created: Some(c.created),
            updated: Some(c.updated),
            name_lc: c.full_name().unwrap_or_default().to_lowercase(),
            email_lc: c.email.as_deref().map(str::to_lowercase),
            status_lc: None,
            body: Body::Contact(Box::new(c)),
        }
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    /// The record as served.
    pub fn json(&self) -> Cow<'_, Map<String, Value>> {
        match &self.body {
            Body::Json(m) => Cow::Borrowed(m),
            Body::Contact(c) => Cow::Owned(c.to_json()),
        }
    }

    /// The record's JSON for a change (a generated contact becomes plain JSON first). Call
    /// `refresh` after changing fields that filters or sorts use.
    pub fn json_mut(&mut self) -> &mut Map<String, Value> {
        if let Body::Contact(c) = &self.body {
            self.body = Body::Json(c.to_json());
        }
        match &mut self.body {
            Body::Json(m) => m,
            Body::Contact(_) => unreachable!("materialised above"),
        }
    }

    /// Recomputes the filter keys from the JSON.
    pub fn refresh(&mut self) {
        let json = std::mem::take(self.json_mut());
        *self = Row::new(json);
    }

    /// A text field, without building a generated contact's JSON.
    fn text(&self, key: &str) -> Option<Cow<'_, str>> {
        match &self.body {
            Body::Json(m) => m.get(key).and_then(Value::as_str).map(Cow::Borrowed),
            Body::Contact(c) => match key {
                "first_name" => c.first_name.as_deref().map(Cow::Borrowed),
                "last_name" => c.last_name.as_deref().map(Cow::Borrowed),
                "email" => c.email.as_deref().map(Cow::Borrowed),
                "full_name" => c.full_name().map(Cow::Owned),
                _ => self
                    .json()
                    .get(key)
                    .and_then(Value::as_str)
                    .map(|s| Cow::Owned(s.to_string())),
            },
        }
    }

    /// The value a sort key orders by; missing values are `Null` (sorted last ascending).
    pub fn sort_value(&self, key: &str) -> SortValue {
        match key {
            "created_at" => self.created.map_or(SortValue::Null, SortValue::Time),
            "updated_at" => self.updated.map_or(SortValue::Null, SortValue::Time),
            "value" => match self.json().get(key) {
                Some(Value::String(s)) => {
                    s.trim().parse().map_or(SortValue::Null, SortValue::Number)
                }
                Some(Value::Number(n)) => n
                    .to_string()
                    .parse::<Decimal>()
                    .or_else(|_| Decimal::from_scientific(&n.to_string()))
                    .map_or(SortValue::Null, SortValue::Number),
                _ => SortValue::Null,
            },
            "start_date" | "end_date" => self
                .text(key)
                .and_then(|s| parse_stored(&s))
                .map_or(SortValue::Null, SortValue::Time),
            _ => match self.text(key) {
                Some(s) => SortValue::Text(s.to_lowercase()),
                None => SortValue::Null,
            },
        }
    }
}

/// A sort key's value. Derived order: text, times and numbers by value; `Null` after all.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum SortValue {
    Text(String),
    Time(DateTime<Utc>),
    Number(Decimal),
    Null,
}

/// The records of one kind, in insertion order, with an id index.
#[derive(Debug, Clone, Default)]
pub struct Table {
    pub rows: Vec<Row>,
    by_id: HashMap<String, usize>,
    /// Bumped on every change; cached orderings of an older version are stale.
    pub version: u64,
}

impl Table {
    fn from_records(records: Vec<Map<String, Value>>) -> Table {
        let mut t = Table::default();
        t.rows.reserve(records.len());
        for r in records {
            t.push(Row::new(r));
        }
        t
    }

    fn extend_synthetic(&mut self, contacts: Vec<SynthContact>) {
        self.rows.reserve(contacts.len());
        self.by_id.reserve(contacts.len());
        for c in contacts {
            self.push(Row::synthetic(c));
        }
    }

    pub fn push(&mut self, row: Row) {
        self.by_id.insert(row.id().to_string(), self.rows.len());
        self.rows.push(row);
        self.version += 1;
    }

    pub fn get(&self, id: &str) -> Option<&Row> {
        self.by_id.get(id).map(|&i| &self.rows[i])
    }

    pub fn get_mut(&mut self, id: &str) -> Option<&mut Row> {
        let i = *self.by_id.get(id)?;
        self.version += 1;
        Some(&mut self.rows[i])
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Deletes a record (the last row takes its place). False when there was none.
    pub fn remove(&mut self, id: &str) -> bool {
        let Some(i) = self.by_id.remove(id) else {
            return false;
        };
        self.rows.swap_remove(i);
        if let Some(moved) = self.rows.get(i) {
            self.by_id.insert(moved.id().to_string(), i);
        }
        self.version += 1;
        true
    }
}

/// Every table of the sandbox.
#[derive(Debug, Clone, Default)]
pub struct Store {
    pub users: Table,
    pub accounts: Table,
    pub contacts: Table,
    pub deals: Table,
    pub projects: Table,
    pub appointments: Table,
    /// Number of the next created contact's id (`con_NNNNNN`).
    next_contact: usize,
}

impl Store {
    pub fn new(ds: Dataset) -> Store {
        let next_contact = ds.contacts.len() + ds.synthetic_contacts.len() + 1;
        let mut contacts = Table::from_records(ds.contacts);
        contacts.extend_synthetic(ds.synthetic_contacts);
        Store {
            users: Table::from_records(ds.users),
            accounts: Table::from_records(ds.accounts),
            contacts,
            deals: Table::from_records(ds.deals),
            projects: Table::from_records(ds.projects),
            appointments: Table::from_records(ds.appointments),
            next_contact,
        }
    }

    /// A fresh contact id, never used by the seed or an earlier create.
    pub fn next_contact_id(&mut self) -> String {
        loop {
            let id = format!("con_{:06}", self.next_contact);
            self.next_contact += 1;
            if self.contacts.get(&id).is_none() {
                return id;
            }
        }
    }

    /// How many contacts have this e-mail address (compared case-insensitively).
    pub fn contacts_with_email(&self, email: &str) -> usize {
        let e = email.trim().to_lowercase();
        self.contacts
            .rows
            .iter()
            .filter(|r| r.email_lc.as_deref() == Some(e.as_str()))
            .count()
    }

    /// The short form of a related record embedded by `include`.
    fn summary(table: &Table, id: &Value, fields: &[&str]) -> Value {
        let Some(row) = id.as_str().and_then(|id| table.get(id)) else {
            return Value::Null;
        };
        let mut m = Map::new();
        let json = row.json();
        for f in fields {
            if let Some(v) = json.get(*f) {
                m.insert((*f).to_string(), v.clone());
            }
        }
        Value::Object(m)
    }

    /// A related record (`id_field` holds one id) or a list of them (`id_field` holds a list).
    pub fn related(&self, row: &Row, id_field: &str, target: Related) -> Value {
        let (table, fields): (&Table, &[&str]) = match target {
            Related::User => (&self.users, &["id", "name", "email", "role"]),
            Related::Account => (&self.accounts, &["id", "name", "website", "country"]),
            Related::Contact => (
                &self.contacts,
                &["id", "first_name", "last_name", "full_name", "email"],
            ),
        };
        match row.json().get(id_field) {
            Some(Value::Array(ids)) => Value::Array(
                ids.iter()
                    .map(|id| Self::summary(table, id, fields))
                    .filter(|v| !v.is_null())
                    .collect(),
            ),
            Some(id) => Self::summary(table, id, fields),
            None => Value::Null,
        }
    }
}

/// The kinds of record an `include` can embed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Related {
    User,
    Account,
    Contact,
}

/// An id field's value as text (ids are strings; numbers are tolerated).
fn value_id(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}
