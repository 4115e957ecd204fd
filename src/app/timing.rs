//! Time-driven state: the debounce of typed filters, the spinner, the data-age label (in
//! coarse steps) and auto-refresh. The runtime sleeps until `next_deadline` and sends `Tick`;
//! with nothing pending it does not wake at all.

use std::time::Duration;

use tokio::time::Instant;

use super::{App, SPINNER_STEP};
use crate::app::effects::Effect;
use crate::resource::Resource;

/// "updated just now", "updated 20 s ago", "updated 3 min ago", "updated 2 h ago".
pub fn age_label(age: Duration) -> String {
    let s = age.as_secs();
    match s {
        0..10 => "updated just now".to_string(),
        10..60 => format!("updated {} s ago", s / 10 * 10),
        60..3600 => format!("updated {} min ago", s / 60),
        _ => format!("updated {} h ago", s / 3600),
    }
}

/// When the label of data this old next changes.
fn age_step_left(age: Duration) -> Duration {
    let s = age.as_secs();
    let step = match s {
        0..60 => 10,
        60..3600 => 60,
        _ => 3600,
    };
    Duration::from_secs((s / step + 1) * step) - age
}

impl App {
    /// The age label of the data on the active tab.
    pub fn age_label(&self) -> Option<String> {
        let shown = self.tab().shown.as_ref()?;
        if shown.page.mirrored.is_some() {
            return self.mirror_age_label();
        }
        Some(age_label(
            self.now.saturating_duration_since(shown.loaded_at),
        ))
    }

    fn refresh_paused(&self) -> bool {
        !self.overlays.is_empty() || self.tab().filter_open
    }

    /// The earliest moment something on screen or in the queue changes by itself.
    pub fn next_deadline(&self) -> Option<Instant> {
        let mut d: Option<Instant> = None;
        let mut add = |t: Option<Instant>| {
            if let Some(t) = t {
                d = Some(d.map_or(t, |d| d.min(t)));
            }
        };
        for t in &self.tabs {
            add(t.debounce_until);
        }
        add(self.spinner_due);
        add(self.dialog_deadline());
        add(self.status.note.as_ref().map(|n| n.1));
        add(self.status.error_new_until);
        add(self.mirror_deadline());
        add(self.write_deadline());
        if let Some(shown) = &self.tab().shown {
            let age = self.now.saturating_duration_since(shown.loaded_at);
            add(Some(self.now + age_step_left(age)));
        }
        if !self.refresh_paused() {
            add(self.refresh_due);
        }
        d
    }

    pub(super) fn on_tick(&mut self) -> Vec<Effect> {
        let now = self.now;
        let mut fx = self.dialogs_tick();
        fx.extend(self.mirror_tick());
        for kind in Resource::ALL {
            if self.tabs[kind.index()]
                .debounce_until
                .is_some_and(|t| t <= now)
            {
                fx.extend(self.apply_filters(kind));
            }
        }
        if let Some(due) = self.spinner_due
            && due <= now
        {
            self.spinner_frame = self.spinner_frame.wrapping_add(1);
            self.spinner_due = self.busy().then_some(now + SPINNER_STEP);
            self.dirty = true;
        }
        if self.status.note.as_ref().is_some_and(|n| n.1 <= now) {
            self.status.note = None;
            self.dirty = true;
        }
        if self.status.error_new_until.is_some_and(|t| t <= now) {
            self.status.error_new_until = None;
            self.dirty = true;
        }
        self.timeline_new_day();
        let label = self.age_label();
        if label != self.age_seen {
            self.age_seen = label;
            self.dirty = true;
        }
        if !self.refresh_paused()
            && let (Some(due), Some(period)) = (self.refresh_due, self.config.refresh)
            && due <= now
        {
            self.refresh_due = Some(now + period);
            let t = self.tab();
            if t.pending.is_none() && t.debounce_until.is_none() {
                fx.extend(self.load(self.active, true));
            }
        }
        fx
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn age_label_moves_in_coarse_steps() {
        assert_eq!(age_label(Duration::from_secs(3)), "updated just now");
        assert_eq!(age_label(Duration::from_secs(19)), "updated 10 s ago");
        assert_eq!(age_label(Duration::from_secs(125)), "updated 2 min ago");
        assert_eq!(
            age_step_left(Duration::from_secs(3)),
            Duration::from_secs(7)
        );
        assert_eq!(
            age_step_left(Duration::from_secs(61)),
            Duration::from_secs(59)
        );
    }
}
