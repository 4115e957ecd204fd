//! The timeline view of the Projects tab (toggle `timeline`, `T`): one bar per project the
//! tab's filter matches (every page, read by `Effect::Collect` in pages of 100, at most
//! `MAX_PAGES`; `Esc` cancels, `r` reads again), a window of days, weeks or months that
//! opens on the projects (`Window::fit`), moves a screen at a time with `h`/`l`, zooms with
//! `z` about today (when shown, else the middle) and comes to the selected project with `f`;
//! `Enter` for the selected project's detail.

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
use crate::app::widgets::list_cursor;
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
/// the scale and the window's first day.
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
    /// The window's first day; `None`: around today (`Window::around`).
    pub start: Option<NaiveDate>,
    /// The window is to be fitted to the projects when they arrive (a view just opened).
    pub fit: bool,
}

/// The column of today on the timeline.
pub const TODAY_MARK: &str = "│";
/// Columns before the legend's rows.
pub const LEGEND_INDENT: u16 = 1;

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
        let around = Window::around(today, self.scale, cells);
        Window {
            start: self.start.unwrap_or(around.start),
            ..around
        }
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
        let (scale, start, fit) = self
            .timeline
            .as_ref()
            .map_or((Scale::Week, None, true), |t| (t.scale, t.start, t.fit));
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
            start,
            fit,
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
        // The chart's width depends on the names just read.
        let (cells, today) = (self.timeline_cells(), self.today());
        if let Some(t) = self.timeline.as_mut()
            && let (TimelineData::Ready { bars, .. }, true) = (&t.data, t.fit)
        {
            let w = Window::fit(bars, bars.get(t.selected), today, cells);
            (t.scale, t.start, t.fit) = (w.scale, Some(w.start), false);
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
        let legend = self.timeline_legend_rows(inner.width);
        crate::app::layout::timeline_split(inner, legend).1.height as usize
    }

    /// Columns of the chart (`layout::timeline_chart`, as drawn).
    pub fn timeline_cells(&self) -> u16 {
        let inner = self.areas().table_inner();
        let longest = self
            .timeline_bars()
            .iter()
            .map(|b| crate::output::display_width(&b.name))
            .max()
            .unwrap_or(0);
        crate::app::layout::timeline_chart(inner, longest).2
    }

    /// The legend's items: a glyph and what it means (drawn with ` · ` between them, wrapped
    /// to the width), then today's date and what a column stands for.
    pub fn timeline_legend(&self) -> Vec<(&'static str, String)> {
        let scale = self.timeline.as_ref().map_or(Scale::Week, |t| t.scale);
        let mut items: Vec<(&'static str, String)> = [
            ("█", "active"),
            ("░", "planned/on hold"),
            ("▓", "done"),
            ("▒", "cancelled"),
            ("▶", "open end"),
            ("!", "overdue"),
        ]
        .into_iter()
        .map(|(g, w)| (g, w.to_string()))
        .collect();
        items.push((
            TODAY_MARK,
            format!("today {}", self.today().format("%-d %b %Y")),
        ));
        items.push(("", format!("1 column = {}", scale.column_words())));
        items
    }

    /// Rows the legend takes at `width` columns (drawn a column in from the border, so that
    /// today's `│` is not read as the border's).
    pub fn timeline_legend_rows(&self, width: u16) -> u16 {
        let width = width.saturating_sub(LEGEND_INDENT);
        let widths: Vec<usize> = self
            .timeline_legend()
            .iter()
            .map(|(g, w)| legend_item(g, w).chars().count())
            .collect();
        let sep = crate::app::pipeline::HEADER_SEP.chars().count();
        crate::app::layout::pack(&widths, sep, width as usize).len() as u16
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
            // The table's own keys say where they work (the timeline shows every page);
            // `e` exports the projects shown here (the table's export of the same query).
            Action::PageSizeUp
            | Action::PageSizeDown
            | Action::SortNext
            | Action::SortFlip
            | Action::Includes
            | Action::CopyJson => return Some(self.table_only(action, Action::Timeline)),
            Action::ShowSelected => return Some(self.timeline_show_selected()),
            _ => {}
        }
        let bars = self.timeline_bars();
        let last = bars.len().saturating_sub(1);
        let visible = self.timeline_rows_visible().max(1);
        let cells = self.timeline_cells();
        let today = self.today();
        let t = self.timeline.as_mut()?;
        let window = t.window(today, cells);
        match action {
            Action::Down => t.selected = (t.selected + 1).min(last),
            Action::Up => t.selected = t.selected.min(last).saturating_sub(1),
            Action::First => t.selected = 0,
            Action::Last => t.selected = last,
            Action::NextPage => t.selected = (t.selected + visible).min(last),
            Action::PrevPage => t.selected = t.selected.min(last).saturating_sub(visible),
            // A screen at a time (the dates move by the chart's width).
            Action::ScrollLeft => t.start = Some(window.scrolled(-i32::from(cells)).start),
            Action::ScrollRight => t.start = Some(window.scrolled(i32::from(cells)).start),
            Action::Scale => {
                let w = window.rescaled(t.scale.next(), today);
                (t.scale, t.start) = (w.scale, Some(w.start));
            }
            Action::Detail => return Some(self.timeline_detail()),
            _ => return None,
        }
        t.offset = list_cursor::offset_showing(t.selected, t.offset, visible);
        self.dirty = true;
        Some(Vec::new())
    }

    /// `f`: the window moves to the selected project's start (an eighth of the way in), or
    /// a note says it has none.
    fn timeline_show_selected(&mut self) -> Vec<Effect> {
        let bars = self.timeline_bars();
        let cells = self.timeline_cells();
        let Some(t) = self.timeline.as_mut() else {
            return Vec::new();
        };
        let Some(bar) = bars.get(t.selected.min(bars.len().saturating_sub(1))) else {
            return Vec::new();
        };
        match bar.start {
            Some(start) => {
                t.start = Some(Window::showing(start, t.scale, cells).start);
                self.dirty = true;
            }
            None => {
                let name = bar.name.clone();
                self.note(format!(
                    "{name} has no start date: it has no place on the timeline"
                ));
            }
        }
        Vec::new()
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

/// One item of the legend as drawn: the glyph, a space, the words (the words alone without a
/// glyph).
pub fn legend_item(glyph: &str, words: &str) -> String {
    if glyph.is_empty() {
        words.to_string()
    } else {
        format!("{glyph} {words}")
    }
}
