//! `--format table`: aligned columns for a person, sized to the terminal.

use std::io::{self, Write};

use super::columns::{date, label_list, related_sep};
use super::text::{display_width, pad, sanitize_cell, truncate_to_width};
use crate::api::{AppointmentRef, Contact, Deal, Project};

/// A record shown as a table row.
pub trait Tabular {
    /// Column titles, in order.
    fn headers() -> Vec<&'static str>;
    /// The row's values, formatted for reading, one per header.
    fn cells(&self) -> Vec<String>;
    /// Whether column `col` holds numbers (right-aligned).
    fn right_aligned(_col: usize) -> bool {
        false
    }
    /// Whether column `col` may be cut to fit; compact columns (ids, dates, money) keep their
    /// full width while free text gives way.
    fn shrinkable(_col: usize) -> bool {
        true
    }
    /// When the columns do not fit even cut, the lowest priority hides first (ties: the
    /// rightmost); a less important narrow column may stay where a wide one could not.
    fn priority(_col: usize) -> u8 {
        1
    }
    /// The narrowest a shrinkable column is still worth showing at: below it the column hides
    /// instead (a name cut to five letters reads as nothing). `None`: [`MIN_COL`].
    fn min_width(_col: usize) -> Option<usize> {
        None
    }
}

/// Gap between columns.
const GAP: usize = 2;
/// A column shrinks no further than this (or its natural width when smaller).
const MIN_COL: usize = 6;

/// How each column of a table behaves when fitted: from a [`Tabular`] type, or uniform for
/// `--columns`.
#[derive(Debug, Clone)]
pub struct TableShape {
    headers: Vec<String>,
    right: Vec<bool>,
    shrink: Vec<bool>,
    priority: Vec<u8>,
    /// The narrowest each column is still worth showing at (`None`: [`MIN_COL`]).
    min: Vec<Option<usize>>,
    /// The column whose header says the display clock's zone, and that suffix: shown when the
    /// room is there once every column has its width, left out (never cut) when it is not.
    zone: Option<(usize, String)>,
}

impl TableShape {
    /// The type's own columns (uppercase headers; a time column's says the display clock's
    /// zone: `CREATED (Europe/Berlin)`).
    pub fn of<T: Tabular>() -> TableShape {
        let names = T::headers();
        let headers: Vec<String> = names.iter().map(|h| h.to_uppercase()).collect();
        let n = headers.len();
        let times: Vec<usize> = (0..n)
            .filter(|i| matches!(names[*i], "created" | "updated" | "start" | "end"))
            .collect();
        TableShape {
            right: (0..n).map(T::right_aligned).collect(),
            shrink: (0..n).map(T::shrinkable).collect(),
            priority: (0..n).map(T::priority).collect(),
            min: (0..n).map(T::min_width).collect(),
            headers,
            zone: None,
        }
        .zoned(&times)
    }

    /// These columns hold times on the display clock: the first one's header says its zone,
    /// once for the row (`SENT (Europe/Berlin)`), so the others keep their room.
    pub fn zoned(mut self, cols: &[usize]) -> TableShape {
        let label = crmdash_api::clock::get().label();
        self.zone = cols
            .first()
            .filter(|c| **c < self.headers.len())
            .map(|c| (*c, format!(" ({label})")));
        self
    }

    /// Which columns stay longest when the width runs short (higher first); a column not
    /// named keeps its place.
    pub fn prioritised(mut self, priority: &[u8]) -> TableShape {
        for (p, q) in self.priority.iter_mut().zip(priority) {
            *p = *q;
        }
        self
    }

    /// Named columns (`--columns`): every one may shrink; the leftmost stay longest.
    pub fn named(names: &[String]) -> TableShape {
        let n = names.len();
        TableShape {
            headers: names.iter().map(|h| h.to_uppercase()).collect(),
            right: vec![false; n],
            shrink: vec![true; n],
            priority: (0..n)
                .map(|i| u8::try_from(n - i).unwrap_or(u8::MAX))
                .collect(),
            min: vec![None; n],
            zone: None,
        }
    }

    /// These columns keep their full width (dates, ids): they hide rather than shrink.
    pub fn keep_whole(mut self, cols: &[usize]) -> TableShape {
        for c in cols {
            if let Some(s) = self.shrink.get_mut(*c) {
                *s = false;
            }
        }
        self
    }

    pub fn len(&self) -> usize {
        self.headers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.headers.is_empty()
    }
}

/// A table written in parts (pages): the column widths are fitted to the first part and
/// kept, so every later row lines up under the same header (longer values are cut with `…`).
pub struct TableWriter {
    shape: TableShape,
    width: usize,
    layout: Option<Vec<(usize, usize)>>,
}

impl TableWriter {
    pub fn new(shape: TableShape, width: u16) -> TableWriter {
        TableWriter {
            shape,
            width: usize::from(width).max(1),
            layout: None,
        }
    }

    /// Writes `rows` (raw cells, one per column), the header first when this is the first
    /// part.
    pub fn rows(&mut self, rows: Vec<Vec<String>>, w: &mut impl Write) -> io::Result<()> {
        let n = self.shape.len();
        let rows: Vec<Vec<String>> = rows
            .into_iter()
            .map(|r| {
                let mut cells: Vec<String> = r.iter().map(|c| sanitize_cell(c)).collect();
                cells.resize(n, String::new());
                cells
            })
            .collect();
        if self.layout.is_none() {
            let layout = fit(&self.shape, &rows, self.width);
            self.layout = Some(layout);
            let headers = self.shape.headers.clone();
            self.line(&headers, true, w)?;
        }
        for row in &rows {
            self.line(row, false, w)?;
        }
        Ok(())
    }

    /// Ends the table: the header alone when no row came.
    pub fn finish(&mut self, w: &mut impl Write) -> io::Result<()> {
        if self.layout.is_none() {
            self.rows(Vec::new(), w)?;
        }
        Ok(())
    }

    fn line(&self, cells: &[String], is_header: bool, w: &mut impl Write) -> io::Result<()> {
        let layout = self.layout.as_deref().unwrap_or_default();
        let last = layout.last().map(|(i, _)| *i);
        let mut s = String::new();
        for (n, (i, wd)) in layout.iter().enumerate() {
            if n > 0 {
                s.push_str(&" ".repeat(GAP));
            }
            let full;
            let cell = match &self.shape.zone {
                // The header with its zone when the column has the room for it.
                Some((z, suffix)) if is_header && z == i => {
                    full = format!("{}{suffix}", cells[*i]);
                    if display_width(&full) <= *wd {
                        &full
                    } else {
                        &cells[*i]
                    }
                }
                _ => &cells[*i],
            };
            let cut = truncate_to_width(cell, *wd);
            let right = !is_header && self.shape.right[*i];
            if Some(*i) == last && !right {
                s.push_str(&cut);
            } else {
                s.push_str(&pad(&cut, *wd, right));
            }
        }
        // A single column wider than the terminal: cut the line itself.
        let s = truncate_to_width(s.trim_end(), self.width);
        w.write_all(s.as_bytes())?;
        w.write_all(b"\n")
    }
}

/// Uppercase headers and one line per record, columns aligned and fitted into `width`
/// terminal columns: free-text columns give way first (the widest first, cut values end in
/// `…`), then the least important columns hide. Every cell is sanitised so a value can never
/// break a line. No trailing spaces.
pub fn write_table<T: Tabular>(records: &[T], width: u16, w: &mut impl Write) -> io::Result<()> {
    let mut t = TableWriter::new(TableShape::of::<T>(), width);
    t.rows(records.iter().map(Tabular::cells).collect(), w)?;
    t.finish(w)
}

/// The visible columns and their widths: natural widths (widest cell or header), the most
/// important columns that fit at their minimum widths, then the widest shrinkable column
/// shaved one column at a time until the row fits.
/// Priority up to which a column is slack (relations, dates): it gives way while a more
/// important column is cut.
const SLACK: u8 = 2;
/// A column this wide (or whole) reads well enough: slack columns do not give way for more.
const COMFORT: usize = 24;

/// [`fit_once`], then slack columns hidden, the least important first, while a more important
/// column they share the row with is cut below [`COMFORT`]: a name is not shaved for a date.
fn fit(shape: &TableShape, rows: &[Vec<String>], width: usize) -> Vec<(usize, usize)> {
    let natural = natural_widths(shape, rows, width);
    let mut hidden = vec![false; shape.headers.len()];
    loop {
        let layout = fit_once(shape, rows, width, &natural, &hidden);
        let cut_above = |p: u8| {
            layout
                .iter()
                .any(|(i, w)| shape.priority[*i] > p && *w < natural[*i].min(COMFORT))
        };
        let lowest = layout
            .iter()
            .filter(|(i, _)| shape.priority[*i] <= SLACK)
            .min_by_key(|(i, _)| (shape.priority[*i], std::cmp::Reverse(*i)));
        match lowest {
            Some((i, _)) if layout.len() > 1 && cut_above(shape.priority[*i]) => hidden[*i] = true,
            _ => return layout,
        }
    }
}

/// Each column's widest cell or header, at most the whole width.
fn natural_widths(shape: &TableShape, rows: &[Vec<String>], width: usize) -> Vec<usize> {
    let mut natural: Vec<usize> = shape.headers.iter().map(|h| display_width(h)).collect();
    for row in rows {
        for (wd, cell) in natural.iter_mut().zip(row) {
            *wd = (*wd).max(display_width(cell));
        }
    }
    natural.into_iter().map(|n| n.min(width)).collect()
}

fn fit_once(
    shape: &TableShape,
    rows: &[Vec<String>],
    width: usize,
    natural: &[usize],
    hidden: &[bool],
) -> Vec<(usize, usize)> {
    let headers = &shape.headers;
    let min_of = |i: usize| {
        if shape.shrink[i] {
            let least = shape.min[i].unwrap_or(MIN_COL);
            natural[i].min(least.max(display_width(&headers[i]).min(12)))
        } else {
            natural[i]
        }
    };
    // A column with nothing in any row says nothing: when the width runs short it goes first.
    let empty: Vec<bool> = (0..headers.len())
        .map(|i| !rows.is_empty() && rows.iter().all(|r| r.get(i).is_none_or(|c| c.is_empty())))
        .collect();
    let all_natural = natural.iter().sum::<usize>() + GAP * headers.len().saturating_sub(1);
    let needed = |cols: &[usize], w: &dyn Fn(usize) -> usize| {
        cols.iter().map(|i| w(*i)).sum::<usize>() + GAP * cols.len().saturating_sub(1)
    };
    // Most important first (ties: leftmost); a column joins when its minimum still fits.
    let mut by_priority: Vec<usize> = (0..headers.len())
        .filter(|i| !(hidden[*i] || (empty[*i] && all_natural > width)))
        .collect();
    by_priority.sort_by_key(|i| (std::cmp::Reverse(shape.priority[*i]), *i));
    let mut visible: Vec<usize> = Vec::new();
    for i in by_priority {
        let mut with = visible.clone();
        with.push(i);
        if visible.is_empty() || needed(&with, &min_of) <= width {
            visible = with;
        }
    }
    visible.sort_unstable();
    let mut widths: Vec<usize> = visible.iter().map(|i| natural[*i]).collect();
    let mut total = needed(&visible, &|i| natural[i]);
    while total > width {
        let widest = (0..visible.len())
            .filter(|n| widths[*n] > min_of(visible[*n]))
            .max_by_key(|n| (widths[*n], std::cmp::Reverse(*n)));
        let Some(n) = widest else { break };
        widths[n] -= 1;
        total -= 1;
    }
    // Room left: the zoned column grows to say its zone in its header.
    if let Some((z, suffix)) = &shape.zone
        && let Some(n) = visible.iter().position(|i| i == z)
    {
        let full = display_width(&headers[*z]) + display_width(suffix);
        let grow = full.saturating_sub(widths[n]);
        if grow > 0 && total + grow <= width {
            widths[n] += grow;
        }
    }
    visible.into_iter().zip(widths).collect()
}

fn text(s: &Option<String>) -> String {
    s.clone().unwrap_or_default()
}

impl Tabular for Contact {
    fn headers() -> Vec<&'static str> {
        vec![
            "id", "name", "email", "phone", "account", "assignee", "created", "updated",
        ]
    }

    fn cells(&self) -> Vec<String> {
        vec![
            self.id.clone(),
            self.full_name(),
            text(&self.email),
            text(&self.phone),
            related_sep(None, &self.accounts, &self.extra, "account_id", ", "),
            related_sep(
                self.assigned_user.as_ref(),
                &self.assigned_users,
                &self.extra,
                "assigned_user_id",
                ", ",
            ),
            date(&self.created_at),
            date(&self.updated_at),
        ]
    }

    fn shrinkable(col: usize) -> bool {
        !matches!(col, 0 | 6 | 7)
    }

    /// The name, the e-mail and the phone are what a contact list is read for: they stay and
    /// keep a useful width while the id, the relations and the dates give way.
    fn priority(col: usize) -> u8 {
        // id, name, email, phone, account, assignee, created, updated
        [3, 6, 5, 4, 1, 1, 0, 2][col.min(7)]
    }

    fn min_width(col: usize) -> Option<usize> {
        [
            None,
            Some(14),
            Some(18),
            Some(12),
            Some(10),
            Some(10),
            None,
            None,
        ][col.min(7)]
    }
}

impl Tabular for Deal {
    fn headers() -> Vec<&'static str> {
        vec![
            "id", "name", "status", "value", "account", "assignee", "created", "updated",
        ]
    }

    fn cells(&self) -> Vec<String> {
        vec![
            self.id.clone(),
            text(&self.name),
            text(&self.status),
            // As the dashboard's table shows it: grouped, with the deal's currency.
            self.value
                .as_ref()
                .map(|m| {
                    let currency = super::money::deal_currency(self, None);
                    super::money::format_money(m, currency.as_deref())
                })
                .unwrap_or_default(),
            related_sep(
                self.account.as_ref(),
                &None,
                &self.extra,
                "account_id",
                ", ",
            ),
            related_sep(
                self.assigned_user.as_ref(),
                &self.assigned_users,
                &self.extra,
                "assigned_user_id",
                ", ",
            ),
            date(&self.created_at),
            date(&self.updated_at),
        ]
    }

    fn right_aligned(col: usize) -> bool {
        col == 3
    }

    fn shrinkable(col: usize) -> bool {
        !matches!(col, 0 | 3 | 6 | 7)
    }

    fn priority(col: usize) -> u8 {
        // id, name, status, value, account, assignee, created, updated
        [3, 5, 3, 4, 2, 1, 0, 2][col.min(7)]
    }

    fn min_width(col: usize) -> Option<usize> {
        [
            None,
            Some(16),
            Some(8),
            None,
            Some(10),
            Some(10),
            None,
            None,
        ][col.min(7)]
    }
}

impl Tabular for Project {
    fn headers() -> Vec<&'static str> {
        vec![
            "id", "name", "status", "start", "end", "owner", "members", "updated",
        ]
    }

    fn cells(&self) -> Vec<String> {
        vec![
            self.id.clone(),
            text(&self.name),
            text(&self.status),
            date(&self.start_date),
            date(&self.end_date),
            related_sep(self.owner.as_ref(), &None, &self.extra, "owner_id", ", "),
            label_list(&self.members, ", ").unwrap_or_default(),
            date(&self.updated_at),
        ]
    }

    fn shrinkable(col: usize) -> bool {
        !matches!(col, 0 | 3 | 4 | 7)
    }

    fn priority(col: usize) -> u8 {
        [3, 4, 3, 2, 2, 1, 0, 1][col.min(7)]
    }

    fn min_width(col: usize) -> Option<usize> {
        [
            None,
            Some(16),
            Some(8),
            None,
            None,
            Some(10),
            Some(10),
            None,
        ][col.min(7)]
    }
}

impl Tabular for AppointmentRef {
    fn headers() -> Vec<&'static str> {
        vec!["id", "created", "updated"]
    }

    fn cells(&self) -> Vec<String> {
        vec![
            self.id.clone(),
            date(&self.created_at),
            date(&self.updated_at),
        ]
    }
}
