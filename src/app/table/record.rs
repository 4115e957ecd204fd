//! Records as the table shows them: every cell formatted once, when a page arrives, so drawing
//! a frame only borrows strings. Values are made single-line and bounded here, so long,
//! multi-line or odd values can never break the layout.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

use crate::api::{ApiRecord, Meta, Money, Page, Related, Timestamp};
use crate::app::resources::ColumnId;

pub use crate::timeparse::DisplayZone;

/// How cells are formatted: the zone dates are shown in, and the currency of amounts whose
/// record names none (`[ui] currency`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellFormat {
    pub zone: DisplayZone,
    pub currency: Option<String>,
}

impl From<DisplayZone> for CellFormat {
    fn from(zone: DisplayZone) -> Self {
        CellFormat {
            zone,
            currency: None,
        }
    }
}

impl From<&DisplayZone> for CellFormat {
    fn from(zone: &DisplayZone) -> Self {
        CellFormat::from(*zone)
    }
}

impl From<&CellFormat> for CellFormat {
    fn from(f: &CellFormat) -> Self {
        f.clone()
    }
}

/// How a status value is coloured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusTone {
    Good,
    Bad,
    Pending,
    Neutral,
}

impl StatusTone {
    pub fn of(status: &str) -> StatusTone {
        let s = status.to_ascii_lowercase();
        let has = |words: &[&str]| words.iter().any(|w| s.contains(w));
        if has(&["lost", "cancel", "reject", "fail", "closed_lost", "abandon"]) {
            StatusTone::Bad
        } else if has(&["won", "complete", "done", "active", "success", "finished"]) {
            StatusTone::Good
        } else if has(&[
            "open", "new", "progress", "pending", "planned", "draft", "hold",
        ]) {
            StatusTone::Pending
        } else {
            StatusTone::Neutral
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellStyle {
    Plain,
    /// A missing value.
    Missing,
    Status(StatusTone),
}

/// One formatted cell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    pub text: String,
    pub style: CellStyle,
    /// [`is_narrow`]`(text)`, worked out once when the page arrives rather than every frame.
    pub narrow: bool,
}

impl Cell {
    fn new(text: String, style: CellStyle) -> Cell {
        let narrow = is_narrow(&text);
        Cell {
            text,
            style,
            narrow,
        }
    }

    pub(crate) fn plain(text: impl AsRef<str>) -> Cell {
        let text = one_line(text.as_ref());
        if text.is_empty() {
            return Cell::missing();
        }
        Cell::new(text, CellStyle::Plain)
    }

    pub(crate) fn missing() -> Cell {
        Cell::new("-".to_string(), CellStyle::Missing)
    }

    pub(crate) fn opt(v: Option<impl AsRef<str>>) -> Cell {
        v.map(Cell::plain).unwrap_or_else(Cell::missing)
    }
}

/// Whether every character of `text` is a grapheme of its own, one column wide, and the whole
/// is as wide as it has characters: then drawing it is one character per terminal cell
/// (`ui::common::cell_text`), with no grapheme segmentation. Latin, Greek and Cyrillic text
/// with punctuation usually is; combining marks, wide (CJK, emoji) and some Arabic text are
/// not, and take ratatui's general path.
pub fn is_narrow(text: &str) -> bool {
    if text.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        return true;
    }
    let mut chars = 0;
    let each = text.graphemes(true).all(|g| {
        chars += 1;
        let mut cs = g.chars();
        // ratatui counts the halfwidth sound marks one column wider than `unicode-width`.
        let plain = |c: char| !c.is_control() && !matches!(c, '\u{ff9e}' | '\u{ff9f}');
        let one = cs.next().is_some_and(plain) && cs.next().is_none();
        one && g.width() == 1
    });
    each && text.width() == chars
}

/// Longest text kept in a cell; wider columns do not exist.
const MAX_CELL_CHARS: usize = 160;

/// Control characters (newlines, tabs, escapes) become spaces and runs of spaces collapse, so
/// a value always takes one line and cannot move the cursor.
pub fn one_line(s: &str) -> String {
    let s = &*crate::output::terminal_safe(s);
    let mut out = String::with_capacity(s.len().min(MAX_CELL_CHARS));
    let mut last_space = true;
    for c in s.chars().take(MAX_CELL_CHARS * 2) {
        let c = if c.is_control() || c.is_whitespace() {
            ' '
        } else {
            c
        };
        if c == ' ' {
            if last_space {
                continue;
            }
            last_space = true;
        } else {
            last_space = false;
        }
        out.push(c);
        if out.chars().count() >= MAX_CELL_CHARS {
            break;
        }
    }
    out.trim_end().to_string()
}

/// A row of the generic table.
#[derive(Debug, Clone)]
pub struct Record {
    pub id: String,
    pub label: String,
    /// One per column of the tab's descriptor, in order.
    pub cells: Vec<Cell>,
    pub status: Option<String>,
    /// The server's JSON, for the detail pane and `y`.
    pub raw: Arc<str>,
}

/// A page ready to show.
#[derive(Debug, Clone)]
pub struct FetchedPage {
    pub records: Vec<Record>,
    pub meta: Option<Meta>,
    /// The distinct currencies of the page's amounts, sorted (the server sorts raw numbers,
    /// so a page sorted by value across several currencies says so).
    pub currencies: Vec<String>,
    /// Answered from the local mirror (the service was not asked or not reachable): when
    /// the mirror's copy of this resource was last synced (`None` for the service's answer).
    pub mirrored: Option<Mirrored>,
}

/// Where a page answered from the mirror comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mirrored {
    /// The last sync of the resource (`None`: never completed).
    pub synced_at: Option<DateTime<Utc>>,
}

/// A record type the generic table can show.
/// Every record the dashboard shows is also exportable with the CLI's writers (same columns).
pub trait TableRecord: ApiRecord + crate::output::Columns + crate::output::Tabular {
    fn cell(&self, column: ColumnId, format: &CellFormat) -> Cell;
    fn status(&self) -> Option<&str> {
        None
    }
    /// The currency of the record's amount, if it has an amount.
    fn currency(&self, _format: &CellFormat) -> Option<String> {
        None
    }
}

/// Formats a page for the given columns; runs off the draw path, when a page arrives.
pub fn build_page<T: TableRecord>(
    page: Page<T>,
    columns: &[ColumnId],
    format: impl Into<CellFormat>,
) -> FetchedPage {
    let format = format.into();
    let mut currencies: Vec<String> = page
        .data
        .iter()
        .filter_map(|r| r.currency(&format))
        .collect();
    currencies.sort();
    currencies.dedup();
    let records = page
        .data
        .iter()
        .map(|r| Record {
            id: r.id().to_string(),
            label: one_line(&r.label()),
            cells: columns.iter().map(|c| r.cell(*c, &format)).collect(),
            status: r.status().map(str::to_string),
            raw: Arc::from(r.raw().get()),
        })
        .collect();
    FetchedPage {
        records,
        meta: page.meta,
        mirrored: None,
        currencies,
    }
}

/// An amount as the table shows it: exact, grouped by thousands, with its currency when
/// known (`338,858.30 EUR`); never through a float. Text that is not a number stays as sent.
pub(crate) fn money_cell(value: Option<&Money>, currency: Option<&str>) -> Cell {
    match value {
        Some(m) => Cell::plain(crate::insights::pipeline::format_money(m, currency)),
        None => Cell::missing(),
    }
}

pub(crate) fn time_cell(ts: Option<&Timestamp>, zone: &DisplayZone) -> Cell {
    Cell::opt(ts.map(|t| zone.format(t)))
}

pub(crate) fn related_cell(r: Option<&Related>) -> Cell {
    Cell::opt(r.map(Related::label))
}

pub(crate) fn related_list_cell(list: Option<&Vec<Related>>) -> Cell {
    match list {
        Some(l) if !l.is_empty() => {
            Cell::plain(l.iter().map(Related::label).collect::<Vec<_>>().join(", "))
        }
        _ => Cell::missing(),
    }
}

pub(crate) fn status_cell(status: Option<&str>) -> Cell {
    match status {
        Some(s) if !s.trim().is_empty() => {
            Cell::new(one_line(s), CellStyle::Status(StatusTone::of(s)))
        }
        _ => Cell::missing(),
    }
}

/// The first of the single and the plural relation that was included.
pub(crate) fn assignee(one: Option<&Related>, many: Option<&Vec<Related>>) -> Cell {
    match one {
        Some(r) => related_cell(Some(r)),
        None => related_list_cell(many),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_single_line_and_bounded() {
        assert_eq!(one_line("a\nb\t\tc\x1b[31m"), "a b c [31m");
        assert_eq!(one_line(&"x".repeat(1000)).chars().count(), MAX_CELL_CHARS);
    }
}
