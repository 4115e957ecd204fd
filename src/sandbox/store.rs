//! The sandbox's data: records as served (JSON objects, unknown fields and all) plus the few
//! typed keys filters and sorts need, with id indexes for relations.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde_json::{Map, Value};

use super::seed::Dataset;
use super::timefmt::parse_stored;

/// One record: its JSON as served and precomputed keys for filtering.
#[derive(Debug, Clone)]
pub struct Row {
    pub json: Map<String, Value>,
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
            created: time("created_at"),
            updated: time("updated_at"),
            name_lc,
            email_lc: text("email").map(str::to_lowercase),
            status_lc: text("status").map(str::to_lowercase),
            json,
        }
    }

    pub fn id(&self) -> &str {
        self.json.get("id").and_then(Value::as_str).unwrap_or("")
    }

    /// The value a sort key orders by; missing values are `Null` (sorted last ascending).
    pub fn sort_value(&self, key: &str) -> SortValue {
        match key {
            "created_at" => self.created.map_or(SortValue::Null, SortValue::Time),
            "updated_at" => self.updated.map_or(SortValue::Null, SortValue::Time),
            "value" => match self.json.get(key) {
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
                .json
                .get(key)
                .and_then(Value::as_str)
                .and_then(parse_stored)
                .map_or(SortValue::Null, SortValue::Time),
            _ => match self.json.get(key).and_then(Value::as_str) {
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
        let next_contact = ds.contacts.len() + 1;
        Store {
            users: Table::from_records(ds.users),
            accounts: Table::from_records(ds.accounts),
            contacts: Table::from_records(ds.contacts),
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
        for f in fields {
            if let Some(v) = row.json.get(*f) {
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
        match row.json.get(id_field) {
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
