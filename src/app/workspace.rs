//! What the dashboard keeps beside the tabs for the palette: the saved views (and their
//! file), the profiles it may switch to with their web UI addresses, and the commands run
//! before. The runtime fills it from the config at start (`App::set_workspace`).

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::config::views::SavedView;

#[derive(Debug, Clone, Default)]
pub struct Workspace {
    /// Saved views by name (`views.toml`).
    pub views: BTreeMap<String, SavedView>,
    /// Where `:save` writes them; `None`: only for this session.
    pub views_path: Option<PathBuf>,
    /// The config's profiles, each with its `web_url` template.
    pub profiles: BTreeMap<String, Option<String>>,
    /// The active profile's name (as in the config: without "(demo)").
    pub profile: String,
    /// Palette commands run before, oldest first (kept in the state file).
    pub history: Vec<String>,
    /// What was wrong in the views file (shown once at start).
    pub problems: Vec<String>,
    /// Views saved, renamed or deleted in this session: the file read again never undoes
    /// them (its write may still be on its way).
    pub touched: std::collections::BTreeSet<String>,
}

impl Workspace {
    /// The profiles `:profile` offers: the config's, and the active one.
    pub fn profile_names(&self) -> Vec<String> {
        let mut v: Vec<String> = self.profiles.keys().cloned().collect();
        if !self.profile.is_empty() && !v.contains(&self.profile) {
            v.push(self.profile.clone());
            v.sort();
        }
        v
    }

    /// The saved views that name a filter, sort key, relation or column their resource does
    /// not have, with what is wrong (the palette and the picker say it instead of opening).
    pub fn view_errors(&self) -> BTreeMap<String, String> {
        self.views
            .iter()
            .filter_map(|(name, v)| {
                crate::view_query::resolve_view(name, v)
                    .err()
                    .map(|e| (name.clone(), e))
            })
            .collect()
    }

    /// The active profile's web UI template, if set.
    pub fn web_url(&self) -> Option<&str> {
        self.profiles
            .get(&self.profile)
            .and_then(|u| u.as_deref())
            .filter(|u| !u.trim().is_empty())
    }
}
