//! Typed list queries: exactly the seed's filters, sort keys and includes per resource,
//! turned into query-string pairs. Invalid paging is refused here, before any request.

use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Serialize};

use super::error::ApiError;
use super::models::{ApiRecord, Contact, Deal, Project};
use crate::resource::Resource;

/// Largest `per_page` the service accepts (seed: "up to 100").
pub const MAX_PER_PAGE: u32 = 100;

/// Declares a closed set of wire values as an enum with `as_str`, `ALL`, `FromStr`
/// (whose error lists the valid choices), `Display`, serde as the wire string and clap's `ValueEnum`.
macro_rules! wire_enum {
    ($(#[$meta:meta])* $name:ident { $($variant:ident => $wire:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name { $($variant),+ }

        impl $name {
            /// Every value, in the seed's order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The value as sent on the wire.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $wire),+ }
            }

            /// The valid wire values, comma separated (for error messages).
            pub fn choices() -> String {
                Self::ALL.iter().map(|v| v.as_str()).collect::<Vec<_>>().join(", ")
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                match s.trim() {
                    $($wire => Ok($name::$variant),)+
                    other => Err(format!(
                        "'{}' is not one of: {}", other, Self::choices()
                    )),
                }
            }
        }

        impl Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                s.parse().map_err(serde::de::Error::custom)
            }
        }

        impl clap::ValueEnum for $name {
            fn value_variants<'a>() -> &'a [Self] { Self::ALL }
            fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
                Some(clap::builder::PossibleValue::new(self.as_str()))
            }
        }
    };
}

wire_enum!(
    /// `sort_direction`.
    SortDirection { Asc => "asc", Desc => "desc" }
);

impl SortDirection {
    pub fn flipped(self) -> Self {
        match self {
            SortDirection::Asc => SortDirection::Desc,
            SortDirection::Desc => SortDirection::Asc,
        }
    }
}

wire_enum!(
    /// Sort keys of `GET /contacts`.
    ContactSort { CreatedAt => "created_at", UpdatedAt => "updated_at", FirstName => "first_name",
                  LastName => "last_name", Email => "email" }
);
wire_enum!(
    /// Relations `GET /contacts` can include.
    ContactInclude { Accounts => "accounts", AssignedUser => "assigned_user", AssignedUsers => "assigned_users" }
);
wire_enum!(
    /// Sort keys of `GET /deals`.
    DealSort { CreatedAt => "created_at", UpdatedAt => "updated_at", Name => "name",
               Status => "status", Value => "value" }
);
wire_enum!(
    /// Relations `GET /deals` can include.
    DealInclude { Account => "account", Contacts => "contacts", AssignedUser => "assigned_user",
                  AssignedUsers => "assigned_users" }
);
wire_enum!(
    /// Sort keys of `GET /projects`.
    ProjectSort { CreatedAt => "created_at", UpdatedAt => "updated_at", Name => "name",
                  Status => "status", StartDate => "start_date", EndDate => "end_date" }
);
wire_enum!(
    /// Relations `GET /projects` can include.
    ProjectInclude { Owner => "owner", Members => "members" }
);

/// Page number and size. Both are optional: unset means "let the server decide".
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Paging {
    pub page: Option<u32>,
    pub per_page: Option<u32>,
}

impl Paging {
    /// Checks `page >= 1` and `per_page` in `1..=100` (the seed's maximum).
    pub fn validate(&self) -> Result<(), ApiError> {
        if let Some(page) = self.page
            && page == 0
        {
            return Err(ApiError::invalid_request("page", "page must be 1 or more"));
        }
        if let Some(pp) = self.per_page
            && !(1..=MAX_PER_PAGE).contains(&pp)
        {
            return Err(ApiError::invalid_request(
                "per_page",
                format!("per_page must be between 1 and {MAX_PER_PAGE} (got {pp})"),
            ));
        }
        Ok(())
    }

    fn push(&self, out: &mut Vec<(&'static str, String)>) {
        if let Some(p) = self.page {
            out.push(("page", p.to_string()));
        }
        if let Some(pp) = self.per_page {
            out.push(("per_page", pp.to_string()));
        }
    }
}

/// A list query of one resource: its path, its record type and its query-string pairs.
pub trait ListQuery: Clone + Send + Sync + 'static {
    /// The record type the list returns.
    type Item: ApiRecord;
    /// The resource listed: its noun is the path under `/public/v1/`.
    const RESOURCE: Resource;
    /// Validated query-string pairs, in a stable order (so equal queries give equal URLs).
    fn to_pairs(&self) -> Result<Vec<(&'static str, String)>, ApiError>;
    fn paging(&self) -> Paging;
    fn set_paging(&mut self, paging: Paging);
}

/// Longest filter value sent; longer input is refused before any request (URLs this long
/// are cut or refused by proxies and servers).
pub const MAX_FILTER_CHARS: usize = 1000;

/// A text filter: trimmed; blank means "no filter"; control characters and over-long values
/// are refused before any request.
fn push_opt(
    out: &mut Vec<(&'static str, String)>,
    key: &'static str,
    v: &Option<String>,
) -> Result<(), ApiError> {
    let Some(v) = v.as_deref().map(str::trim).filter(|v| !v.is_empty()) else {
        return Ok(());
    };
    if v.chars().any(char::is_control) {
        return Err(ApiError::invalid_request(
            key,
            format!("the {key} filter contains control characters"),
        ));
    }
    let len = v.chars().count();
    if len > MAX_FILTER_CHARS {
        return Err(ApiError::invalid_request(
            key,
            format!("the {key} filter is {len} characters long (at most {MAX_FILTER_CHARS})"),
        ));
    }
    out.push((key, v.to_string()));
    Ok(())
}

fn push_time(out: &mut Vec<(&'static str, String)>, key: &'static str, v: &Option<DateTime<Utc>>) {
    if let Some(t) = v {
        out.push((key, t.to_rfc3339_opts(SecondsFormat::Secs, true)));
    }
}

fn push_include<T: Copy + Ord + std::fmt::Display>(
    out: &mut Vec<(&'static str, String)>,
    include: &[T],
) {
    if include.is_empty() {
        return;
    }
    let mut v: Vec<T> = include.to_vec();
    v.sort();
    v.dedup();
    let joined = v
        .iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(",");
    out.push(("include", joined));
}

fn push_sort<S: std::fmt::Display>(
    out: &mut Vec<(&'static str, String)>,
    sort_by: &Option<S>,
    dir: &Option<SortDirection>,
) {
    if let Some(s) = sort_by {
        out.push(("sort_by", s.to_string()));
    }
    if let Some(d) = dir {
        out.push(("sort_direction", d.to_string()));
    }
}

/// `GET /public/v1/contacts`. The seed does not say whether contacts are paginated:
/// `page`/`per_page` are sent only when set.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ContactQuery {
    pub email: Option<String>,
    pub full_name: Option<String>,
    pub created_after: Option<DateTime<Utc>>,
    pub updated_after: Option<DateTime<Utc>>,
    pub sort_by: Option<ContactSort>,
    pub sort_direction: Option<SortDirection>,
    pub include: Vec<ContactInclude>,
    pub paging: Paging,
}

impl ListQuery for ContactQuery {
    type Item = Contact;
    const RESOURCE: Resource = Resource::Contacts;

    fn to_pairs(&self) -> Result<Vec<(&'static str, String)>, ApiError> {
        self.paging.validate()?;
        let mut out = Vec::new();
        push_opt(&mut out, "email", &self.email)?;
        push_opt(&mut out, "full_name", &self.full_name)?;
        push_time(&mut out, "created_after", &self.created_after);
        push_time(&mut out, "updated_after", &self.updated_after);
        push_sort(&mut out, &self.sort_by, &self.sort_direction);
        push_include(&mut out, &self.include);
        self.paging.push(&mut out);
        Ok(out)
    }
    fn paging(&self) -> Paging {
        self.paging
    }
    fn set_paging(&mut self, paging: Paging) {
        self.paging = paging;
    }
}

/// The query of a list filtered by name and status (deals, projects): one definition, one
/// struct per resource with that resource's own sort keys and includes.
macro_rules! name_status_query {
    ($(#[$doc:meta])* $name:ident, $item:ty, $resource:expr, $sort:ty, $include:ty) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub struct $name {
            pub name: Option<String>,
            pub status: Option<String>,
            pub sort_by: Option<$sort>,
            pub sort_direction: Option<SortDirection>,
            pub include: Vec<$include>,
            pub paging: Paging,
        }

        impl ListQuery for $name {
            type Item = $item;
            const RESOURCE: Resource = $resource;

            fn to_pairs(&self) -> Result<Vec<(&'static str, String)>, ApiError> {
                self.paging.validate()?;
                let mut out = Vec::new();
                push_opt(&mut out, "name", &self.name)?;
                push_opt(&mut out, "status", &self.status)?;
                push_sort(&mut out, &self.sort_by, &self.sort_direction);
                push_include(&mut out, &self.include);
                self.paging.push(&mut out);
                Ok(out)
            }
            fn paging(&self) -> Paging {
                self.paging
            }
            fn set_paging(&mut self, paging: Paging) {
                self.paging = paging;
            }
        }
    };
}

name_status_query!(
    /// `GET /public/v1/deals`.
    DealQuery,
    Deal,
    Resource::Deals,
    DealSort,
    DealInclude
);
name_status_query!(
    /// `GET /public/v1/projects`.
    ProjectQuery,
    Project,
    Resource::Projects,
    ProjectSort,
    ProjectInclude
);

#[cfg(test)]
mod tests {
    use super::*;

    fn wire<T: std::fmt::Display>(all: &[T]) -> Vec<String> {
        all.iter().map(|v| v.to_string()).collect()
    }

    /// The typed sort keys and includes are the resource facts' lists, in the same order.
    #[test]
    fn typed_lists_are_the_resource_facts() {
        let pairs = [
            (
                Resource::Contacts,
                wire(ContactSort::ALL),
                wire(ContactInclude::ALL),
            ),
            (Resource::Deals, wire(DealSort::ALL), wire(DealInclude::ALL)),
            (
                Resource::Projects,
                wire(ProjectSort::ALL),
                wire(ProjectInclude::ALL),
            ),
        ];
        for (r, sorts, includes) in pairs {
            assert_eq!(sorts, r.sort_keys(), "{r}");
            assert_eq!(includes, r.includes(), "{r}");
        }
        assert_eq!(ContactQuery::RESOURCE, Resource::Contacts);
        assert_eq!(DealQuery::RESOURCE, Resource::Deals);
        assert_eq!(ProjectQuery::RESOURCE, Resource::Projects);
    }
}
