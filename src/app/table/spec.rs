//! `QuerySpec`: one tab's query as plain, hashable data (filters, sort, includes, page). It keys
//! the page cache and tells whether a result is still wanted; each resource's query builder
//! (`app::resources`) turns it into the typed query the client sends.

use chrono::{DateTime, SecondsFormat, Utc};

use crate::api::{Paging, SortDirection};
use crate::resource::Resource;

/// A filter's value, already checked.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum FilterValue {
    Text(String),
    Instant(DateTime<Utc>),
}

impl FilterValue {
    pub fn display(&self) -> String {
        match self {
            FilterValue::Text(s) => s.clone(),
            FilterValue::Instant(t) => t.to_rfc3339_opts(SecondsFormat::Secs, true),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct QuerySpec {
    pub kind: Resource,
    /// Non-empty filters, in the descriptor's order.
    pub filters: Vec<(&'static str, FilterValue)>,
    pub sort_by: &'static str,
    pub direction: SortDirection,
    /// Sorted and deduplicated.
    pub includes: Vec<&'static str>,
    pub page: u32,
    pub per_page: u32,
}

impl QuerySpec {
    /// The same query at another page.
    pub fn at_page(&self, page: u32) -> QuerySpec {
        QuerySpec {
            page,
            ..self.clone()
        }
    }

    /// `status=won, name=acme`: what the tab title and the empty state say.
    pub fn filter_summary(&self) -> String {
        self.filters
            .iter()
            .map(|(k, v)| format!("{k}={}", v.display()))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// A text filter's value.
    pub fn text(&self, key: &str) -> Option<String> {
        self.filters.iter().find_map(|(k, v)| match v {
            FilterValue::Text(s) if *k == key => Some(s.clone()),
            _ => None,
        })
    }

    /// A date filter's value.
    pub fn instant(&self, key: &str) -> Option<DateTime<Utc>> {
        self.filters.iter().find_map(|(k, v)| match v {
            FilterValue::Instant(t) if *k == key => Some(*t),
            _ => None,
        })
    }

    /// The page asked for, as the typed queries carry it.
    pub fn paging(&self) -> Paging {
        Paging {
            page: Some(self.page),
            per_page: Some(self.per_page),
        }
    }
}
