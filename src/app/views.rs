//! A tab's query as a saved view (`:save`): the grammar that reads views back is
//! `view_query`, below the dashboard and the command line.

use crate::api::SortDirection;
use crate::app::table::tab::TabState;
use crate::config::views::SavedView;

/// What a tab shows now, as a view to save (filters as typed in the bar).
pub fn view_of_tab(tab: &TabState, columns: Option<Vec<String>>) -> SavedView {
    let filters = tab
        .filter_bar
        .fields
        .iter()
        .filter(|f| !f.input.value().trim().is_empty())
        .map(|f| (f.field.key.to_string(), f.input.value().trim().to_string()))
        .collect();
    let sort = match tab.direction {
        SortDirection::Desc => format!("-{}", tab.sort_by),
        SortDirection::Asc => tab.sort_by.to_string(),
    };
    SavedView {
        resource: tab.resource.kind.noun().to_string(),
        filters,
        sort: Some(sort),
        include: Some(tab.includes.iter().map(|s| s.to_string()).collect()),
        per_page: Some(tab.per_page),
        columns,
    }
}
