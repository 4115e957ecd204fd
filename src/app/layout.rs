//! Screen geometry, shared by drawing and by mouse hit-testing so both always agree:
//! where the tabs, filter bar, table, status and hint lines go, and which columns fit.

use ratatui::layout::Rect;
use unicode_width::UnicodeWidthStr;

use crate::app::resources::Column;
use crate::app::table::tab::TabState;

/// Smallest terminal the dashboard draws in; below it, a notice. Narrow screens drop table
/// columns by priority (`shown_columns`) and shorten the hints.
pub const MIN_WIDTH: u16 = 60;
pub const MIN_HEIGHT: u16 = 16;

/// Gap between table columns.
pub const COLUMN_GAP: u16 = 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Areas {
    pub tabs: Rect,
    pub filter: Option<Rect>,
    /// The table's block, borders included.
    pub table: Rect,
    pub status: Rect,
    pub hint: Rect,
}

/// The pipeline view inside the table's borders: the bars (status x currency), a header of
/// `header_rows` rows above them (it wraps: `App::pipeline_header_rows`), and the won/lost
/// chart below when there is room (at least 14 rows). The header leaves the bars 3 rows.
pub fn pipeline_split(inner: Rect, header_rows: u16) -> (Rect, Rect, Option<Rect>) {
    let header = Rect {
        height: header_rows
            .min(inner.height.saturating_sub(3))
            .max(1)
            .min(inner.height),
        ..inner
    };
    let rest = Rect {
        y: inner.y + header.height,
        height: inner.height - header.height,
        ..inner
    };
    if rest.height < 14 {
        return (rest, header, None);
    }
    let chart_h = (rest.height / 2).min(14);
    let bars = Rect {
        height: rest.height - chart_h,
        ..rest
    };
    let chart = Rect {
        y: bars.y + bars.height,
        height: chart_h,
        ..rest
    };
    (bars, header, Some(chart))
}

/// The timeline view inside the table's borders: a date header, one row per project, and a
/// legend of `legend_rows` rows (it wraps: `App::timeline_legend`) at the bottom when there
/// are at least 6 rows.
pub fn timeline_split(inner: Rect, legend_rows: u16) -> (Rect, Rect, Option<Rect>) {
    let header = Rect {
        height: 1.min(inner.height),
        ..inner
    };
    let legend_h = if inner.height >= 6 {
        legend_rows.clamp(1, inner.height - 4)
    } else {
        0
    };
    let rows = Rect {
        y: inner.y + header.height,
        height: inner.height - header.height - legend_h,
        ..inner
    };
    let legend = (legend_h > 0).then_some(Rect {
        y: rows.y + rows.height,
        height: legend_h,
        ..inner
    });
    (header, rows, legend)
}

/// The timeline's chart inside the table's borders, beside a marker and the names (the
/// longest `longest_name` columns, between 8 and 28, at most a third of the width): the name
/// column's width, the chart's first column and its width in cells. Drawing and the keys
/// that move by a screen (`h`/`l`) use the same.
pub fn timeline_chart(inner: Rect, longest_name: usize) -> (usize, u16, u16) {
    let name_w = (longest_name + 1)
        .clamp(8, 28)
        .min(inner.width as usize / 3);
    let chart_x = inner.x + 2 + name_w as u16 + 1;
    let cells = (inner.x + inner.width).saturating_sub(chart_x);
    (name_w, chart_x, cells)
}

/// Items of `widths` columns set in rows of `width`, `sep` columns between two on a row: each
/// row takes the next items while they fit (one wider than a row gets a row to itself, cut
/// where drawn). The ranges of items per row; none for no items.
pub fn pack(widths: &[usize], sep: usize, width: usize) -> Vec<std::ops::Range<usize>> {
    let mut rows = Vec::new();
    let mut from = 0;
    let mut used = 0;
    for (i, w) in widths.iter().enumerate() {
        if i > from && used + sep + w > width {
            rows.push(from..i);
            from = i;
            used = 0;
        }
        used += if i > from { sep + w } else { *w };
    }
    if from < widths.len() {
        rows.push(from..widths.len());
    }
    rows
}

impl Areas {
    /// The areas of a screen showing `tab` (its filter bar open or not): the one computation
    /// drawing (`ui::render`) and the app (`App::areas`, hit-testing) share.
    pub fn of_screen(area: Rect, tab: &TabState) -> Areas {
        let rows = tab.filter_open.then(|| {
            let notes = tab
                .filter_bar
                .long_errors(area.width.saturating_sub(2))
                .len();
            (tab.filter_bar.fields.len() + notes) as u16
        });
        Areas::compute(area, rows)
    }

    /// `filter_rows`: the number of filter fields when the bar is open.
    pub fn compute(area: Rect, filter_rows: Option<u16>) -> Areas {
        let tabs = Rect {
            height: 1.min(area.height),
            ..area
        };
        let bottom = area.y + area.height;
        let hint = Rect {
            y: bottom.saturating_sub(1),
            height: 1,
            ..area
        };
        let status = Rect {
            y: bottom.saturating_sub(2),
            height: 1,
            ..area
        };
        let mut y = area.y + 1;
        let filter = filter_rows.map(|n| {
            let r = Rect {
                y,
                height: n + 2,
                ..area
            };
            y += n + 2;
            r
        });
        let table = Rect {
            y,
            height: status.y.saturating_sub(y),
            ..area
        };
        Areas {
            tabs,
            filter,
            table,
            status,
            hint,
        }
    }

    /// Rows of records the table shows (borders and header excluded).
    pub fn table_rows(&self) -> usize {
        self.table.height.saturating_sub(3) as usize
    }

    /// The table's inner area (inside the borders).
    pub fn table_inner(&self) -> Rect {
        Rect {
            x: self.table.x + 1,
            y: self.table.y + 1,
            width: self.table.width.saturating_sub(2),
            height: self.table.height.saturating_sub(2),
        }
    }
}

/// Picks the columns that fit in `width` and their widths. Columns are taken in priority
/// order while each can have a comfortable width (halfway between its minimum and ideal), so
/// narrow terminals hide the least important ones instead of squeezing all; then the room
/// grows every column to that comfortable width, then towards its ideal width, most important
/// first; the first column takes what is left.
pub fn fit_columns(columns: &[Column], width: u16) -> Vec<(usize, u16)> {
    let mut by_priority: Vec<usize> = (0..columns.len()).collect();
    by_priority.sort_by_key(|i| (columns[*i].priority, *i));
    let mut shown: Vec<usize> = Vec::new();
    let mut used = 0u16;
    for i in by_priority {
        let c = &columns[i];
        let comfortable = (c.min + c.ideal).div_ceil(2);
        let gap = if shown.is_empty() { 0 } else { COLUMN_GAP };
        if used + gap + comfortable > width {
            break;
        }
        used += gap + comfortable;
        shown.push(i);
    }
    if shown.is_empty() && !columns.is_empty() {
        shown.push(0);
    }
    shown.sort();
    let gaps = COLUMN_GAP * shown.len().saturating_sub(1) as u16;
    let mut widths: Vec<u16> = shown.iter().map(|i| columns[*i].min).collect();
    let mut spare = width.saturating_sub(widths.iter().sum::<u16>() + gaps);
    let mut order: Vec<usize> = (0..shown.len()).collect();
    order.sort_by_key(|p| columns[shown[*p]].priority);
    // Every shown column first gets its comfortable width, then its ideal, by priority.
    for stage in [0, 1] {
        for p in &order {
            let c = &columns[shown[*p]];
            // The most important column (the name) goes straight to its ideal width.
            let target = if stage == 0 && c.priority > 0 {
                (c.min + c.ideal).div_ceil(2)
            } else {
                c.ideal
            };
            let give = target.saturating_sub(widths[*p]).min(spare);
            widths[*p] += give;
            spare -= give;
        }
    }
    if let Some(w) = widths.first_mut() {
        *w += spare;
    }
    shown.into_iter().zip(widths).collect()
}

/// The columns a table shows in `width`, scrolled sideways: a rendering step over whatever
/// column list the tab has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShownColumns {
    /// (index into the column list, width), in display order.
    pub fitted: Vec<(usize, u16)>,
    /// Columns not on screen (dropped by priority or scrolled past).
    pub hidden: usize,
    /// The scroll actually applied (clamped).
    pub scroll: usize,
    /// Scrolling right would bring a hidden column in.
    pub more_right: bool,
}

/// [`fit_columns`] after skipping `scroll` columns: the pinned ones (priority 0, the name)
/// always stay; the others are skipped from the left, so the columns dropped for room come
/// into view one by one.
pub fn shown_columns(columns: &[Column], width: u16, scroll: usize) -> ShownColumns {
    let others: Vec<usize> = (0..columns.len())
        .filter(|i| columns[*i].priority > 0)
        .collect();
    let fit_from = |skip: usize| {
        let keep: Vec<usize> = (0..columns.len())
            .filter(|i| columns[*i].priority == 0 || others[skip..].contains(i))
            .collect();
        let subset: Vec<Column> = keep.iter().map(|i| columns[*i]).collect();
        let fitted: Vec<(usize, u16)> = fit_columns(&subset, width)
            .into_iter()
            .map(|(j, w)| (keep[j], w))
            .collect();
        let more_right = others[skip..]
            .iter()
            .any(|i| !fitted.iter().any(|(f, _)| f == i));
        (fitted, more_right)
    };
    // Scrolling stops once every column right of the skipped ones is on screen.
    let mut scroll = scroll.min(others.len().saturating_sub(1));
    let (mut fitted, mut more_right) = fit_from(scroll);
    while scroll > 0 {
        let (f, m) = fit_from(scroll - 1);
        if m {
            break;
        }
        (fitted, more_right) = (f, m);
        scroll -= 1;
    }
    ShownColumns {
        hidden: columns.len() - fitted.len(),
        fitted,
        scroll,
        more_right,
    }
}

/// The column under x (relative to the table's inner area).
pub fn column_at(fitted: &[(usize, u16)], x: u16) -> Option<usize> {
    let mut left = 0;
    for (i, w) in fitted {
        if x >= left && x < left + w {
            return Some(*i);
        }
        left += w + COLUMN_GAP;
    }
    None
}

/// The centred box of a modal: most of the screen, a little margin. It stays strictly
/// inside the table's borders (below its top border, above its bottom one), so its own
/// border never runs into the table's.
pub fn modal_area(area: Rect) -> Rect {
    let w = area.width.saturating_sub(8).clamp(20.min(area.width), 120);
    let (top, h) = dialog_rows(area);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: top,
        width: w,
        height: h,
    }
}

/// The rows a dialog may use on a screen of `area`: between the table's top border (under
/// the tab bar) and its bottom border (above the status and hint lines).
pub fn dialog_rows(area: Rect) -> (u16, u16) {
    let top = area.y + 2.min(area.height);
    let h = area.height.saturating_sub(5).max(5.min(area.height));
    (top.min(area.y + area.height - h), h)
}

/// Width and height of a modal's text area (inside borders, above the footer line).
pub fn modal_inner(width: u16, height: u16) -> (u16, u16) {
    let m = modal_area(Rect::new(0, 0, width, height));
    (m.width.saturating_sub(4), m.height.saturating_sub(3))
}

/// The tab bar's spans: each title and the x range it covers.
pub fn tab_ranges(titles: &[String]) -> Vec<(u16, u16)> {
    let mut x = 0u16;
    titles
        .iter()
        .map(|t| {
            let w = t.width() as u16 + 2;
            let r = (x, x + w);
            x += w + 1;
            r
        })
        .collect()
}
