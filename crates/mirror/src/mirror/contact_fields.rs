//! The few fields of every live contact the near-duplicate finder compares, read from the
//! stored text without unpacking or decoding whole records (`packed::fields`): a contact's
//! name, email, phone, times and account ids come out as the decoder would give them, and a
//! record the quick reader cannot take (a field of an unusual shape) is decoded whole.

use std::borrow::Cow;
use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde_json::value::RawValue;

use super::packed::fields::{Stored, each_top_level};
use super::{Mirror, MirrorError};
use crate::api::{ApiRecord, Contact, Timestamp};

/// A contact's fields as [`Contact`] decodes them (same names, same values).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ContactFields<'a> {
    pub id: &'a str,
    pub first_name: Option<Cow<'a, str>>,
    pub last_name: Option<Cow<'a, str>>,
    /// `full_name` as sent (see [`Contact::full_name`] for the name shown).
    pub full_name: Option<Cow<'a, str>>,
    pub email: Option<Cow<'a, str>>,
    pub phone: Option<Cow<'a, str>>,
    pub created_at: Option<DateTime<Utc>>,
    pub updated_at: Option<DateTime<Utc>>,
    /// The ids of its included accounts, in their order.
    pub account_ids: &'a [String],
}

impl ContactFields<'_> {
    /// `full_name` when sent and not blank, else first and last name joined (as
    /// [`Contact::full_name`]).
    pub fn name(&self) -> String {
        if let Some(n) = self.full_name.as_deref().filter(|n| !n.trim().is_empty()) {
            return n.to_string();
        }
        [self.first_name.as_deref(), self.last_name.as_deref()]
            .into_iter()
            .flatten()
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// A field the quick reader leaves to the decoder.
struct Unusual;

fn text_of(v: Option<Stored<'_>>) -> Result<Option<Cow<'_, str>>, Unusual> {
    v.map_or(Ok(None), text)
}

/// Text as [`Contact`] decodes it: a string unescaped, a number's literal, `null` none.
fn text(v: Stored<'_>) -> Result<Option<Cow<'_, str>>, Unusual> {
    let Stored::Json(t) = v else {
        return Err(Unusual);
    };
    match t.as_bytes().first() {
        Some(b'"') if !t.contains('\\') => Ok(Some(Cow::Borrowed(&t[1..t.len() - 1]))),
        Some(b'"') => Ok(serde_json::from_str::<String>(t).ok().map(Cow::Owned)),
        Some(b'-' | b'0'..=b'9') => Ok(Some(Cow::Borrowed(t))),
        Some(b'n') => Ok(None),
        _ => Err(Unusual),
    }
}

fn time(v: Stored<'_>) -> Result<Option<DateTime<Utc>>, Unusual> {
    match v {
        Stored::Time(us) => Ok(DateTime::from_timestamp_micros(us)),
        other => Ok(text(other)?.and_then(|t| Timestamp::parse(&t).instant())),
    }
}

/// The values of one stored contact the reader wants (the last of a key written twice).
#[derive(Default)]
struct Wanted<'a> {
    first_name: Option<Stored<'a>>,
    last_name: Option<Stored<'a>>,
    full_name: Option<Stored<'a>>,
    email: Option<Stored<'a>>,
    phone: Option<Stored<'a>>,
    created_at: Option<Stored<'a>>,
    updated_at: Option<Stored<'a>>,
    accounts: Option<Stored<'a>>,
}

/// Distinct `accounts` values kept decoded at most (most contacts share a few hundred).
const ACCOUNTS_KEPT: usize = 4096;

fn account_ids_of(c: &Contact) -> Vec<String> {
    c.accounts
        .iter()
        .flatten()
        .filter_map(|r| r.id.clone())
        .collect()
}

impl Mirror {
    /// Every live contact's [`ContactFields`], in id order, one at a time: nothing of a
    /// record is kept beyond the call.
    pub fn each_contact_fields(
        &self,
        mut f: impl FnMut(&ContactFields<'_>),
    ) -> Result<(), MirrorError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT id, packed FROM records WHERE resource = 'contacts' AND gone_at IS NULL \
                 ORDER BY id",
            )
            .map_err(|e| self.err(e))?;
        let mut rows = stmt.query([]).map_err(|e| self.err(e))?;
        // An `accounts` value as stored (the parts it points at) -> its ids.
        let mut accounts: HashMap<String, Vec<String>> = HashMap::new();
        while let Some(row) = rows.next().map_err(|e| self.err(e))? {
            let column = |i: usize| -> Result<&str, MirrorError> {
                let v = row.get_ref(i).map_err(|e| self.err(e))?;
                v.as_str().map_err(|e| {
                    self.err(rusqlite::Error::FromSqlConversionFailure(
                        i,
                        rusqlite::types::Type::Text,
                        Box::new(e),
                    ))
                })
            };
            let (id, packed) = (column(0)?, column(1)?);
            let mut w = Wanted::default();
            let read = each_top_level(packed, |k, v| match k {
                "first_name" => w.first_name = Some(v),
                "last_name" => w.last_name = Some(v),
                "full_name" => w.full_name = Some(v),
                "email" => w.email = Some(v),
                "phone" => w.phone = Some(v),
                "created_at" => w.created_at = Some(v),
                "updated_at" => w.updated_at = Some(v),
                "accounts" => w.accounts = Some(v),
                _ => {}
            });
            let ids: &[String] = match (read, w.accounts) {
                (None, _) => &[],
                (Some(()), None) => &[],
                (Some(()), Some(Stored::Time(_))) => &[],
                (Some(()), Some(Stored::Json(t) | Stored::Packed(t))) => {
                    if !accounts.contains_key(t) {
                        if accounts.len() >= ACCOUNTS_KEPT {
                            accounts.clear();
                        }
                        let ids = self.decode_accounts(t)?;
                        accounts.insert(t.to_string(), ids);
                    }
                    &accounts[t]
                }
            };
            let quick = (|| -> Result<ContactFields<'_>, Unusual> {
                read.ok_or(Unusual)?;
                if matches!(w.accounts, Some(Stored::Time(_))) {
                    return Err(Unusual);
                }
                Ok(ContactFields {
                    id,
                    first_name: text_of(w.first_name)?,
                    last_name: text_of(w.last_name)?,
                    full_name: text_of(w.full_name)?,
                    email: text_of(w.email)?,
                    phone: text_of(w.phone)?,
                    created_at: w.created_at.map_or(Ok(None), time)?,
                    updated_at: w.updated_at.map_or(Ok(None), time)?,
                    account_ids: ids,
                })
            })();
            match quick {
                Ok(fields) => f(&fields),
                Err(Unusual) => {
                    if let Some(c) = decode(self.unpack(packed)?) {
                        let ids = account_ids_of(&c);
                        f(&ContactFields {
                            id: &c.id,
                            first_name: c.first_name.as_deref().map(Cow::Borrowed),
                            last_name: c.last_name.as_deref().map(Cow::Borrowed),
                            full_name: c.full_name_field.as_deref().map(Cow::Borrowed),
                            email: c.email.as_deref().map(Cow::Borrowed),
                            phone: c.phone.as_deref().map(Cow::Borrowed),
                            created_at: c.created_at.as_ref().and_then(Timestamp::instant),
                            updated_at: c.updated_at.as_ref().and_then(Timestamp::instant),
                            account_ids: &ids,
                        });
                    }
                }
            }
        }
        Ok(())
    }

    /// The account ids of a stored `accounts` value, decoded as a contact's relation is.
    fn decode_accounts(&self, stored: &str) -> Result<Vec<String>, MirrorError> {
        let text = self.unpack(stored)?;
        Ok(decode(format!(r#"{{"id":"_","accounts":{text}}}"#))
            .map(|c| account_ids_of(&c))
            .unwrap_or_default())
    }
}

fn decode(raw: String) -> Option<Contact> {
    Contact::from_raw(RawValue::from_string(raw).ok()?).ok()
}
