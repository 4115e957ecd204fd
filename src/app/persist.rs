//! What the dashboard remembers between runs: the active tab and each tab's sort, page size
//! and includes (JSON in the data dir). Filters and pages are deliberately not remembered.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::api::SortDirection;
use crate::app::resources::TabKind;
use crate::app::table::tab::{TabState, clamp_per_page};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PersistedState {
    pub active_tab: Option<TabKind>,
    pub tabs: BTreeMap<TabKind, PersistedTab>,
    /// The palette's commands, oldest first.
    pub palette_history: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PersistedTab {
    pub sort_by: String,
    pub sort_direction: SortDirection,
    pub per_page: u32,
    pub includes: Vec<String>,
    /// The columns shown, in order, when not the resource's own (`:columns`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub columns: Option<Vec<String>>,
}

impl PersistedTab {
    pub fn of(tab: &TabState) -> Self {
        PersistedTab {
            sort_by: tab.sort_by.to_string(),
            sort_direction: tab.direction,
            per_page: tab.per_page,
            includes: tab.includes.iter().map(|s| s.to_string()).collect(),
            columns: (!tab.resource.default_columns()).then(|| {
                tab.resource
                    .columns
                    .iter()
                    .map(|c| c.title.to_string())
                    .collect()
            }),
        }
    }

    /// Applies what is still valid (a key the seed no longer lists is ignored).
    pub fn apply(&self, tab: &mut TabState) {
        if let Some(k) = tab.resource.sort_key(&self.sort_by) {
            tab.sort_by = k;
        }
        tab.direction = self.sort_direction;
        tab.per_page = clamp_per_page(self.per_page);
        let mut inc: Vec<&'static str> = self
            .includes
            .iter()
            .filter_map(|i| tab.resource.include(i))
            .collect();
        inc.sort();
        inc.dedup();
        tab.includes = inc;
        if let Some(cols) = &self.columns {
            let ids: Vec<_> = cols
                .iter()
                .filter_map(|t| {
                    tab.resource
                        .all_columns()
                        .iter()
                        .find(|c| c.title.eq_ignore_ascii_case(t))
                })
                .map(|c| c.id)
                .collect();
            tab.set_columns(&ids);
        }
    }
}
