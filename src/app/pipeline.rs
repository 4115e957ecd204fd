//! The pipeline view of the Deals tab (toggle `pipeline`, `P`): count and exact total per
//! status and currency for every deal the tab's filter matches, and won/lost per month.
//! The deals are read by `Effect::Summarize` (pages of 100, at most `MAX_PAGES`), whose
//! progress and result come back as `Message::Summary`; `Esc` cancels a reading.

use std::sync::Arc;

use crate::app::effects::{Effect, RequestId};
use crate::app::keymap::Action;
use crate::app::message::SummaryEvent;
use crate::app::resources::{FilterKind, TabKind};
use crate::app::widgets::list_cursor;
use crate::app::{App, QuerySpec};
use crate::insights::pipeline::{Coverage, MonthBy, NO_STATUS, PipelineSummary, SummaryOptions};

/// The most pages of 100 deals the view reads; past it the figures are marked partial.
pub const MAX_PAGES: u32 = 50;
/// How many months the won/lost chart covers, ending with the current one.
pub const MONTHS: u32 = 12;
/// Between two items of a chart view's header or legend on one row.
pub const HEADER_SEP: &str = " · ";

/// Where the reading stands.
#[derive(Debug, Clone)]
pub enum PipelineData {
    Loading {
        pages: u32,
        last_page: Option<u64>,
        deals: u64,
    },
    Ready(Arc<(PipelineSummary, Coverage)>),
    Failed(String),
    /// Stopped with `Esc` after `pages` pages.
    Cancelled {
        pages: u32,
    },
}

/// The view's state: the query it summarises, the reading, the selected bar.
#[derive(Debug, Clone)]
pub struct PipelineView {
    /// The Deals tab's query when the view was opened (or last re-read).
    pub spec: QuerySpec,
    pub id: RequestId,
    pub data: PipelineData,
    /// Index into `PipelineSummary::rows()` (status x currency).
    pub selected: usize,
    /// First row drawn (the list scrolls to keep the selection visible).
    pub offset: usize,
}

impl PipelineView {
    pub fn loading(&self) -> bool {
        matches!(self.data, PipelineData::Loading { .. })
    }

    pub fn summary(&self) -> Option<&(PipelineSummary, Coverage)> {
        match &self.data {
            PipelineData::Ready(s) => Some(s),
            _ => None,
        }
    }

    /// The selected bar: (status, currency).
    pub fn selected_bar(&self) -> Option<(String, String)> {
        let (s, _) = self.summary()?;
        let rows = s.rows();
        rows.get(self.selected)
            .map(|(st, cur, _)| (st.to_string(), cur.to_string()))
    }

    fn rows(&self) -> usize {
        self.summary().map(|(s, _)| s.by_status.len()).unwrap_or(0)
    }

    /// Keeps the selection inside `visible` rows from `offset`.
    pub fn scroll_into_view(&mut self, visible: usize) {
        self.offset = list_cursor::offset_showing(self.selected, self.offset, visible);
    }
}

/// How an item of a chart view's header or legend is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Plain,
    Dim,
    /// Said in the error style (partial figures).
    Alarm,
}

/// What the pipeline's bars show (said in its header).
pub const BAR_SCALE: &str = "bar and %: share of its currency's total";

impl App {
    /// The pipeline, when the Deals tab shows it instead of the table (the figures are kept
    /// while the table is shown: `P` comes back to them without reading again).
    pub fn pipeline_shown(&self) -> Option<&PipelineView> {
        self.pipeline
            .as_ref()
            .filter(|_| self.active == TabKind::Deals && self.pipeline_visible)
    }

    /// The summary's options: the display zone, today there, the last 12 months.
    fn summary_options(&self) -> SummaryOptions {
        let zone = crate::timeparse::Zone::from(self.config.zone);
        SummaryOptions {
            default_currency: self.config.currency.clone(),
            zone,
            month_by: MonthBy::Auto,
            today: self.today(),
            months: MONTHS,
        }
    }

    /// Opens the view on the Deals tab's current query, reading it unless the figures for
    /// that very query are already here.
    pub(super) fn open_pipeline(&mut self) -> Vec<Effect> {
        let mut fx = self.switch_to(TabKind::Deals);
        let spec = self.tab_of(TabKind::Deals).spec().at_page(1);
        let fresh = self.pipeline.as_ref().is_some_and(|p| {
            p.spec == spec
                && matches!(
                    p.data,
                    PipelineData::Ready(_) | PipelineData::Loading { .. }
                )
        });
        if !fresh {
            fx.extend(self.read_pipeline(spec, false));
        }
        self.pipeline_visible = true;
        self.dirty = true;
        fx
    }

    /// Starts a reading of `spec` (cancelling one running); from the service even when the
    /// local mirror holds a complete copy when `from_service` (`r`).
    fn read_pipeline(&mut self, spec: QuerySpec, from_service: bool) -> Vec<Effect> {
        let mut fx = self.cancel_pipeline_reading();
        let id = self.new_id();
        fx.push(Effect::Summarize {
            id,
            spec: spec.clone(),
            opts: self.summary_options(),
            max_pages: MAX_PAGES,
            from_service,
        });
        self.pipeline = Some(PipelineView {
            spec,
            id,
            data: PipelineData::Loading {
                pages: 0,
                last_page: None,
                deals: 0,
            },
            selected: 0,
            offset: 0,
        });
        self.dirty = true;
        fx
    }

    pub(super) fn cancel_pipeline_reading(&mut self) -> Vec<Effect> {
        match &mut self.pipeline {
            Some(p) if p.loading() => {
                let pages = match p.data {
                    PipelineData::Loading { pages, .. } => pages,
                    _ => 0,
                };
                p.data = PipelineData::Cancelled { pages };
                self.dirty = true;
                vec![Effect::Cancel(p.id)]
            }
            _ => Vec::new(),
        }
    }

    /// The Deals tab's filters changed: a shown pipeline follows them.
    pub(super) fn pipeline_follow_filters(&mut self) -> Vec<Effect> {
        if !self.pipeline_visible {
            return Vec::new();
        }
        let spec = self.tab_of(TabKind::Deals).spec().at_page(1);
        match &self.pipeline {
            Some(p) if p.spec == spec => Vec::new(),
            _ => self.read_pipeline(spec, false),
        }
    }

    pub(super) fn on_summary(&mut self, id: RequestId, event: SummaryEvent) -> Vec<Effect> {
        let Some(p) = self.pipeline.as_mut().filter(|p| p.id == id) else {
            return Vec::new();
        };
        if !p.loading() {
            return Vec::new();
        }
        p.data = match event {
            SummaryEvent::Progress {
                pages,
                last_page,
                deals,
            } => PipelineData::Loading {
                pages,
                last_page,
                deals,
            },
            SummaryEvent::Done(s) => PipelineData::Ready(s),
            SummaryEvent::Failed(e) => PipelineData::Failed(e),
        };
        if self.active == TabKind::Deals && self.pipeline_visible {
            self.dirty = true;
        }
        Vec::new()
    }

    /// The pipeline's answer to a main-screen action, or `None` to let the table have it.
    pub(super) fn on_pipeline_action(&mut self, action: Action) -> Option<Vec<Effect>> {
        if action == Action::Pipeline {
            if self.pipeline_shown().is_some() {
                let fx = self.cancel_pipeline_reading();
                self.pipeline_visible = false;
                self.dirty = true;
                return Some(fx);
            }
            return Some(self.open_pipeline());
        }
        if self.active != TabKind::Deals || !self.pipeline_visible {
            return None;
        }
        let visible = self.pipeline_rows_visible();
        let p = self.pipeline.as_mut()?;
        let rows = p.rows();
        match action {
            Action::Down => p.selected = (p.selected + 1).min(rows.saturating_sub(1)),
            Action::Up => p.selected = p.selected.saturating_sub(1),
            Action::First => p.selected = 0,
            Action::Last => p.selected = rows.saturating_sub(1),
            Action::NextPage => {
                p.selected = (p.selected + visible.max(1)).min(rows.saturating_sub(1))
            }
            Action::PrevPage => p.selected = p.selected.saturating_sub(visible.max(1)),
            Action::Back => {
                let fx = self.cancel_pipeline_reading();
                if fx.is_empty() {
                    self.pipeline_visible = false;
                }
                self.dirty = true;
                return Some(fx);
            }
            Action::Refresh => {
                let spec = p.spec.clone();
                return Some(self.read_pipeline(spec, true));
            }
            Action::Detail => return Some(self.drill_down()),
            // The table's own keys say where they work; `e` exports the deals summed here
            // (the table's export of the same query).
            Action::SortNext
            | Action::SortFlip
            | Action::PageSizeUp
            | Action::PageSizeDown
            | Action::Includes
            | Action::CopyJson => return Some(self.table_only(action, Action::Pipeline)),
            _ => return None,
        }
        p.scroll_into_view(visible);
        self.dirty = true;
        Some(Vec::new())
    }

    /// Rows of bars the view has room for (the drawing uses the same split).
    pub fn pipeline_rows_visible(&self) -> usize {
        let inner = self.areas().table_inner();
        let header = self.pipeline_header_rows(inner.width);
        crate::app::layout::pipeline_split(inner, header).0.height as usize
    }

    /// The header's items (drawn with ` · ` between them, wrapped to the width): how many
    /// deals (or that the figures are partial), where they come from, how to read them.
    pub fn pipeline_header(&self, s: &PipelineSummary, cov: &Coverage) -> Vec<(String, Tone)> {
        let mut items = Vec::new();
        if cov.partial {
            let of = cov.total.map(|t| format!(" of {t}")).unwrap_or_default();
            items.push((
                format!(
                    "PARTIAL: stopped at the {}-page cap, {}{of} deals",
                    cov.pages, s.deals
                ),
                Tone::Alarm,
            ));
        } else {
            items.push((format!("{} deals", s.deals), Tone::Plain));
        }
        if let Some(at) = cov.synced_at {
            let when = crate::app::mirror::clock(at, self.wall, &self.config.zone);
            let retry = self.keymap.first_key(Action::Refresh);
            items.push((
                format!("from the local mirror, synced {when} ({retry}: ask the service)"),
                Tone::Dim,
            ));
        }
        items.push((
            "totals per currency, never summed together".into(),
            Tone::Dim,
        ));
        items.push((BAR_SCALE.into(), Tone::Dim));
        if s.by_status.values().any(|b| b.without_value > 0) {
            items.push(("* some without a value".into(), Tone::Dim));
        }
        items
    }

    /// Rows the header takes at `width` columns (1 before the figures are here).
    pub fn pipeline_header_rows(&self, width: u16) -> u16 {
        let Some((s, cov)) = self.pipeline.as_ref().and_then(|p| p.summary()) else {
            return 1;
        };
        let widths: Vec<usize> = self
            .pipeline_header(s, cov)
            .iter()
            .map(|(t, _)| crate::output::display_width(t))
            .collect();
        let sep = crate::output::display_width(HEADER_SEP);
        crate::app::layout::pack(&widths, sep, width as usize).len() as u16
    }

    /// After a resize: each chart view's selected bar stays in view.
    pub(super) fn charts_follow_resize(&mut self) {
        let visible = self.pipeline_rows_visible();
        if let Some(p) = self.pipeline.as_mut() {
            p.scroll_into_view(visible);
        }
        let visible = self.timeline_rows_visible();
        if let Some(t) = self.timeline.as_mut() {
            t.offset = list_cursor::offset_showing(t.selected, t.offset, visible);
        }
    }

    /// A key of the table's pressed in a chart view: says where it works, rather than
    /// doing nothing (`toggle` brings the table back).
    pub(super) fn table_only(&mut self, action: Action, toggle: Action) -> Vec<Effect> {
        let key = self.keymap.first_key(action);
        let back = self.keymap.first_key(toggle);
        self.note(format!(
            "{key} ({}) works in the table, not in this chart: {back} shows the table",
            action.description()
        ));
        Vec::new()
    }

    /// Enter on a bar: the Deals table filtered to that status. The API has no currency
    /// filter, so the currency is shown as a chip on the tab (and said in a note), not applied.
    fn drill_down(&mut self) -> Vec<Effect> {
        let Some((status, currency)) = self.pipeline.as_ref().and_then(|p| p.selected_bar()) else {
            return Vec::new();
        };
        if status == NO_STATUS {
            self.note("Deals without a status cannot be filtered for: the API has no such filter");
            return Vec::new();
        }
        let tab = &mut self.tabs[TabKind::Deals.index()];
        for f in &mut tab.filter_bar.fields {
            if f.field.kind == FilterKind::Status {
                f.input.set(status.clone());
            }
        }
        self.pipeline_visible = false;
        let fx = self.apply_filters(TabKind::Deals);
        self.currency_chip = Some(currency.clone());
        self.note(format!(
            "status={status}; {currency} marked ~{currency} in the tabs (the API has no currency filter)"
        ));
        fx
    }
}
