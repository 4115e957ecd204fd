//! Loading pages: from the 30 s cache or by a request tagged with an id; answers for queries
//! no longer current are dropped; the next page is prefetched once a query settles.

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::{App, CACHE_TTL, InFlight, Message};
use crate::app::effects::{Effect, RequestId};
use crate::app::table::record::FetchedPage;
use crate::app::table::spec::QuerySpec;
use crate::resource::Resource;

impl App {
    pub(super) fn cached(&self, spec: &QuerySpec) -> Option<(Arc<FetchedPage>, Instant)> {
        let (page, at) = self.cache.get(spec)?;
        (self.now.saturating_duration_since(*at) < CACHE_TTL).then(|| (page.clone(), *at))
    }

    /// Puts the tab's current query on screen: from the cache when fresh (unless `bypass`),
    /// else by a request (adopting a prefetch of the same page already on its way).
    pub(super) fn load(&mut self, kind: Resource, bypass: bool) -> Vec<Effect> {
        let mut fx = Vec::new();
        let i = kind.index();
        let spec = self.tabs[i].spec();
        self.dirty = true;
        if let Some(p) = self.tabs[i].pending.take() {
            if !bypass && self.in_flight.get(&p).is_some_and(|f| f.spec == spec) {
                self.tabs[i].pending = Some(p);
                return fx;
            }
            self.in_flight.remove(&p);
            fx.push(Effect::Cancel(p));
        }
        self.tabs[i].error = None;
        if bypass {
            self.cache.retain(|s, _| s.kind != kind);
            self.tabs[i].prefetched_for = None;
        } else if let Some((page, at)) = self.cached(&spec) {
            self.tabs[i].show(spec, page, at);
            let rows = self.areas().table_rows();
            self.tabs[i].scroll_into_view(rows);
            return fx;
        } else if let Some((id, f)) = self
            .in_flight
            .iter_mut()
            .find(|(_, f)| f.prefetch && f.spec == spec)
        {
            f.prefetch = false;
            self.tabs[i].pending = Some(*id);
            return fx;
        }
        let id = self.new_id();
        self.in_flight.insert(
            id,
            InFlight {
                spec: spec.clone(),
                prefetch: false,
            },
        );
        self.tabs[i].pending = Some(id);
        fx.push(Effect::Fetch { id, spec });
        fx
    }

    pub(super) fn on_fetched(
        &mut self,
        id: RequestId,
        result: Result<Arc<FetchedPage>, String>,
        elapsed: Duration,
    ) -> Vec<Effect> {
        // Cancelled or superseded: dropped, never shown.
        let Some(f) = self.in_flight.remove(&id) else {
            // Not a tab's: perhaps a dialog's lookup (the new-contact duplicate check).
            return self.dispatch_to_dialogs(&Message::Fetched {
                id,
                result,
                elapsed,
            });
        };
        // A request that never went out (no token yet) has no latency to show.
        if !elapsed.is_zero() {
            self.status.latency = Some(elapsed);
        }
        self.status.retrying = None;
        self.dirty = true;
        let i = f.spec.kind.index();
        let current = self.tabs[i].pending == Some(id);
        match result {
            Ok(page) => {
                self.cache
                    .retain(|_, (_, at)| self.now.saturating_duration_since(*at) < CACHE_TTL);
                // Pages from the mirror (offline) are read again each time, never cached.
                if page.mirrored.is_none() {
                    self.cache.insert(f.spec.clone(), (page.clone(), self.now));
                }
                if current {
                    self.tabs[i].pending = None;
                    self.status.clear_error();
                    let beyond_end = page.records.is_empty() && f.spec.page > 1;
                    self.tabs[i].show(f.spec.clone(), page, self.now);
                    self.select_created(f.spec.kind);
                    let rows = self.areas().table_rows();
                    self.tabs[i].scroll_into_view(rows);
                    // The list shrank under us: go to its new last page.
                    if beyond_end
                        && let Some(last) = self.tabs[i].last_page()
                        && last < f.spec.page
                    {
                        self.tabs[i].page = last;
                        return self.load(f.spec.kind, false);
                    }
                }
            }
            Err(e) => {
                if current {
                    self.tabs[i].pending = None;
                    // The login dialog already says why (no token, the keyring's problem):
                    // not repeated behind it. Skipping the dialog shows it.
                    if self.login_open() {
                        self.status.behind_login = Some(e);
                    } else {
                        self.tabs[i].error = Some(e.clone());
                        self.status.set_error(self.wall, self.now, e);
                    }
                }
            }
        }
        Vec::new()
    }

    /// Once the active tab's query has settled, asks for its next page (once per query).
    pub(super) fn maybe_prefetch(&mut self) -> Option<Effect> {
        let tab = self.tab();
        let spec = tab.spec();
        let settled = tab.pending.is_none()
            && tab.debounce_until.is_none()
            && tab.error.is_none()
            // The service's page, not the mirror's (offline, or before the service answered).
            && tab.shown.as_ref().is_some_and(|s| s.spec == spec && s.page.mirrored.is_none());
        if !settled || !tab.server_pages() || tab.prefetched_for.as_ref() == Some(&spec) {
            return None;
        }
        let last = tab.last_page()?;
        if spec.page >= last {
            return None;
        }
        self.tab_mut().prefetched_for = Some(spec.clone());
        let next = spec.at_page(spec.page + 1);
        if self.cached(&next).is_some() || self.in_flight.values().any(|f| f.spec == next) {
            return None;
        }
        let id = self.new_id();
        self.in_flight.insert(
            id,
            InFlight {
                spec: next.clone(),
                prefetch: true,
            },
        );
        Some(Effect::Fetch { id, spec: next })
    }
}
