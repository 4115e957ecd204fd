//! What the mirror keeps of a record besides its raw JSON: sortable and filterable columns,
//! its relations and the text the search indexes; and, derived when a hit is shown (not
//! stored), what a person calls it and a one-line detail.

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::Resource;
use crate::api::{ApiRecord, Contact, Deal, Project, Related, Timestamp, value_to_string};

/// A relation kept for lookups the other way round (a contact's deals, an account's deals):
/// `rel` is `account` or `contact`. The related records themselves stay in the raw JSON.
#[derive(Debug, Clone)]
pub struct Link {
    pub rel: &'static str,
    pub target_id: String,
}

/// The indexed form of one record.
#[derive(Debug, Clone, Default)]
pub struct Doc {
    pub name_lc: Option<String>,
    pub first_lc: Option<String>,
    pub last_lc: Option<String>,
    pub email_lc: Option<String>,
    pub status_lc: Option<String>,
    pub value_num: Option<f64>,
    /// Times as microseconds since 1970 (UTC).
    pub start_us: Option<i64>,
    pub end_us: Option<i64>,
    pub created_us: Option<i64>,
    pub updated_us: Option<i64>,
    /// Deals keep theirs (a contact's deals, an account's deals are asked for) and contacts
    /// their accounts (the contact form's near-duplicate check asks for an account's contacts).
    pub links: Vec<Link>,
    /// Indexed with a higher weight: what a person calls the record.
    pub fts_name: String,
    /// Every other text of the record and its included relations.
    pub fts_body: String,
    /// The name the trigram index holds (for near matches).
    pub fuzzy_name: String,
    /// A contact's phone digits (any run of 3+ is found through their trigrams).
    pub phone_digits: String,
}

/// What a search hit shows of a record, derived from it when shown.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Shown {
    /// What a person calls it (name, else email, else id).
    pub label: String,
    /// Contacts email · phone · accounts; deals status · value · account; projects status ·
    /// dates · owner.
    pub detail: String,
}

/// A record type the mirror keeps.
pub trait Mirrored: ApiRecord {
    const RESOURCE: Resource;
    /// The sortable and filterable columns and the links: what a record is stored with
    /// when its search entries wait for a first sync's end (`deferred`).
    fn columns(&self) -> Doc;
    /// The names the search indexes hold (`fts_name`, `fuzzy_name`, `phone_digits`), from
    /// the record's top-level fields alone.
    fn names(&self, doc: &mut Doc);
    /// Everything: the columns, the names and the whole record's text.
    fn doc(&self) -> Doc {
        let mut d = self.columns();
        self.names(&mut d);
        d.fts_body = body_text(self.raw().get());
        d
    }
    fn shown(&self) -> Shown;
}

/// An instant as sortable text: `2025-03-04T10:11:12.123456Z` (UTC, always six decimals).
pub fn sortable(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string()
}

pub fn sortable_ts(ts: Option<&Timestamp>) -> Option<String> {
    ts.and_then(Timestamp::instant).map(sortable)
}

/// An instant as stored: microseconds since 1970 (UTC). Sorts like [`sortable`] in 8 bytes.
pub fn micros(t: DateTime<Utc>) -> i64 {
    t.timestamp_micros()
}

fn micros_ts(ts: Option<&Timestamp>) -> Option<i64> {
    ts.and_then(Timestamp::instant).map(micros)
}

fn lc(s: &Option<String>) -> Option<String> {
    s.as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_lowercase)
}

fn links(out: &mut Vec<Link>, rel: &'static str, one: Option<&Related>, many: Option<&[Related]>) {
    let related = one.into_iter().chain(many.unwrap_or_default());
    out.extend(related.filter_map(|r| r.id.clone().map(|target_id| Link { rel, target_id })));
}

/// Keys whose values are not worth searching: ids and bookkeeping times.
pub(super) fn skip_key(k: &str) -> bool {
    k == "id" || k.ends_with("_id") || k.ends_with("_ids") || k == "created_at" || k == "updated_at"
}

/// Every string and number in a JSON value (object keys skipped), space separated.
fn collect_text(v: &Value, out: &mut String) {
    match v {
        Value::String(s) => {
            out.push_str(s);
            out.push(' ');
        }
        Value::Number(n) => {
            out.push_str(&n.to_string());
            out.push(' ');
        }
        Value::Array(items) => items.iter().for_each(|i| collect_text(i, out)),
        Value::Object(m) => {
            for (k, v) in m {
                if !skip_key(k) {
                    collect_text(v, out);
                }
            }
        }
        Value::Bool(_) | Value::Null => {}
    }
}

/// The whole raw record's text (custom fields, tags, included relations...): one scan of
/// the JSON (`packed::text`), or, where the scan cannot tell, the parsed value's.
fn body_text(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len() / 2);
    if super::packed::text::words(raw, &mut out, &mut |_, _| None).is_some() {
        return out;
    }
    body_text_parsed(raw)
}

/// The whole raw record's text from its parsed value (what [`body_text`] gives, the slow way).
pub(super) fn body_text_parsed(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len() / 2);
    if let Ok(v) = serde_json::from_str::<Value>(raw) {
        collect_text(&v, &mut out);
    }
    out
}

fn digits(text: &str) -> String {
    text.chars().filter(char::is_ascii_digit).collect()
}

fn join<'a>(parts: impl IntoIterator<Item = Option<&'a str>>, sep: &str) -> String {
    parts
        .into_iter()
        .flatten()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(sep)
}

impl Mirrored for Contact {
    const RESOURCE: Resource = Resource::Contacts;
    fn columns(&self) -> Doc {
        let mut links_out = Vec::new();
        links(&mut links_out, "account", None, self.accounts.as_deref());
        Doc {
            name_lc: Some(self.full_name().to_lowercase()),
            first_lc: lc(&self.first_name),
            last_lc: lc(&self.last_name),
            email_lc: lc(&self.email),
            created_us: micros_ts(self.created_at.as_ref()),
            updated_us: micros_ts(self.updated_at.as_ref()),
            links: links_out,
            ..Doc::default()
        }
    }

    fn names(&self, d: &mut Doc) {
        let full = self.full_name();
        d.fuzzy_name = self.label();
        d.phone_digits = self.phone.as_deref().map(digits).unwrap_or_default();
        d.fts_name = join(
            [
                Some(full.as_str()),
                self.first_name.as_deref(),
                self.last_name.as_deref(),
            ],
            " ",
        );
    }

    fn shown(&self) -> Shown {
        let accounts: Vec<String> = self.accounts.iter().flatten().map(Related::label).collect();
        let accounts = accounts.join(", ");
        Shown {
            label: self.label(),
            detail: join(
                [
                    self.email.as_deref(),
                    self.phone.as_deref(),
                    Some(accounts.as_str()),
                ],
                " · ",
            ),
        }
    }
}

impl Mirrored for Deal {
    const RESOURCE: Resource = Resource::Deals;
    fn columns(&self) -> Doc {
        let mut links_out = Vec::new();
        links(&mut links_out, "account", self.account.as_ref(), None);
        links(&mut links_out, "contact", None, self.contacts.as_deref());
        Doc {
            name_lc: lc(&self.name),
            status_lc: lc(&self.status),
            value_num: self
                .value
                .as_ref()
                .and_then(|m| m.decimal())
                .and_then(|d| d.to_string().parse().ok()),
            created_us: micros_ts(self.created_at.as_ref()),
            updated_us: micros_ts(self.updated_at.as_ref()),
            links: links_out,
            ..Doc::default()
        }
    }

    fn names(&self, d: &mut Doc) {
        d.fts_name = self.name.clone().unwrap_or_default();
        d.fuzzy_name = self.label();
    }

    fn shown(&self) -> Shown {
        let account = self.account.as_ref().map(Related::label);
        let value = self.value.as_ref().map(|m| m.display());
        let currency = self.extra.get("currency").and_then(value_to_string);
        let value = value.map(|v| join([Some(v.as_str()), currency.as_deref()], " "));
        Shown {
            label: self.label(),
            detail: join(
                [self.status.as_deref(), value.as_deref(), account.as_deref()],
                " · ",
            ),
        }
    }
}

impl Mirrored for Project {
    const RESOURCE: Resource = Resource::Projects;
    fn columns(&self) -> Doc {
        Doc {
            name_lc: lc(&self.name),
            status_lc: lc(&self.status),
            start_us: micros_ts(self.start_date.as_ref()),
            end_us: micros_ts(self.end_date.as_ref()),
            created_us: micros_ts(self.created_at.as_ref()),
            updated_us: micros_ts(self.updated_at.as_ref()),
            ..Doc::default()
        }
    }

    fn names(&self, d: &mut Doc) {
        d.fts_name = self.name.clone().unwrap_or_default();
        d.fuzzy_name = self.label();
    }

    fn shown(&self) -> Shown {
        let dates = match (&self.start_date, &self.end_date) {
            (Some(s), Some(e)) => Some(format!("{} – {}", s.shown(), e.shown())),
            (Some(s), None) => Some(format!("from {}", s.shown())),
            (None, Some(e)) => Some(format!("until {}", e.shown())),
            (None, None) => None,
        };
        let owner = self.owner.as_ref().map(Related::label);
        Shown {
            label: self.label(),
            detail: join(
                [self.status.as_deref(), dates.as_deref(), owner.as_deref()],
                " · ",
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_skips_ids_and_bookkeeping_times() {
        let t = body_text(
            r#"{"id":"con_1","account_ids":["acc_1"],"updated_at":"x","custom_fields":{"shoe":"42","vip":true},"tags":["Köln"]}"#,
        );
        assert_eq!(t.split_whitespace().collect::<Vec<_>>(), ["42", "Köln"]);
    }
}
