//! What the dashboard remembers between runs: the active tab and each tab's sort, page size
//! and includes (JSON in the data dir). Filters and pages are deliberately not remembered.
//!
//! The page size has two sources: `[ui] per_page` in the config file and the size left at the
//! end of the last run. The remembered size wins, unless the config file's value changed since
//! it was saved: the file's value is stored beside the sizes (`config_per_page`), so an edit
//! of the file is noticed whatever the files' times say.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::api::SortDirection;
use crate::app::table::tab::{TabState, clamp_per_page};
use crate::resource::Resource;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PersistedState {
    pub active_tab: Option<Resource>,
    pub tabs: BTreeMap<Resource, PersistedTab>,
    /// `[ui] per_page` as the config file said it when this was saved (`None`: not set).
    pub config_per_page: Option<u32>,
    /// The palette's commands, oldest first.
    pub palette_history: Vec<String>,
}

/// Where a tab's page size comes from, for the help.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageSizeOrigin {
    /// Built in (25): neither the config file nor a last run says otherwise.
    Default,
    /// `[ui] per_page` in the config file.
    Config,
    /// Left so at the end of the last run.
    Remembered,
    /// Changed in this run with `+` / `-`.
    Changed,
}

impl PageSizeOrigin {
    /// `50 per page (from the config file's [ui] per_page)`.
    pub fn describe(self, per_page: u32) -> String {
        let why = match self {
            PageSizeOrigin::Default => "the default; [ui] per_page in the config file sets it",
            PageSizeOrigin::Config => "from the config file's [ui] per_page",
            PageSizeOrigin::Remembered => {
                "remembered from the last run; a changed [ui] per_page in the config file wins"
            }
            PageSizeOrigin::Changed => "changed here; remembered for the next run",
        };
        format!("{per_page} per page ({why})")
    }
}

/// Settles each tab's page size at start: the remembered one (already applied), unless the
/// config file sets one that changed since the state was saved (or there is no remembered
/// one): then the config file's. `config_per_page` is `[ui] per_page` when the file sets it.
pub fn settle_page_sizes(
    tabs: &mut [TabState],
    remembered: &PersistedState,
    config_per_page: Option<u32>,
) {
    let config_changed = config_per_page.is_some() && remembered.config_per_page != config_per_page;
    for tab in tabs {
        let kept = remembered.tabs.contains_key(&tab.resource.kind) && !config_changed;
        if kept {
            tab.per_page_origin = PageSizeOrigin::Remembered;
        } else if let Some(p) = config_per_page {
            tab.per_page = clamp_per_page(p);
            tab.per_page_origin = PageSizeOrigin::Config;
        } else {
            tab.per_page_origin = PageSizeOrigin::Default;
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::resources::Descriptor;

    fn tabs(remembered: &PersistedState, default: u32) -> Vec<TabState> {
        Resource::ALL
            .iter()
            .map(|k| {
                let mut t = TabState::new(Descriptor::of(*k), default);
                if let Some(p) = remembered.tabs.get(k) {
                    p.apply(&mut t);
                }
                t
            })
            .collect()
    }

    fn saved(per_page: u32, config: Option<u32>) -> PersistedState {
        let t = TabState::new(Descriptor::of(Resource::Deals), per_page);
        let mut s = PersistedState {
            config_per_page: config,
            ..PersistedState::default()
        };
        s.tabs.insert(Resource::Deals, PersistedTab::of(&t));
        s
    }

    fn deals(tabs: &[TabState]) -> (u32, PageSizeOrigin) {
        let t = &tabs[Resource::Deals.index()];
        (t.per_page, t.per_page_origin)
    }

    #[test]
    fn the_remembered_size_wins_until_the_config_file_changes() {
        // Saved with per_page = 50 in the file, 100 chosen with `+`: 100 comes back.
        let state = saved(100, Some(50));
        let mut t = tabs(&state, 50);
        settle_page_sizes(&mut t, &state, Some(50));
        assert_eq!(deals(&t), (100, PageSizeOrigin::Remembered));
        // The file now says 10: it wins over the older remembered size.
        let mut t = tabs(&state, 10);
        settle_page_sizes(&mut t, &state, Some(10));
        assert_eq!(deals(&t), (10, PageSizeOrigin::Config));
        // A state saved before the file set any size: the file's new line wins too.
        let state = saved(100, None);
        let mut t = tabs(&state, 25);
        settle_page_sizes(&mut t, &state, Some(25));
        assert_eq!(deals(&t), (25, PageSizeOrigin::Config));
        // The line removed from the file: the remembered size.
        let mut t = tabs(&state, 25);
        settle_page_sizes(&mut t, &state, None);
        assert_eq!(deals(&t), (100, PageSizeOrigin::Remembered));
    }

    #[test]
    fn without_a_remembered_size_the_config_file_or_the_default() {
        let state = PersistedState::default();
        let mut t = tabs(&state, 50);
        settle_page_sizes(&mut t, &state, Some(50));
        assert_eq!(deals(&t), (50, PageSizeOrigin::Config));
        let mut t = tabs(&state, 25);
        settle_page_sizes(&mut t, &state, None);
        assert_eq!(deals(&t), (25, PageSizeOrigin::Default));
        assert_eq!(
            PageSizeOrigin::Config.describe(50),
            "50 per page (from the config file's [ui] per_page)"
        );
    }
}
