//! The record types of the seed (contact, deal, project, appointment) and their common trait.

use std::fmt;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::fields::{Fields, Related};
use super::{DecodeError, Money, Timestamp};

/// What every record type offers: the common fields, the raw JSON and its unknown fields.
pub trait ApiRecord: Sized + Clone + Send + Sync + fmt::Debug + 'static {
    /// `contact`, `deal`, `project`, `appointment`.
    const KIND: &'static str;
    fn from_raw(raw: Box<RawValue>) -> Result<Self, DecodeError>;
    /// The record as a sync stores it: the same typed fields, but relations by id only
    /// (`Related::fields` empty) and no `extra` (both are in `raw`). A third less work than
    /// [`ApiRecord::from_raw`] for a contact with its includes; for a record that is only
    /// stored, never shown.
    fn from_raw_lean(raw: Box<RawValue>) -> Result<Self, DecodeError> {
        Self::from_raw(raw)
    }
    fn id(&self) -> &str;
    fn created_at(&self) -> Option<&Timestamp>;
    fn updated_at(&self) -> Option<&Timestamp>;
    /// The server's JSON for this record, byte for byte.
    fn raw(&self) -> &RawValue;
    /// Fields the client does not know, as sent.
    fn extra(&self) -> &Map<String, Value>;
    /// What a person calls this record.
    fn label(&self) -> String;
}

macro_rules! common_record_impl {
    ($ty:ident, $kind:literal, |$s:ident| $label:expr) => {
        impl ApiRecord for $ty {
            const KIND: &'static str = $kind;
            fn from_raw(raw: Box<RawValue>) -> Result<Self, DecodeError> {
                $ty::decode(raw, false)
            }
            fn from_raw_lean(raw: Box<RawValue>) -> Result<Self, DecodeError> {
                $ty::decode(raw, true)
            }
            fn id(&self) -> &str {
                &self.id
            }
            fn created_at(&self) -> Option<&Timestamp> {
                self.created_at.as_ref()
            }
            fn updated_at(&self) -> Option<&Timestamp> {
                self.updated_at.as_ref()
            }
            fn raw(&self) -> &RawValue {
                &self.raw
            }
            fn extra(&self) -> &Map<String, Value> {
                &self.extra
            }
            fn label(&self) -> String {
                let $s = self;
                $label
            }
        }
    };
}

/// A contact.
#[derive(Debug, Clone)]
pub struct Contact {
    pub id: String,
    pub created_at: Option<Timestamp>,
    pub updated_at: Option<Timestamp>,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    /// Some services send it; otherwise derived from first and last name by `full_name()`.
    pub full_name_field: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub accounts: Option<Vec<Related>>,
    pub assigned_user: Option<Related>,
    pub assigned_users: Option<Vec<Related>>,
    pub extra: Map<String, Value>,
    pub raw: Box<RawValue>,
}

impl Contact {
    fn decode(raw: Box<RawValue>, lean: bool) -> Result<Self, DecodeError> {
        let mut f = Fields::new(&raw, lean)?;
        Ok(Contact {
            id: f.id(&raw)?,
            created_at: f.time("created_at"),
            updated_at: f.time("updated_at"),
            first_name: f.string("first_name"),
            last_name: f.string("last_name"),
            full_name_field: f.string("full_name"),
            email: f.string("email"),
            phone: f.string("phone"),
            accounts: f.many("accounts"),
            assigned_user: f.one("assigned_user"),
            assigned_users: f.many("assigned_users"),
            extra: f.rest(),
            raw,
        })
    }

    /// `full_name` when sent, else first and last name joined, else empty.
    pub fn full_name(&self) -> String {
        if let Some(n) = self
            .full_name_field
            .as_ref()
            .filter(|n| !n.trim().is_empty())
        {
            return n.clone();
        }
        [self.first_name.as_deref(), self.last_name.as_deref()]
            .into_iter()
            .flatten()
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

common_record_impl!(Contact, "contact", |c| {
    let n = c.full_name();
    if !n.is_empty() {
        n
    } else {
        c.email.clone().unwrap_or_else(|| c.id.clone())
    }
});

/// A deal.
#[derive(Debug, Clone)]
pub struct Deal {
    pub id: String,
    pub created_at: Option<Timestamp>,
    pub updated_at: Option<Timestamp>,
    pub name: Option<String>,
    pub status: Option<String>,
    pub value: Option<Money>,
    pub account: Option<Related>,
    pub contacts: Option<Vec<Related>>,
    pub assigned_user: Option<Related>,
    pub assigned_users: Option<Vec<Related>>,
    pub extra: Map<String, Value>,
    pub raw: Box<RawValue>,
}

impl Deal {
    fn decode(raw: Box<RawValue>, lean: bool) -> Result<Self, DecodeError> {
        let mut f = Fields::new(&raw, lean)?;
        Ok(Deal {
            id: f.id(&raw)?,
            created_at: f.time("created_at"),
            updated_at: f.time("updated_at"),
            name: f.string("name"),
            status: f.string("status"),
            value: f.money("value"),
            account: f.one("account"),
            contacts: f.many("contacts"),
            assigned_user: f.one("assigned_user"),
            assigned_users: f.many("assigned_users"),
            extra: f.rest(),
            raw,
        })
    }
}

common_record_impl!(Deal, "deal", |d| d
    .name
    .clone()
    .unwrap_or_else(|| d.id.clone()));

/// A project.
#[derive(Debug, Clone)]
pub struct Project {
    pub id: String,
    pub created_at: Option<Timestamp>,
    pub updated_at: Option<Timestamp>,
    pub name: Option<String>,
    pub status: Option<String>,
    pub start_date: Option<Timestamp>,
    pub end_date: Option<Timestamp>,
    pub owner: Option<Related>,
    pub members: Option<Vec<Related>>,
    pub extra: Map<String, Value>,
    pub raw: Box<RawValue>,
}

impl Project {
    fn decode(raw: Box<RawValue>, lean: bool) -> Result<Self, DecodeError> {
        let mut f = Fields::new(&raw, lean)?;
        Ok(Project {
            id: f.id(&raw)?,
            created_at: f.time("created_at"),
            updated_at: f.time("updated_at"),
            name: f.string("name"),
            status: f.string("status"),
            start_date: f.time("start_date"),
            end_date: f.time("end_date"),
            owner: f.one("owner"),
            members: f.many("members"),
            extra: f.rest(),
            raw,
        })
    }
}

common_record_impl!(Project, "project", |p| p
    .name
    .clone()
    .unwrap_or_else(|| p.id.clone()));

/// What the reschedule operation returns: `{data: {id, created_at, updated_at}}`.
#[derive(Debug, Clone)]
pub struct AppointmentRef {
    pub id: String,
    pub created_at: Option<Timestamp>,
    pub updated_at: Option<Timestamp>,
    pub extra: Map<String, Value>,
    pub raw: Box<RawValue>,
}

impl AppointmentRef {
    fn decode(raw: Box<RawValue>, lean: bool) -> Result<Self, DecodeError> {
        let mut f = Fields::new(&raw, lean)?;
        Ok(AppointmentRef {
            id: f.id(&raw)?,
            created_at: f.time("created_at"),
            updated_at: f.time("updated_at"),
            extra: f.rest(),
            raw,
        })
    }
}

common_record_impl!(AppointmentRef, "appointment", |a| a.id.clone());
