//! One tab's state: its query (filters, sort, includes, page), what is on screen, the request
//! whose answer it waits for, its selection and scroll, and its filter bar. Kept per tab, so
//! switching away and back finds everything as it was.

use std::sync::Arc;

use tokio::time::Instant;

use crate::api::SortDirection;
use crate::app::effects::RequestId;
use crate::app::resources::Descriptor;
use crate::app::table::filter::FilterBar;
use crate::app::table::record::{FetchedPage, Record};
use crate::app::table::spec::{FilterValue, QuerySpec};

pub use crate::view_query::PAGE_SIZES;

/// The page on screen and the query it answers.
#[derive(Debug, Clone)]
pub struct Shown {
    pub spec: QuerySpec,
    /// The page as drawn: its cells follow the tab's columns.
    pub page: Arc<FetchedPage>,
    /// The page as fetched, with every column (re-picked when the columns change).
    pub full: Arc<FetchedPage>,
    pub loaded_at: Instant,
}

#[derive(Debug, Clone)]
pub struct TabState {
    pub resource: Descriptor,
    pub filters: Vec<(&'static str, FilterValue)>,
    pub sort_by: &'static str,
    pub direction: SortDirection,
    pub includes: Vec<&'static str>,
    pub page: u32,
    pub per_page: u32,
    /// Where `per_page` comes from (shown in the help).
    pub per_page_origin: crate::app::persist::PageSizeOrigin,
    pub shown: Option<Shown>,
    /// The request whose answer will be shown.
    pub pending: Option<RequestId>,
    /// The last failure of the current query, in plain words.
    pub error: Option<String>,
    pub selected: usize,
    /// First row drawn (client-side scrolling).
    pub offset: usize,
    /// Columns scrolled past sideways, on a screen too narrow for all (`layout::shown_columns`).
    pub col_scroll: usize,
    pub filter_bar: FilterBar,
    pub filter_open: bool,
    /// When typed filter text is applied.
    pub debounce_until: Option<Instant>,
    /// The query whose next page was prefetched (at most one prefetch per settled query).
    pub prefetched_for: Option<QuerySpec>,
    /// The records marked for an action (`space`, `V`, `*`): ids, kept across pages, sorts
    /// and refreshes.
    pub selection: crate::app::selection::Selection,
}

impl TabState {
    pub fn new(resource: Descriptor, per_page: u32) -> Self {
        let includes = resource.default_includes();
        let filter_bar = FilterBar::new(resource.filters);
        TabState {
            sort_by: resource.sort_key("updated_at").unwrap_or("updated_at"),
            direction: SortDirection::Desc,
            includes,
            page: 1,
            per_page: clamp_per_page(per_page),
            per_page_origin: crate::app::persist::PageSizeOrigin::Default,
            filters: Vec::new(),
            shown: None,
            pending: None,
            error: None,
            selected: 0,
            offset: 0,
            col_scroll: 0,
            filter_bar,
            filter_open: false,
            debounce_until: None,
            prefetched_for: None,
            selection: Default::default(),
            resource,
        }
    }

    /// The query the tab wants on screen now.
    pub fn spec(&self) -> QuerySpec {
        QuerySpec {
            kind: self.resource.kind,
            filters: self.filters.clone(),
            sort_by: self.sort_by,
            direction: self.direction,
            includes: self.includes.clone(),
            page: self.page,
            per_page: self.per_page,
        }
    }

    pub fn records(&self) -> &[Record] {
        self.shown
            .as_ref()
            .map(|s| s.page.records.as_slice())
            .unwrap_or(&[])
    }

    pub fn selected_record(&self) -> Option<&Record> {
        self.records().get(self.selected)
    }

    /// Whether the server pages this list: `meta` arrived with the shown page. Without it
    /// (contacts as a plain list) the whole list is on screen and paging keys do nothing.
    pub fn server_pages(&self) -> bool {
        self.shown
            .as_ref()
            .map(|s| s.page.meta.is_some())
            .unwrap_or(self.resource.paginated)
    }

    /// The last page from `meta`, when known.
    pub fn last_page(&self) -> Option<u32> {
        let meta = self.shown.as_ref()?.page.meta?;
        let last = meta.last_page.or_else(|| {
            let total = meta.total?;
            let per = meta
                .per_page
                .filter(|p| *p > 0)
                .unwrap_or(self.per_page as u64);
            Some(total.div_ceil(per).max(1))
        })?;
        Some(u32::try_from(last).unwrap_or(u32::MAX).max(1))
    }

    pub fn next_sort(&mut self) {
        let keys = &self.resource.sort_keys;
        let i = keys.iter().position(|k| *k == self.sort_by).unwrap_or(0);
        self.sort_by = keys[(i + 1) % keys.len()];
        self.page = 1;
    }

    pub fn flip_direction(&mut self) {
        self.direction = self.direction.flipped();
        self.page = 1;
    }

    /// Sort by `key`; the same key again flips the direction.
    pub fn sort_by_key(&mut self, key: &'static str) {
        if self.sort_by == key {
            self.direction = self.direction.flipped();
        } else {
            self.sort_by = key;
            self.direction = SortDirection::Asc;
        }
        self.page = 1;
    }

    /// Moves to another page if it exists; false at the bounds.
    pub fn go_to_page(&mut self, page: u32) -> bool {
        if page < 1 || page == self.page {
            return false;
        }
        if page > self.page
            && let Some(last) = self.last_page()
            && page > last
        {
            return false;
        }
        self.page = page;
        true
    }

    /// Steps the page size; keeps the first visible record's position roughly in place.
    pub fn step_per_page(&mut self, up: bool) -> bool {
        let i = PAGE_SIZES
            .iter()
            .position(|p| *p >= self.per_page)
            .unwrap_or(PAGE_SIZES.len() - 1);
        let next = if up {
            PAGE_SIZES.get(i + 1).copied()
        } else {
            i.checked_sub(1).map(|j| PAGE_SIZES[j])
        };
        let Some(next) = next else { return false };
        let first_index = (self.page.saturating_sub(1)) as u64 * self.per_page as u64;
        self.per_page = next;
        self.per_page_origin = crate::app::persist::PageSizeOrigin::Changed;
        self.page = (first_index / next as u64) as u32 + 1;
        true
    }

    pub fn move_selection(&mut self, delta: isize) {
        let n = self.records().len();
        if n == 0 {
            self.selected = 0;
            return;
        }
        let cur = self.selected as isize + delta;
        self.selected = cur.clamp(0, n as isize - 1) as usize;
    }

    pub fn select(&mut self, index: usize) {
        let n = self.records().len();
        self.selected = if n == 0 { 0 } else { index.min(n - 1) };
    }

    /// Scrolls so the selection is inside a window of `rows` rows.
    pub fn scroll_into_view(&mut self, rows: usize) {
        let rows = rows.max(1);
        if self.selected < self.offset {
            self.offset = self.selected;
        } else if self.selected >= self.offset + rows {
            self.offset = self.selected + 1 - rows;
        }
        let n = self.records().len();
        if self.offset > 0 && self.offset + rows > n {
            self.offset = n.saturating_sub(rows);
        }
    }

    /// Shows a page; keeps the selection when the same query is refreshed.
    pub fn show(&mut self, spec: QuerySpec, page: Arc<FetchedPage>, at: Instant) {
        let same = self.shown.as_ref().is_some_and(|s| s.spec == spec);
        for r in &page.records {
            if let Some(s) = &r.status
                && !s.trim().is_empty()
                && self.filter_bar.seen_statuses.len() < 200
            {
                self.filter_bar.seen_statuses.insert(s.clone());
            }
        }
        let full = page.clone();
        let page = self.picked(&full);
        self.shown = Some(Shown {
            spec,
            page,
            full,
            loaded_at: at,
        });
        self.error = None;
        if !same {
            self.selected = 0;
            self.offset = 0;
        }
        self.select(self.selected);
    }

    /// A page with every column, as this tab shows it (its chosen columns, in order).
    fn picked(&self, full: &Arc<FetchedPage>) -> Arc<FetchedPage> {
        if self.resource.default_columns() {
            return full.clone();
        }
        let all = self.resource.all_columns();
        Arc::new(crate::app::resources::project(
            full,
            all,
            self.resource.columns,
        ))
    }

    /// Shows these columns in this order (`:columns`, a view); the page on screen follows
    /// at once.
    pub fn set_columns(&mut self, ids: &[crate::app::resources::ColumnId]) {
        self.resource.choose_columns(ids);
        if let Some(full) = self.shown.as_ref().map(|s| s.full.clone()) {
            let page = self.picked(&full);
            if let Some(s) = &mut self.shown {
                s.page = page;
            }
        }
    }

    /// Requests the relations the shown columns need (an Account column needs `account`);
    /// true when one was added.
    pub fn include_for_columns(&mut self) -> bool {
        let mut added = false;
        for i in self.resource.columns.iter().filter_map(|c| c.include) {
            if !self.includes.contains(&i) {
                self.includes.push(i);
                added = true;
            }
        }
        self.includes.sort();
        added
    }

    /// Columns left of the rows inside the border: one for the `*` of marked rows while
    /// any row is marked (the border stays whole), none otherwise.
    pub fn gutter(&self) -> u16 {
        u16::from(!self.selection.is_empty())
    }

    /// The columns that fit the table's inner width (less the gutter), scrolled.
    pub fn columns_shown(&self, inner_width: u16) -> crate::app::layout::ShownColumns {
        crate::app::layout::shown_columns(
            self.resource.columns,
            inner_width.saturating_sub(self.gutter()),
            self.col_scroll,
        )
    }

    /// Filters applied, or typed in the bar (even refused ones).
    pub fn has_filters(&self) -> bool {
        !self.filters.is_empty() || self.filter_bar.fields.iter().any(|f| !f.input.is_empty())
    }

    /// `status=won`: the filters in words.
    pub fn filter_summary(&self) -> String {
        self.spec().filter_summary()
    }
}

pub fn clamp_per_page(p: u32) -> u32 {
    PAGE_SIZES
        .iter()
        .copied()
        .find(|s| *s >= p)
        .unwrap_or(PAGE_SIZES[PAGE_SIZES.len() - 1])
}
