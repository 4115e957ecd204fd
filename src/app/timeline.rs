//! The timeline view of the Projects tab (toggle `timeline`, `T`): one bar per project of the
//! page the tab shows (no reading of its own), a window of days, weeks or months scrolled
//! with `h`/`l`, and `Enter` for the selected project's detail.

use chrono::NaiveDate;

use crate::api::{ApiRecord, Project};
use crate::app::App;
use crate::app::dialogs::Overlay;
use crate::app::dialogs::detail::DetailView;
use crate::app::effects::Effect;
use crate::app::keymap::Action;
use crate::app::resources::TabKind;
use crate::insights::timeline::{Bar, Scale, Window, bars};
use crate::timeparse::Zone;

/// The view's state: the selected bar, the first row drawn, the scale and how far the window
/// was scrolled from its place around today.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimelineView {
    /// Index into `App::timeline_bars()`.
    pub selected: usize,
    pub offset: usize,
    pub scale: Scale,
    /// Columns scrolled from the window around today (negative: earlier).
    pub shift: i32,
}

impl Default for TimelineView {
    fn default() -> Self {
        TimelineView {
            selected: 0,
            offset: 0,
            scale: Scale::Week,
            shift: 0,
        }
    }
}

impl TimelineView {
    /// The window `cells` columns wide this state shows.
    pub fn window(&self, today: NaiveDate, cells: u16) -> Window {
        Window::around(today, self.scale, cells).scrolled(self.shift)
    }
}

impl App {
    /// The timeline, when the Projects tab shows it instead of the table.
    pub fn timeline_shown(&self) -> Option<&TimelineView> {
        self.timeline
            .as_ref()
            .filter(|_| self.active == TabKind::Projects)
    }

    /// Today in the display zone.
    pub fn today(&self) -> NaiveDate {
        Zone::from(self.config.zone)
            .from_utc(self.wall)
            .date_naive()
    }

    /// The bars of the projects on the Projects tab's current page, sorted by start.
    pub fn timeline_bars(&self) -> Vec<Bar> {
        let projects: Vec<Project> = self
            .tab_of(TabKind::Projects)
            .records()
            .iter()
            .filter_map(|r| {
                let raw = serde_json::value::RawValue::from_string(r.raw.to_string()).ok()?;
                Project::from_raw(raw).ok()
            })
            .collect();
        bars(&projects, Zone::from(self.config.zone), self.today())
    }

    /// Rows of bars the view has room for (the drawing uses the same split).
    pub fn timeline_rows_visible(&self) -> usize {
        let inner = self.areas().table_inner();
        crate::app::layout::timeline_split(inner).1.height as usize
    }

    /// The timeline's answer to a main-screen action, or `None` to let the table have it.
    pub(super) fn on_timeline_action(&mut self, action: Action) -> Option<Vec<Effect>> {
        if action == Action::Timeline {
            if self.timeline_shown().is_some() {
                self.timeline = None;
                self.dirty = true;
                return Some(Vec::new());
            }
            let fx = self.switch_to(TabKind::Projects);
            self.timeline = Some(TimelineView::default());
            self.dirty = true;
            return Some(fx);
        }
        self.timeline_shown()?;
        let rows = self.timeline_bars().len();
        let visible = self.timeline_rows_visible().max(1);
        let last = rows.saturating_sub(1);
        let t = self.timeline.as_mut()?;
        match action {
            Action::Down => t.selected = (t.selected + 1).min(last),
            Action::Up => t.selected = t.selected.min(last).saturating_sub(1),
            Action::First => t.selected = 0,
            Action::Last => t.selected = last,
            Action::ScrollLeft => t.shift = t.shift.saturating_sub(1),
            Action::ScrollRight => t.shift = t.shift.saturating_add(1),
            Action::Scale => {
                t.scale = t.scale.next();
                t.shift = 0;
            }
            Action::Back => self.timeline = None,
            Action::Detail => return Some(self.timeline_detail()),
            // Table-only actions mean nothing here; paging, filters and tabs still apply.
            Action::SortNext
            | Action::SortFlip
            | Action::Includes
            | Action::CopyJson
            | Action::Export => return Some(Vec::new()),
            _ => return None,
        }
        if let Some(t) = self.timeline.as_mut() {
            if t.selected < t.offset {
                t.offset = t.selected;
            } else if t.selected >= t.offset + visible {
                t.offset = t.selected + 1 - visible;
            }
        }
        self.dirty = true;
        Some(Vec::new())
    }

    /// Enter: the selected project's detail, the dialog the table opens for it.
    fn timeline_detail(&mut self) -> Vec<Effect> {
        let Some(t) = self.timeline.as_ref() else {
            return Vec::new();
        };
        let bars = self.timeline_bars();
        let Some(bar) = bars.get(t.selected.min(bars.len().saturating_sub(1))) else {
            return Vec::new();
        };
        let (w, h) = crate::app::layout::modal_inner(self.size.0, self.size.1);
        let tab = self.tab_of(TabKind::Projects);
        if let Some(r) = tab.records().iter().find(|r| r.id == bar.id) {
            let v = DetailView::new(TabKind::Projects, r, &self.config.zone, w, h);
            self.overlays.push(Overlay::Detail(v));
            self.dirty = true;
        }
        Vec::new()
    }
}
