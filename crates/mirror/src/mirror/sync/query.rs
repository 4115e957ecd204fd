//! The list queries a sync pages with: everything oldest created first (a full pass), and
//! what changed newest first (an incremental pass), every include each time.

use chrono::{DateTime, Utc};

use super::super::doc::Mirrored;
use crate::api::{
    ContactInclude, ContactQuery, ContactSort, DealInclude, DealQuery, DealSort, ListQuery, Paging,
    ProjectInclude, ProjectQuery, ProjectSort, SortDirection,
};

/// A list query the sync can page with.
pub trait SyncQuery: ListQuery<Item: Mirrored> {
    /// Whether the API filters this resource by `updated_after`.
    const UPDATED_AFTER: bool;
    /// Everything, oldest created first, with every include.
    fn everything(paging: Paging) -> Self;
    /// Newest changed first, with every include; `since` only for `UPDATED_AFTER` resources.
    fn changed(since: Option<DateTime<Utc>>, paging: Paging) -> Self;
}

impl SyncQuery for ContactQuery {
    const UPDATED_AFTER: bool = true;
    fn everything(paging: Paging) -> Self {
        ContactQuery {
            sort_by: Some(ContactSort::CreatedAt),
            sort_direction: Some(SortDirection::Asc),
            include: ContactInclude::ALL.to_vec(),
            paging,
            ..ContactQuery::default()
        }
    }
    fn changed(since: Option<DateTime<Utc>>, paging: Paging) -> Self {
        ContactQuery {
            updated_after: since,
            sort_by: Some(ContactSort::UpdatedAt),
            sort_direction: Some(SortDirection::Desc),
            include: ContactInclude::ALL.to_vec(),
            paging,
            ..ContactQuery::default()
        }
    }
}

impl SyncQuery for DealQuery {
    const UPDATED_AFTER: bool = false;
    fn everything(paging: Paging) -> Self {
        DealQuery {
            sort_by: Some(DealSort::CreatedAt),
            sort_direction: Some(SortDirection::Asc),
            include: DealInclude::ALL.to_vec(),
            paging,
            ..DealQuery::default()
        }
    }
    fn changed(_since: Option<DateTime<Utc>>, paging: Paging) -> Self {
        DealQuery {
            sort_by: Some(DealSort::UpdatedAt),
            sort_direction: Some(SortDirection::Desc),
            include: DealInclude::ALL.to_vec(),
            paging,
            ..DealQuery::default()
        }
    }
}

impl SyncQuery for ProjectQuery {
    const UPDATED_AFTER: bool = false;
    fn everything(paging: Paging) -> Self {
        ProjectQuery {
            sort_by: Some(ProjectSort::CreatedAt),
            sort_direction: Some(SortDirection::Asc),
            include: ProjectInclude::ALL.to_vec(),
            paging,
            ..ProjectQuery::default()
        }
    }
    fn changed(_since: Option<DateTime<Utc>>, paging: Paging) -> Self {
        ProjectQuery {
            sort_by: Some(ProjectSort::UpdatedAt),
            sort_direction: Some(SortDirection::Desc),
            include: ProjectInclude::ALL.to_vec(),
            paging,
            ..ProjectQuery::default()
        }
    }
}
