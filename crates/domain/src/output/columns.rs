//! The column contract of CSV (and `--columns` tables), shared by the CLI and the dashboard's
//! export: every list of a resource has the same header, whatever its records hold, empty
//! results included.
//!
//! A resource's fixed columns are the seed's fields of that resource, in the seed's order
//! (for deals, `currency` after `value`: the seed names no currency, but an amount means
//! nothing without it, and the service sends one per deal), then one summary column per
//! relation the seed lets a list include:
//!
//! | Resource | Fixed columns |
//! |---|---|
//! | contacts | id, created_at, updated_at, first_name, last_name, email, phone, accounts, assigned_user, assigned_users |
//! | deals | id, created_at, updated_at, name, status, value, currency, account, contacts, assigned_user, assigned_users |
//! | projects | id, created_at, updated_at, name, status, start_date, end_date, owner, members |
//! | appointments | id, created_at, updated_at |
//!
//! A field cell is the value as the server sent it: a string's text, a number's literal
//! digits, `true`/`false`, an empty cell for null or a missing key, compact JSON for an object
//! or array. A relation cell summarises the included records: each one's label (name, full
//! name, first + last name, email, else id) joined by `"; "`; when the relation was not
//! included but the record carries its id or ids (`account_id`, `account_ids`,
//! `assigned_user_id`, `owner_id`, `member_ids`...), `#<id>` each; else empty.
//!
//! `--columns a,b,c` selects and orders columns: a fixed column by its name (or the table
//! header that shows it: `updated` for `updated_at`), any other name as a further top-level
//! field of the records (its raw value, as for a field cell).

use std::fmt;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::OutputError;
use super::text::minify_json;
use crate::api::{
    ApiRecord, AppointmentRef, Contact, Deal, Project, Related, Timestamp, value_to_string,
};

/// A record type with a fixed set of columns.
pub trait Columns: ApiRecord {
    /// The seed's fields, then the relation summaries, in this order.
    const FIXED: &'static [&'static str];
    /// Of these, the relation summary columns.
    const RELATIONS: &'static [&'static str];
    /// The summary cell of relation column `name` (one of [`Self::RELATIONS`]).
    fn relation_summary(&self, name: &str) -> String;
}

/// One column: a field read from the raw record, or a relation summary.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Source {
    Field,
    Relation,
}

/// The columns of one output, chosen once before the first record: the header never
/// depends on the data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnSet {
    names: Vec<String>,
    sources: Vec<Source>,
}

impl ColumnSet {
    /// The resource's fixed columns.
    pub fn fixed<T: Columns>() -> ColumnSet {
        let names: Vec<String> = T::FIXED.iter().map(|s| s.to_string()).collect();
        ColumnSet::of::<T>(names)
    }

    /// `--columns a,b,c`: the given names in the given order (fixed columns by name, any
    /// other name a further field). Refuses an empty list, an empty name or a repeated one.
    pub fn select<T: Columns>(asked: &[String]) -> Result<ColumnSet, String> {
        let mut names: Vec<String> = Vec::new();
        for a in asked {
            let n = a.trim();
            if n.is_empty() {
                return Err("--columns: a column name is empty".into());
            }
            // The table's headers (`updated`, `assignee`...) name the CSV columns holding
            // the same data; a record field of that very name would still win.
            let n = if T::FIXED.contains(&n) {
                n
            } else {
                table_alias(n).filter(|a| T::FIXED.contains(a)).unwrap_or(n)
            };
            if names.iter().any(|x| x == n) {
                return Err(format!("--columns: {n} is named twice"));
            }
            names.push(n.to_string());
        }
        if names.is_empty() {
            return Err(format!(
                "--columns: name at least one column (fixed: {})",
                T::FIXED.join(",")
            ));
        }
        Ok(ColumnSet::of::<T>(names))
    }

    /// Fixed columns unless `asked` names some.
    pub fn chosen<T: Columns>(asked: Option<&[String]>) -> Result<ColumnSet, String> {
        match asked {
            Some(a) => ColumnSet::select::<T>(a),
            None => Ok(ColumnSet::fixed::<T>()),
        }
    }

    fn of<T: Columns>(names: Vec<String>) -> ColumnSet {
        let sources = names
            .iter()
            .map(|n| {
                if T::RELATIONS.contains(&n.as_str()) {
                    Source::Relation
                } else {
                    Source::Field
                }
            })
            .collect();
        ColumnSet { names, sources }
    }

    /// The header, in order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The cells of one record, one per column.
    pub fn row<T: Columns>(&self, record: &T) -> Result<Vec<String>, OutputError> {
        let entries = top_level(record.raw()).ok_or_else(|| OutputError::NotAnObject {
            id: record.id().to_string(),
        })?;
        Ok(self
            .names
            .iter()
            .zip(&self.sources)
            .map(|(name, source)| match source {
                Source::Relation => record.relation_summary(name),
                // A duplicated key: the last one wins, as in every JSON parser's object.
                Source::Field => entries
                    .iter()
                    .rev()
                    .find(|(k, _)| k == name)
                    .map(|(_, v)| cell(v))
                    .unwrap_or_default(),
            })
            .collect())
    }
}

/// The CSV column a table header stands for: `created` is `created_at`, `assignee`
/// `assigned_user`, `start` `start_date`...
fn table_alias(header: &str) -> Option<&'static str> {
    Some(match header {
        "created" => "created_at",
        "updated" => "updated_at",
        "assignee" => "assigned_user",
        "start" => "start_date",
        "end" => "end_date",
        _ => return None,
    })
}

/// A raw JSON value as a CSV cell.
fn cell(raw: &RawValue) -> String {
    let text = raw.get().trim();
    match text.as_bytes().first() {
        Some(b'"') => serde_json::from_str::<String>(text).unwrap_or_else(|_| text.to_string()),
        Some(b'{' | b'[') => minify_json(text),
        _ if text == "null" => String::new(),
        _ => text.to_string(),
    }
}

/// The object's entries in the order the server wrote them, values still raw.
pub fn top_level(raw: &RawValue) -> Option<Vec<(String, &RawValue)>> {
    struct Entries;
    impl<'de> Visitor<'de> for Entries {
        type Value = Vec<(String, &'de RawValue)>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut v = Vec::new();
            while let Some(entry) = map.next_entry::<String, &'de RawValue>()? {
                v.push(entry);
            }
            Ok(v)
        }
    }
    let mut de = serde_json::Deserializer::from_str(raw.get());
    de.deserialize_map(Entries).ok()
}

/// Labels of included records, joined by `sep`; `None` when there are none.
pub(crate) fn label_list(items: &Option<Vec<Related>>, sep: &str) -> Option<String> {
    let items = items.as_ref().filter(|v| !v.is_empty())?;
    Some(
        items
            .iter()
            .map(Related::label)
            .collect::<Vec<_>>()
            .join(sep),
    )
}

/// A relation's label; when it was not included, the bare id (or ids) the record may carry
/// instead under `id_key` (`account_id`) or its plural (`account_ids`), as `#id`.
pub(crate) fn related(
    one: Option<&Related>,
    many: &Option<Vec<Related>>,
    extra: &Map<String, Value>,
    id_key: &str,
) -> String {
    related_sep(one, many, extra, id_key, SEP)
}

/// [`related`] with the labels joined by `sep` (the table uses `", "`).
pub(crate) fn related_sep(
    one: Option<&Related>,
    many: &Option<Vec<Related>>,
    extra: &Map<String, Value>,
    id_key: &str,
    sep: &str,
) -> String {
    one.map(Related::label)
        .or_else(|| label_list(many, sep))
        .or_else(|| bare_ids(extra, id_key, sep))
        .unwrap_or_default()
}

/// Between the labels of a relation cell.
const SEP: &str = "; ";

fn bare_ids(extra: &Map<String, Value>, id_key: &str, sep: &str) -> Option<String> {
    let other = match id_key.strip_suffix('s') {
        Some(singular) => singular.to_string(),
        None => format!("{id_key}s"),
    };
    let value = extra
        .get(id_key)
        .filter(|v| !v.is_null())
        .or_else(|| extra.get(&other))?;
    let ids: Vec<String> = match value {
        Value::Array(a) => a.iter().filter_map(value_to_string).collect(),
        v => value_to_string(v).into_iter().collect(),
    };
    (!ids.is_empty()).then(|| {
        ids.iter()
            .map(|id| format!("#{id}"))
            .collect::<Vec<_>>()
            .join(sep)
    })
}

pub(crate) fn date(t: &Option<Timestamp>) -> String {
    t.as_ref().map(Timestamp::shown).unwrap_or_default()
}

impl Columns for Contact {
    const FIXED: &'static [&'static str] = &[
        "id",
        "created_at",
        "updated_at",
        "first_name",
        "last_name",
        "email",
        "phone",
        "accounts",
        "assigned_user",
        "assigned_users",
    ];
    const RELATIONS: &'static [&'static str] = &["accounts", "assigned_user", "assigned_users"];

    fn relation_summary(&self, name: &str) -> String {
        match name {
            "accounts" => related(None, &self.accounts, &self.extra, "account_ids"),
            "assigned_user" => related(
                self.assigned_user.as_ref(),
                &None,
                &self.extra,
                "assigned_user_id",
            ),
            "assigned_users" => {
                related(None, &self.assigned_users, &self.extra, "assigned_user_ids")
            }
            _ => String::new(),
        }
    }
}

impl Columns for Deal {
    const FIXED: &'static [&'static str] = &[
        "id",
        "created_at",
        "updated_at",
        "name",
        "status",
        "value",
        "currency",
        "account",
        "contacts",
        "assigned_user",
        "assigned_users",
    ];
    const RELATIONS: &'static [&'static str] =
        &["account", "contacts", "assigned_user", "assigned_users"];

    fn relation_summary(&self, name: &str) -> String {
        match name {
            "account" => related(self.account.as_ref(), &None, &self.extra, "account_id"),
            "contacts" => related(None, &self.contacts, &self.extra, "contact_ids"),
            "assigned_user" => related(
                self.assigned_user.as_ref(),
                &None,
                &self.extra,
                "assigned_user_id",
            ),
            "assigned_users" => {
                related(None, &self.assigned_users, &self.extra, "assigned_user_ids")
            }
            _ => String::new(),
        }
    }
}

impl Columns for Project {
    const FIXED: &'static [&'static str] = &[
        "id",
        "created_at",
        "updated_at",
        "name",
        "status",
        "start_date",
        "end_date",
        "owner",
        "members",
    ];
    const RELATIONS: &'static [&'static str] = &["owner", "members"];

    fn relation_summary(&self, name: &str) -> String {
        match name {
            "owner" => related(self.owner.as_ref(), &None, &self.extra, "owner_id"),
            "members" => related(None, &self.members, &self.extra, "member_ids"),
            _ => String::new(),
        }
    }
}

impl Columns for AppointmentRef {
    const FIXED: &'static [&'static str] = &["id", "created_at", "updated_at"];
    const RELATIONS: &'static [&'static str] = &[];

    fn relation_summary(&self, _name: &str) -> String {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::decode_page;

    #[test]
    fn fixed_columns_start_with_the_common_fields_and_relations_are_known() {
        fn check<T: Columns>() {
            assert_eq!(&T::FIXED[..3], &["id", "created_at", "updated_at"]);
            for r in T::RELATIONS {
                assert!(T::FIXED.contains(r), "{r}");
            }
        }
        check::<Contact>();
        check::<Deal>();
        check::<Project>();
        check::<AppointmentRef>();
    }

    #[test]
    fn relation_cells_summarise_and_fields_stay_raw() {
        let page = decode_page::<Deal>(
            br#"[{"id":1,"value":10.50,"account":{"id":3,"name":"Acme"},
                 "contacts":[{"id":1,"first_name":"Ada","last_name":"L"},{"id":2,"email":"b@x"}]},
                {"id":2,"account_id":9,"tags":["a"]}]"#,
        )
        .unwrap();
        let set = ColumnSet::fixed::<Deal>();
        let r0 = set.row(&page.data[0]).unwrap();
        assert_eq!(r0[5], "10.50");
        assert_eq!(r0[6], "", "no currency sent: an empty cell");
        assert_eq!(r0[7], "Acme");
        assert_eq!(r0[8], "Ada L; b@x");
        let r1 = set.row(&page.data[1]).unwrap();
        assert_eq!(r1[7], "#9");
        let pick = ColumnSet::select::<Deal>(&["tags".into(), "id".into()]).unwrap();
        assert_eq!(pick.row(&page.data[1]).unwrap(), ["[\"a\"]", "2"]);
        assert!(ColumnSet::select::<Deal>(&["id".into(), "id".into()]).is_err());
        assert!(ColumnSet::select::<Deal>(&[" ".into()]).is_err());
    }
}
