//! The status and hint lines are drawn once per change of what they show, not once per frame.
//!
//! `update()` (through `after_update`) sums up each line's inputs in a key: a hash of the few
//! plain values the line is made of (the page's position, the data's age step, the request
//! state, the messages, the profile, the focus, the width...), no text built. The view keeps
//! the row it drew under that key and copies it while the key holds; a key that changed makes
//! it draw the row again. So a `j` that moves the selection builds neither line. In debug
//! builds the view checks every reused row against a fresh one, so an input missing from a
//! key fails the tests that draw that state.

use std::cell::{Cell, RefCell};
use std::hash::{DefaultHasher, Hash, Hasher};

use ratatui::buffer::Cell as BufCell;
use ratatui::layout::Rect;

use super::App;

/// One drawn row and the key it was drawn under.
#[derive(Debug, Clone, Default)]
pub struct Row {
    pub key: u64,
    pub area: Rect,
    pub cells: Vec<BufCell>,
}

/// How many times each line was drawn anew (tests read them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Builds {
    pub status: u64,
    pub hint: u64,
}

/// The keys `update()` keeps and the rows the view drew under them.
#[derive(Debug, Default)]
pub struct Chrome {
    pub status_key: u64,
    pub hint_key: u64,
    /// Bumped whenever a key changes (what the cache is invalidated by).
    pub generation: u64,
    pub status_row: RefCell<Option<Row>>,
    pub hint_row: RefCell<Option<Row>>,
    pub builds: Cell<Builds>,
}

impl Chrome {
    /// The row cached for `area` under `key`, if the view drew one.
    pub fn cached(slot: &RefCell<Option<Row>>, key: u64, area: Rect) -> Option<Vec<BufCell>> {
        let row = slot.borrow();
        let row = row.as_ref()?;
        (row.key == key && row.area == area).then(|| row.cells.clone())
    }
}

/// The step of an age label (`updated just now`, `20 s ago`, `3 min ago`, `2 h ago`): equal
/// steps, equal labels.
fn age_step(age: std::time::Duration) -> u64 {
    let s = age.as_secs();
    match s {
        0..10 => 0,
        10..60 => s / 10,
        60..3600 => 100 + s / 60,
        _ => 1_000_000 + s / 3600,
    }
}

impl App {
    /// Recomputes both keys; a changed one invalidates its row (called after every update).
    pub(crate) fn refresh_chrome(&mut self) {
        let status = self.status_key();
        let hint = self.hint_key();
        if status != self.chrome.status_key || hint != self.chrome.hint_key {
            self.chrome.status_key = status;
            self.chrome.hint_key = hint;
            self.chrome.generation += 1;
        }
    }

    /// What the status line shows, as plain values.
    fn status_key(&self) -> u64 {
        let mut h = DefaultHasher::new();
        self.size.0.hash(&mut h);
        std::mem::discriminant(&self.config.colors).hash(&mut h);
        self.active.hash(&mut h);
        self.pipeline_shown().is_some().hash(&mut h);
        let tab = self.tab();
        if let Some(shown) = &tab.shown {
            let page = &shown.page;
            if let Some(m) = page.meta {
                (m.current_page, m.last_page, m.per_page, m.total).hash(&mut h);
            }
            (shown.spec.page, tab.last_page(), page.records.len()).hash(&mut h);
            page.mirrored.map(|m| m.synced_at).hash(&mut h);
            age_step(self.now.saturating_duration_since(shown.loaded_at)).hash(&mut h);
        }
        // The clock of a sync time reads the wall clock's day (in any zone: 15-minute steps).
        (self.wall.timestamp() / 900).hash(&mut h);
        let m = &self.mirror;
        (m.offline.is_some(), m.data_from, m.exists).hash(&mut h);
        if let Some(p) = &m.syncing {
            p.as_ref()
                .map(|p| (p.resource, p.fetched, p.total))
                .hash(&mut h);
        }
        let busy = self.busy();
        busy.hash(&mut h);
        if busy {
            self.spinner_frame.hash(&mut h);
        }
        self.status.latency.hash(&mut h);
        self.jobs.running().hash(&mut h);
        let s = &self.status;
        (
            s.awaiting_token,
            &s.retrying,
            &s.error,
            s.error_new_until.is_some(),
        )
            .hash(&mut h);
        s.note.as_ref().map(|n| &n.0).hash(&mut h);
        if !self.safety.held.is_empty() {
            self.undo_countdown().hash(&mut h);
        }
        let safety = self.profile_safety();
        (safety.protected, safety.read_only).hash(&mut h);
        (
            &self.workspace.profile,
            &self.config.host,
            &self.config.profile,
        )
            .hash(&mut h);
        h.finish()
    }

    /// What the hint line shows: the focus's keys and whether columns are scrolled out.
    fn hint_key(&self) -> u64 {
        let mut h = DefaultHasher::new();
        self.size.hash(&mut h);
        if let Some(top) = self.overlays.last() {
            let hints = top.dialog().hints();
            (hints.as_ptr() as usize, hints.len()).hash(&mut h);
            return h.finish();
        }
        (
            self.pipeline_shown().is_some(),
            self.timeline_shown().is_some(),
        )
            .hash(&mut h);
        let tab = self.tab();
        (
            self.active,
            tab.filter_open,
            tab.has_filters(),
            tab.col_scroll,
        )
            .hash(&mut h);
        tab.gutter().hash(&mut h);
        (
            tab.resource.columns.as_ptr() as usize,
            tab.resource.columns.len(),
        )
            .hash(&mut h);
        if tab.filter_open {
            tab.filter_bar
                .fields
                .iter()
                .any(|f| f.field.kind == crate::app::resources::FilterKind::Status)
                .hash(&mut h);
        }
        h.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::age_step;
    use crate::app::timing::age_label;
    use std::time::Duration;

    #[test]
    fn equal_age_steps_are_equal_labels() {
        let mut last: Option<(u64, String)> = None;
        for s in (0..20_000).step_by(7) {
            let d = Duration::from_secs(s);
            let (step, label) = (age_step(d), age_label(d));
            if let Some((ls, ll)) = &last {
                assert_eq!(*ls == step, *ll == label, "at {s} s: {label}");
            }
            last = Some((step, label));
        }
    }
}
