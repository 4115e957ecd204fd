//! What a list of changes shows of each changed record: its label (what a person calls it,
//! as [`ApiRecord::label`] gives it) and its currency, read straight from the stored text
//! (`packed::fields`) with one indexed lookup: no record unpacked or decoded. A field of an
//! unusual shape sends that one record through the decoder, so every label is the decoder's.

use std::borrow::Cow;

use rusqlite::{OptionalExtension, params};

use super::super::packed::fields::{Stored, each_top_level};
use super::{Mirror, MirrorError};
use crate::api::{ApiRecord, Contact, Deal, Project};
use crate::resource::Resource;

/// A changed record's label and currency (`None`: it has no currency as text).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecordFacts {
    pub label: String,
    pub currency: Option<String>,
}

/// A value the quick reader leaves to the decoder.
struct Unusual;

/// Text as the decoder reads a text field: a string unescaped, a number's literal, `null`
/// none; anything else (a boolean, an object, a packed time) is left to the decoder.
fn text(v: Stored<'_>) -> Result<Option<Cow<'_, str>>, Unusual> {
    let Stored::Json(t) = v else {
        return Err(Unusual);
    };
    match t.as_bytes().first() {
        Some(b'"') if !t.contains('\\') => Ok(Some(Cow::Borrowed(&t[1..t.len() - 1]))),
        Some(b'"') => serde_json::from_str::<String>(t)
            .map(|s| Some(Cow::Owned(s)))
            .map_err(|_| Unusual),
        Some(b'-' | b'0'..=b'9') => Ok(Some(Cow::Borrowed(t))),
        Some(b'n') if t == "null" => Ok(None),
        _ => Err(Unusual),
    }
}

/// The currency as `extra["currency"].as_str()` reads it: only a string is one.
fn currency(v: Stored<'_>) -> Result<Option<Cow<'_, str>>, Unusual> {
    match v {
        Stored::Json(t) if t.starts_with('"') => text(v),
        Stored::Json(_) => Ok(None),
        // A string in the service's time form, stored packed: left to the decoder.
        Stored::Time(_) | Stored::Packed(_) => Err(Unusual),
    }
}

#[derive(Default)]
struct Wanted<'a> {
    id: Option<Stored<'a>>,
    name: Option<Stored<'a>>,
    full_name: Option<Stored<'a>>,
    first_name: Option<Stored<'a>>,
    last_name: Option<Stored<'a>>,
    email: Option<Stored<'a>>,
    currency: Option<Stored<'a>>,
}

/// A value read with `read`, if there is one.
type Read<'a> = fn(Stored<'a>) -> Result<Option<Cow<'a, str>>, Unusual>;

fn opt<'a>(v: Option<Stored<'a>>, read: Read<'a>) -> Result<Option<Cow<'a, str>>, Unusual> {
    v.map_or(Ok(None), read)
}

/// The facts of one stored record from its packed text, as the decoder would give them.
fn quick(r: Resource, packed: &str) -> Result<RecordFacts, Unusual> {
    let mut w = Wanted::default();
    each_top_level(packed, |k, v| match k {
        "id" => w.id = Some(v),
        "name" => w.name = Some(v),
        "full_name" => w.full_name = Some(v),
        "first_name" => w.first_name = Some(v),
        "last_name" => w.last_name = Some(v),
        "email" => w.email = Some(v),
        "currency" => w.currency = Some(v),
        _ => {}
    })
    .ok_or(Unusual)?;
    // A record without an id does not decode: the decoder says what it is.
    let id = opt(w.id, text)?.ok_or(Unusual)?;
    let label = match r {
        Resource::Contacts => {
            let full = opt(w.full_name, text)?.filter(|n| !n.trim().is_empty());
            let (first, last) = (opt(w.first_name, text)?, opt(w.last_name, text)?);
            let email = opt(w.email, text)?;
            match full {
                Some(n) => n.into_owned(),
                None => {
                    let joined = [first.as_deref(), last.as_deref()]
                        .into_iter()
                        .flatten()
                        .filter(|s| !s.is_empty())
                        .collect::<Vec<_>>()
                        .join(" ");
                    if !joined.is_empty() {
                        joined
                    } else {
                        email.unwrap_or(id).into_owned()
                    }
                }
            }
        }
        Resource::Deals | Resource::Projects => opt(w.name, text)?.unwrap_or(id).into_owned(),
    };
    Ok(RecordFacts {
        label,
        currency: opt(w.currency, currency)?.map(Cow::into_owned),
    })
}

/// The facts of a decoded record.
fn facts<T: ApiRecord>(rec: T) -> RecordFacts {
    let currency = rec.extra().get("currency").and_then(|v| v.as_str());
    RecordFacts {
        label: rec.label(),
        currency: currency.map(str::to_string),
    }
}

impl Mirror {
    /// The label and currency of record `id` of `r` (gone ones too), read from its stored
    /// text; `None` when the mirror does not hold it (or it does not decode).
    pub fn record_facts(&self, r: Resource, id: &str) -> Result<Option<RecordFacts>, MirrorError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT packed FROM records WHERE resource = ?1 AND id = ?2")
            .map_err(|e| self.err(e))?;
        let found = stmt
            .query_row(params![r.noun(), id], |row| {
                let packed = row.get_ref(0)?.as_str()?;
                Ok(quick(r, packed).ok())
            })
            .optional()
            .map_err(|e| self.err(e))?;
        match found {
            None => Ok(None),
            Some(Some(f)) => Ok(Some(f)),
            Some(None) => Ok(match r {
                Resource::Contacts => self.get::<Contact>(id)?.map(facts),
                Resource::Deals => self.get::<Deal>(id)?.map(facts),
                Resource::Projects => self.get::<Project>(id)?.map(facts),
            }),
        }
    }

    /// [`Mirror::record_facts`] through the decoder (the reference the quick read agrees with).
    pub fn record_facts_decoded(
        &self,
        r: Resource,
        id: &str,
    ) -> Result<Option<RecordFacts>, MirrorError> {
        Ok(match r {
            Resource::Contacts => self.get::<Contact>(id)?.map(facts),
            Resource::Deals => self.get::<Deal>(id)?.map(facts),
            Resource::Projects => self.get::<Project>(id)?.map(facts),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mirror::SyncState;
    use serde_json::{Value, json};

    fn typed<T: ApiRecord>(v: Value) -> T {
        T::from_raw(serde_json::value::RawValue::from_string(v.to_string()).unwrap()).unwrap()
    }

    #[test]
    fn the_quick_read_names_every_record_as_the_decoder() {
        let dir = tempfile::tempdir().unwrap();
        let mut m = Mirror::open(&dir.path().join("m.sqlite3")).unwrap().mirror;
        let contacts: Vec<Contact> = [
            json!({"id": "c1", "full_name": "Ada Lovelace", "currency": "EUR"}),
            json!({"id": "c2", "first_name": "Jürgen", "last_name": "Müller"}),
            json!({"id": "c3", "full_name": "Zo\u{eb} \"Z\"\\", "first_name": "x"}),
            json!({"id": "c4", "email": "only@mail.example", "currency": 978}),
            json!({"id": "c5"}),
            json!({"id": "c6", "full_name": "   ", "first_name": "", "last_name": "Bo"}),
            json!({"id": "c7", "full_name": 42}),
            json!({"id": "c8", "full_name": true}),
            json!({"id": "c9", "full_name": "2024-01-14T13:58:23.535415Z"}),
            json!({"id": "c10", "first_name": null, "email": ""}),
            json!({"id": "c11", "full_name": {"a": 1}, "email": "e@x"}),
            json!({"id": "c12", "currency": "2024-01-14T13:58:23.535415Z"}),
            json!({"id": 13, "first_name": "Numeric id"}),
        ]
        .into_iter()
        .map(typed)
        .collect();
        let deals: Vec<Deal> = [
            json!({"id": "d1", "name": "Rollout", "currency": "EUR"}),
            json!({"id": "d2"}),
            json!({"id": "d3", "name": "Esc\u{e4}ped \\ \"name\"", "currency": "US\u{0044}"}),
            json!({"id": "d4", "name": 7.5, "currency": null}),
            json!({"id": "d5", "name": "", "currency": ["EUR"]}),
            json!({"id": "d6", "name": ["a"]}),
        ]
        .into_iter()
        .map(typed)
        .collect();
        let projects: Vec<Project> = [
            json!({"id": "p1", "name": "Website", "currency": "USD"}),
            json!({"id": "p2", "name": null}),
        ]
        .into_iter()
        .map(typed)
        .collect();
        let state = SyncState::default();
        m.apply_page(&contacts, None, &state).unwrap();
        m.apply_page(&deals, None, &state).unwrap();
        m.apply_page(&projects, None, &state).unwrap();
        let ids = [
            (
                Resource::Contacts,
                (1..=12)
                    .map(|i| format!("c{i}"))
                    .chain(["13".into()])
                    .collect::<Vec<_>>(),
            ),
            (Resource::Deals, (1..=6).map(|i| format!("d{i}")).collect()),
            (Resource::Projects, vec!["p1".into(), "p2".into()]),
        ];
        for (r, ids) in ids {
            for id in ids {
                let decoded = m.record_facts_decoded(r, &id).unwrap();
                assert!(decoded.is_some(), "{id} is stored");
                assert_eq!(m.record_facts(r, &id).unwrap(), decoded, "{id}");
            }
        }
        assert_eq!(m.record_facts(Resource::Deals, "c1").unwrap(), None);
        assert_eq!(
            m.record_facts(Resource::Contacts, "c2")
                .unwrap()
                .unwrap()
                .label,
            "Jürgen Müller"
        );
        assert_eq!(
            m.record_facts(Resource::Deals, "d3").unwrap(),
            Some(RecordFacts {
                label: "Esc\u{e4}ped \\ \"name\"".into(),
                currency: Some("USD".into())
            })
        );
    }
}
