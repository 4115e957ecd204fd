//! The timeline view of the Projects tab (toggle `timeline`, `T`): one bar per project the
//! tab's filter matches (every page, read by `Effect::Collect` in pages of 100, at most
//! `MAX_PAGES`; `Esc` cancels, `r` reads again), a window of days, weeks or months scrolled
//! with `h`/`l`, and `Enter` for the selected project's detail.

use std::sync::Arc;

use chrono::NaiveDate;

use crate::api::{ApiRecord, Project};
use crate::app::dialogs::Overlay;
use crate::app::dialogs::detail::DetailView;
use crate::app::effects::{Effect, RequestId};
use crate::app::keymap::Action;
use crate::app::message::CollectEvent;
use crate::app::resources::TabKind;
use crate::app::table::record::Record;
use crate::app::{App, QuerySpec};
use crate::insights::pipeline::Coverage;
use crate::insights::timeline::{Bar, Scale, Window, bars};
use crate::timeparse::Zone;

/// The most pages of 100 projects the view reads; past it the view says it is partial.
pub const MAX_PAGES: u32 = 50;

/// Where the reading of the projects stands.
#[derive(Debug, Clone)]
pub enum TimelineData {
    Loading {
        pages: u32,
        last_page: Option<u64>,
        records: u64,
    },
    /// The rows read, their bars (sorted by start, made once: drawing reads them every frame)
    /// and how much of the query they cover.
    Ready {
        rows: Arc<(Vec<Record>, Coverage)>,
        bars: Arc<Vec<Bar>>,
        /// The day the bars were made for (overdue marks change at midnight).
        today: NaiveDate,
    },
    Failed(String),
    /// Stopped with `Esc` after `pages` pages.
    Cancelled {
        pages: u32,
    },
}

/// The view's state: the query it shows, its reading, the selected bar, the first row drawn,
/// the scale and how far the window was scrolled from its place around today.
#[derive(Debug, Clone)]
pub struct TimelineView {
    /// The Projects tab's query (at page 1) when the view was opened or last read.
    pub spec: QuerySpec,
    pub id: RequestId,
    pub data: TimelineData,
    /// Index into `App::timeline_bars()`.
    pub selected: usize,
    pub offset: usize,
    pub scale: Scale,
    /// Columns scrolled from the window around today (negative: earlier).
    pub shift: i32,
}

/// The first bar that has not ended before `today` (running, open-ended or to come), else 0.
pub fn current_bar(bars: &[Bar], today: NaiveDate) -> usize {
    bars.iter()
        .position(|b| b.start.is_some() && b.end.is_none_or(|e| e >= today))
        .unwrap_or(0)
}

impl TimelineView {
    pub fn loading(&self) -> bool {
        matches!(self.data, TimelineData::Loading { .. })
    }

    /// The coverage of the rows read, once ready.
    pub fn coverage(&self) -> Option<Coverage> {
        match &self.data {
            TimelineData::Ready { rows, .. } => Some(rows.1),
            _ => None,
        }
    }

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

    /// The bars of every project read, sorted by start (none while reading).
    pub fn timeline_bars(&self) -> Arc<Vec<Bar>> {
        match self.timeline.as_ref().map(|t| &t.data) {
            Some(TimelineData::Ready { bars, .. }) => bars.clone(),
            _ => Arc::new(Vec::new()),
        }
    }

    fn bars_of(&self, rows: &[Record]) -> Vec<Bar> {
        let projects: Vec<Project> = rows
            .iter()
            .filter_map(|r| {
                let raw = serde_json::value::RawValue::from_string(r.raw.to_string()).ok()?;
                Project::from_raw(raw).ok()
            })
            .collect();
        bars(&projects, Zone::from(self.config.zone), self.today())
    }

    /// Starts a reading of `spec` (cancelling one running), keeping the scale and scroll;
    /// from the service even when the local mirror holds a complete copy when `from_service`.
    fn read_timeline(&mut self, spec: QuerySpec, from_service: bool) -> Vec<Effect> {
        let mut fx = self.cancel_timeline_reading();
        let id = self.new_id();
        fx.push(Effect::Collect {
            id,
            spec: spec.clone(),
            max_pages: MAX_PAGES,
            from_service,
        });
        let (scale, shift) = self
            .timeline
            .as_ref()
            .map_or((Scale::Week, 0), |t| (t.scale, t.shift));
        self.timeline = Some(TimelineView {
            spec,
            id,
            data: TimelineData::Loading {
                pages: 0,
                last_page: None,
                records: 0,
            },
            selected: 0,
            offset: 0,
            scale,
            shift,
        });
        self.dirty = true;
        fx
    }

    pub(super) fn cancel_timeline_reading(&mut self) -> Vec<Effect> {
        match &mut self.timeline {
            Some(t) if t.loading() => {
                let pages = match t.data {
                    TimelineData::Loading { pages, .. } => pages,
                    _ => 0,
                };
                t.data = TimelineData::Cancelled { pages };
                self.dirty = true;
                vec![Effect::Cancel(t.id)]
            }
            _ => Vec::new(),
        }
    }

    /// The Projects tab's filters changed: a shown timeline follows them.
    pub(super) fn timeline_follow_filters(&mut self) -> Vec<Effect> {
        let spec = self.tab_of(TabKind::Projects).spec().at_page(1);
        match &self.timeline {
            Some(t) if t.spec != spec => self.read_timeline(spec, false),
            _ => Vec::new(),
        }
    }

    pub(super) fn on_collected(&mut self, id: RequestId, event: CollectEvent) -> Vec<Effect> {
        if !self
            .timeline
            .as_ref()
            .is_some_and(|t| t.id == id && t.loading())
        {
            return Vec::new();
        }
        let data = match event {
            CollectEvent::Progress {
                pages,
                last_page,
                records,
            } => TimelineData::Loading {
                pages,
                last_page,
                records,
            },
            CollectEvent::Done(rows) => TimelineData::Ready {
                bars: Arc::new(self.bars_of(&rows.0)),
                rows,
                today: self.today(),
            },
            CollectEvent::Failed(e) => TimelineData::Failed(e),
        };
        // The first project still running (or to come), not the oldest: the bars are sorted
        // by start, and the window opens around today.
        let current = match &data {
            TimelineData::Ready { bars, today, .. } => Some(current_bar(bars, *today)),
            _ => None,
        };
        if let Some(t) = self.timeline.as_mut() {
            t.data = data;
            if let Some(i) = current {
                t.selected = i;
                t.offset = i.saturating_sub(2);
            }
        }
        if self.active == TabKind::Projects {
            self.dirty = true;
        }
        Vec::new()
    }

    /// Remakes the bars when the day changed since they were made (overdue marks).
    pub(super) fn timeline_new_day(&mut self) {
        let today = self.today();
        let Some(TimelineData::Ready {
            rows, today: made, ..
        }) = self.timeline.as_ref().map(|t| &t.data)
        else {
            return;
        };
        if *made == today {
            return;
        }
        let rows = rows.clone();
        let bars = Arc::new(self.bars_of(&rows.0));
        if let Some(t) = self.timeline.as_mut() {
            t.data = TimelineData::Ready { rows, bars, today };
            self.dirty = true;
        }
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
                let fx = self.cancel_timeline_reading();
                self.timeline = None;
                self.dirty = true;
                return Some(fx);
            }
            let mut fx = self.switch_to(TabKind::Projects);
            let spec = self.tab_of(TabKind::Projects).spec().at_page(1);
            fx.extend(self.read_timeline(spec, false));
            return Some(fx);
        }
        self.timeline_shown()?;
        match action {
            Action::Back => {
                // Esc stops a reading first; a second Esc leaves the view.
                let fx = self.cancel_timeline_reading();
                if fx.is_empty() {
                    self.timeline = None;
                }
                self.dirty = true;
                return Some(fx);
            }
            Action::Refresh => {
                let spec = self.tab_of(TabKind::Projects).spec().at_page(1);
                return Some(self.read_timeline(spec, true));
            }
            // Paging belongs to the table: the timeline shows every page.
            Action::NextPage | Action::PrevPage | Action::PageSizeUp | Action::PageSizeDown => {
                return Some(Vec::new());
            }
            _ => {}
        }
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
        let Some(TimelineData::Ready { rows, .. }) = self.timeline.as_ref().map(|t| &t.data) else {
            return Vec::new();
        };
        if let Some(r) = rows.0.iter().find(|r| r.id == bar.id) {
            let v = DetailView::new(TabKind::Projects, r, &self.config.cell_format(), w, h);
            self.overlays.push(Overlay::Detail(v));
            self.dirty = true;
        }
        Vec::new()
    }
}
