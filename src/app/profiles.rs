//! `:profile NAME`: switching profile without restarting. The runtime makes a client bound
//! to that profile's base URL with that profile's token (`Effect::SwitchProfile`); only when
//! it answers does the app park the old profile's tabs, cancel its requests, forget its
//! cached pages and put the new client in place, so no request of one profile goes out with
//! the other's token or to the other's host.

use std::collections::HashMap;
use std::sync::Arc;

use tokio::time::Instant;

use super::App;
use crate::app::QuerySpec;
use crate::app::dialogs::Overlay;
use crate::app::dialogs::notice::Notice;
use crate::app::effects::{Effect, NewClient};
use crate::app::resources::{Descriptor, Resource};
use crate::app::table::record::FetchedPage;
use crate::app::table::tab::TabState;
use crate::app::workspace::Workspace;

/// A profile set aside by `:profile`: its tabs and its page cache (which is never read while
/// another profile is active).
pub(crate) struct Parked {
    tabs: Vec<TabState>,
    cache: HashMap<QuerySpec, (Arc<FetchedPage>, Instant)>,
}

impl App {
    /// The views, profiles and history the runtime read at start (the history already
    /// remembered is kept).
    pub fn set_workspace(&mut self, mut ws: Workspace) {
        if ws.history.is_empty() {
            ws.history = std::mem::take(&mut self.workspace.history);
        }
        if !ws.problems.is_empty() {
            // After the config file's own warnings, if any.
            let mut text = ws.problems.join("; ");
            if let Some((before, _)) = &self.status.note {
                text = format!("{before}; {text}");
            }
            self.status.note = Some((text, self.now + std::time::Duration::from_secs(15)));
        }
        self.workspace = ws;
    }

    pub(crate) fn switch_profile(&mut self, name: &str) -> Vec<Effect> {
        if !self.safety.held.is_empty() {
            // The write is the current profile's: it must not go out under another.
            self.note(format!(
                "A write waits to be sent to profile {}: let it go, or take it back with {}, first",
                self.workspace.profile,
                self.keymap.first_key(crate::app::keymap::Action::Undo)
            ));
            return Vec::new();
        }
        if name == self.workspace.profile {
            self.note(format!("Already on profile {name}"));
            return Vec::new();
        }
        if self.status.awaiting_token {
            // The lookup's answer is this profile's and would land after the switch.
            self.note(format!(
                "Still looking up profile {}'s token: switch to {name} once it is settled",
                self.workspace.profile
            ));
            return Vec::new();
        }
        self.note(format!("Switching to profile {name}…"));
        vec![Effect::SwitchProfile {
            name: name.to_string(),
        }]
    }

    pub(super) fn profile_switched(
        &mut self,
        profile: String,
        result: Result<NewClient, String>,
    ) -> Vec<Effect> {
        let client = match result {
            Ok(c) => c,
            Err(e) => {
                // Whole, in a dialog: the status bar would cut it, and it says what to run.
                self.overlays.push(Overlay::Notice(Notice {
                    title: format!("Profile {profile} not switched to"),
                    text: format!("{e}. Still on profile {}.", self.workspace.profile),
                    copy: None,
                }));
                self.dirty = true;
                return Vec::new();
            }
        };
        let host = crate::config::host_label(client.0.base_url().as_str());
        // The old profile's requests stop; its pages are never shown under the new one.
        let mut fx: Vec<Effect> = self
            .in_flight
            .drain()
            .map(|(id, _)| Effect::Cancel(id))
            .collect();
        // A write confirmed while the switch was under way belongs to the old profile: it
        // never goes out with the new client (its dialog keeps the draft).
        fx.extend(self.take_back());
        let next = self.parked.remove(&profile).unwrap_or_else(|| Parked {
            tabs: Resource::ALL
                .iter()
                .map(|k| TabState::new(Descriptor::of(*k), self.config.per_page))
                .collect(),
            cache: HashMap::new(),
        });
        let mut old = Parked {
            tabs: std::mem::replace(&mut self.tabs, next.tabs),
            cache: std::mem::replace(&mut self.cache, next.cache),
        };
        for t in old.tabs.iter_mut().chain(self.tabs.iter_mut()) {
            t.pending = None;
            t.prefetched_for = None;
        }
        let previous = std::mem::replace(&mut self.workspace.profile, profile.clone());
        self.parked.insert(previous, old);
        // The old profile's pipeline and timeline readings stop too.
        fx.extend(self.cancel_pipeline_reading());
        fx.extend(self.cancel_timeline_reading());
        self.pipeline = None;
        self.pipeline_visible = false;
        self.timeline = None;
        self.currency_chip = None;
        let demo = self.config.profile.ends_with(" (demo)");
        self.config.profile = if demo {
            format!("{profile} (demo)")
        } else {
            profile.clone()
        };
        self.config.host = host;
        self.status.clear_error();
        let flags = self.profile_safety();
        let flags = if flags.read_only || flags.protected {
            format!(" · {}", flags.describe())
        } else {
            String::new()
        };
        self.note(format!("Profile {profile} @ {}{flags}", self.config.host));
        // The client first: the page requests below go out with its token.
        fx.push(Effect::UseClient(client));
        // The runtime swapped in this profile's own mirror: its rows, its sync schedule.
        fx.extend(self.mirror_switched());
        // Pages of this profile seen in the last 30 s come back from its own cache.
        fx.extend(self.load(self.active, false));
        fx
    }
}
