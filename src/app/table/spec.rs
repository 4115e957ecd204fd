//! `QuerySpec`: one tab's query as plain, hashable data (filters, sort, includes, page). It keys
//! the page cache and tells whether a result is still wanted; the runtime turns it into the
//! typed `ContactQuery` / `DealQuery` / `ProjectQuery`.

use chrono::{DateTime, SecondsFormat, Utc};

use crate::api::{ApiError, ContactQuery, DealQuery, Paging, ProjectQuery, SortDirection};
use crate::app::resources::TabKind;

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
    pub kind: TabKind,
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

    fn text(&self, key: &str) -> Option<String> {
        self.filters.iter().find_map(|(k, v)| match v {
            FilterValue::Text(s) if *k == key => Some(s.clone()),
            _ => None,
        })
    }

    fn instant(&self, key: &str) -> Option<DateTime<Utc>> {
        self.filters.iter().find_map(|(k, v)| match v {
            FilterValue::Instant(t) if *k == key => Some(*t),
            _ => None,
        })
    }

    fn paging(&self) -> Paging {
        Paging {
            page: Some(self.page),
            per_page: Some(self.per_page),
        }
    }

    fn parse<T: std::str::FromStr<Err = String>>(
        what: &str,
        names: &[&'static str],
    ) -> Result<Vec<T>, ApiError> {
        names
            .iter()
            .map(|n| n.parse().map_err(|e| ApiError::invalid_request(what, e)))
            .collect()
    }

    pub fn contact_query(&self) -> Result<ContactQuery, ApiError> {
        Ok(ContactQuery {
            email: self.text("email"),
            full_name: self.text("full_name"),
            created_after: self.instant("created_after"),
            updated_after: self.instant("updated_after"),
            sort_by: Some(
                self.sort_by
                    .parse()
                    .map_err(|e| ApiError::invalid_request("sort_by", e))?,
            ),
            sort_direction: Some(self.direction),
            include: Self::parse("include", &self.includes)?,
            paging: self.paging(),
        })
    }

    pub fn deal_query(&self) -> Result<DealQuery, ApiError> {
        Ok(DealQuery {
            name: self.text("name"),
            status: self.text("status"),
            sort_by: Some(
                self.sort_by
                    .parse()
                    .map_err(|e| ApiError::invalid_request("sort_by", e))?,
            ),
            sort_direction: Some(self.direction),
            include: Self::parse("include", &self.includes)?,
            paging: self.paging(),
        })
    }

    pub fn project_query(&self) -> Result<ProjectQuery, ApiError> {
        Ok(ProjectQuery {
            name: self.text("name"),
            status: self.text("status"),
            sort_by: Some(
                self.sort_by
                    .parse()
                    .map_err(|e| ApiError::invalid_request("sort_by", e))?,
            ),
            sort_direction: Some(self.direction),
            include: Self::parse("include", &self.includes)?,
            paging: self.paging(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{DealInclude, DealSort, ListQuery};

    #[test]
    fn spec_becomes_the_typed_query() {
        let spec = QuerySpec {
            kind: TabKind::Deals,
            filters: vec![("status", FilterValue::Text("won".into()))],
            sort_by: "value",
            direction: SortDirection::Desc,
            includes: vec!["account", "assigned_user"],
            page: 2,
            per_page: 50,
        };
        let q = spec.deal_query().unwrap();
        assert_eq!(q.sort_by, Some(DealSort::Value));
        assert_eq!(q.include, [DealInclude::Account, DealInclude::AssignedUser]);
        assert_eq!(q.status.as_deref(), Some("won"));
        assert!(q.to_pairs().unwrap().contains(&("page", "2".to_string())));
        assert_eq!(spec.filter_summary(), "status=won");
    }
}
