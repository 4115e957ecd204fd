//! The projects timeline as data: one bar per project from its start to its end date, which
//! ones overran, and where a bar falls in a window of days. Pure: the view draws it.
//!
//! Dates the server sends without a time stay those calendar dates (never shifted by a time
//! zone); an instant is read in the configured zone.

use chrono::{Days, NaiveDate};

use crate::api::{Project, Timestamp};
use crate::timeparse::Zone;

/// Statuses after which a passed end date is no overrun.
const FINISHED: [&str; 5] = ["completed", "done", "closed", "cancelled", "canceled"];

/// One project on the timeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bar {
    pub id: String,
    pub name: String,
    pub status: Option<String>,
    pub start: Option<NaiveDate>,
    /// `None`: open-ended (no end date).
    pub end: Option<NaiveDate>,
    /// The end date passed and the project is not finished.
    pub overdue: bool,
}

impl Bar {
    pub fn from_project(p: &Project, zone: Zone, today: NaiveDate) -> Self {
        let start = date_of(p.start_date.as_ref(), zone);
        let end = date_of(p.end_date.as_ref(), zone);
        let finished = p
            .status
            .as_deref()
            .is_some_and(|s| FINISHED.iter().any(|f| f.eq_ignore_ascii_case(s.trim())));
        Bar {
            id: p.id.clone(),
            name: p.name.clone().unwrap_or_else(|| p.id.clone()),
            status: p.status.clone(),
            start,
            end,
            overdue: !finished && end.is_some_and(|e| e < today),
        }
    }
}

/// Bars sorted by start date (projects without one last), then end, then name.
pub fn bars(projects: &[Project], zone: Zone, today: NaiveDate) -> Vec<Bar> {
    let mut out: Vec<Bar> = projects
        .iter()
        .map(|p| Bar::from_project(p, zone, today))
        .collect();
    out.sort_by(|a, b| {
        (a.start.is_none(), a.start, a.end.is_none(), a.end, &a.name).cmp(&(
            b.start.is_none(),
            b.start,
            b.end.is_none(),
            b.end,
            &b.name,
        ))
    });
    out
}

fn date_of(ts: Option<&Timestamp>, zone: Zone) -> Option<NaiveDate> {
    Some(super::pipeline::date_in_zone(ts?.when()?, zone))
}

/// How many days one column of the timeline stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// One day per column: a week is seven columns.
    Day,
    /// One week per column.
    Week,
    /// About a month (30 days) per column.
    Month,
    /// About a quarter (91 days) per column: years of projects on a narrow terminal.
    Quarter,
}

impl Scale {
    pub fn days_per_cell(self) -> u64 {
        match self {
            Scale::Day => 1,
            Scale::Week => 7,
            Scale::Month => 30,
            Scale::Quarter => 91,
        }
    }

    /// The next coarser scale (wraps to the finest).
    pub fn next(self) -> Self {
        match self {
            Scale::Day => Scale::Week,
            Scale::Week => Scale::Month,
            Scale::Month => Scale::Quarter,
            Scale::Quarter => Scale::Day,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Scale::Day => "day",
            Scale::Week => "week",
            Scale::Month => "month",
            Scale::Quarter => "quarter",
        }
    }

    /// What one column stands for, in days as counted (`30 days`: a month column is not a
    /// calendar month).
    pub fn column_words(self) -> &'static str {
        match self {
            Scale::Day => "1 day",
            Scale::Week => "1 week",
            Scale::Month => "30 days",
            Scale::Quarter => "91 days",
        }
    }

    /// Finest first.
    pub const ALL: [Scale; 4] = [Scale::Day, Scale::Week, Scale::Month, Scale::Quarter];
}

/// A visible stretch of time: `cells` columns from `start`, each `scale` long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub start: NaiveDate,
    pub scale: Scale,
    pub cells: u16,
}

/// Where a bar falls in a window: columns `from..to` (end exclusive), and whether it runs on
/// past either edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub from: u16,
    pub to: u16,
    pub cut_left: bool,
    pub cut_right: bool,
}

impl Window {
    /// A window whose first column holds `today` a quarter of the way in, so some of the past
    /// shows too.
    pub fn around(today: NaiveDate, scale: Scale, cells: u16) -> Self {
        Self::with_in_column(today, cells / 4, scale, cells)
    }

    /// A window whose first column is an eighth of the way before `date` (so what comes
    /// before it shows too).
    pub fn showing(date: NaiveDate, scale: Scale, cells: u16) -> Self {
        Self::with_in_column(date, cells / 8, scale, cells)
    }

    /// A window that puts `date` in column `column`.
    fn with_in_column(date: NaiveDate, column: u16, scale: Scale, cells: u16) -> Self {
        let back = u64::from(column) * scale.days_per_cell();
        Window {
            start: date.checked_sub_days(Days::new(back)).unwrap_or(date),
            scale,
            cells,
        }
    }

    /// The window a timeline opens on: the finest scale at which every dated bar (an
    /// open-ended one up to today) and today fit in `cells` columns, that stretch in the
    /// middle; when even quarters are too fine, quarters with today in view (the `selected` bar's
    /// start too when both fit, else today at the right edge (the most of the past) when that bar started
    /// before it, a quarter when it starts later). Weeks around today when no
    /// bar has a date. Today is in view at every width.
    pub fn fit(bars: &[Bar], selected: Option<&Bar>, today: NaiveDate, cells: u16) -> Self {
        if bars.iter().all(|b| b.start.is_none()) {
            return Window::around(today, Scale::Week, cells);
        }
        let (mut first, mut last) = (today, today);
        for b in bars {
            let Some(start) = b.start else { continue };
            first = first.min(start);
            last = last.max(b.end.unwrap_or(today).max(start));
        }
        let days = (last - first).num_days().unsigned_abs() + 1;
        for scale in Scale::ALL {
            let room = u64::from(cells) * scale.days_per_cell();
            if days <= room {
                // Half the spare room before the first day, in whole columns.
                let column = (room - days) / 2 / scale.days_per_cell();
                return Window::with_in_column(first, column as u16, scale, cells);
            }
        }
        let around = Window::around(today, Scale::Quarter, cells);
        match selected.and_then(|b| b.start) {
            Some(start) => {
                let from = Window::showing(start, Scale::Quarter, cells);
                if from.column(today).is_some() {
                    from
                } else if start < today {
                    // Started long ago: as much of what led up to today as fits.
                    Window::with_in_column(today, cells.saturating_sub(2), Scale::Quarter, cells)
                } else {
                    around
                }
            }
            None => around,
        }
    }

    /// The window at another scale with `about` kept in its column (zooming about a day:
    /// today when it is shown, else the middle); a day outside keeps the middle day.
    pub fn rescaled(self, scale: Scale, about: NaiveDate) -> Self {
        let (day, col) = match self.column(about) {
            Some(col) => (about, col),
            None => {
                let half = self.cells / 2;
                let middle = self
                    .start
                    .checked_add_days(Days::new(u64::from(half) * self.scale.days_per_cell()))
                    .unwrap_or(self.start);
                (middle, half)
            }
        };
        Window::with_in_column(day, col, scale, self.cells)
    }

    /// The last day shown.
    pub fn end(&self) -> NaiveDate {
        let days = u64::from(self.cells) * self.scale.days_per_cell();
        self.start
            .checked_add_days(Days::new(days.saturating_sub(1)))
            .unwrap_or(NaiveDate::MAX)
    }

    /// Moved by `cells` columns (negative: back in time).
    pub fn scrolled(self, cells: i32) -> Self {
        let days = u64::from(cells.unsigned_abs()) * self.scale.days_per_cell();
        let start = if cells >= 0 {
            self.start.checked_add_days(Days::new(days))
        } else {
            self.start.checked_sub_days(Days::new(days))
        };
        Window {
            start: start.unwrap_or(self.start),
            ..self
        }
    }

    /// The column a date falls in, if inside the window.
    pub fn column(&self, date: NaiveDate) -> Option<u16> {
        let days = (date - self.start).num_days();
        if days < 0 {
            return None;
        }
        let col = days as u64 / self.scale.days_per_cell();
        (col < u64::from(self.cells)).then_some(col as u16)
    }

    /// Where a bar is drawn; `None` when it lies wholly outside or has no start.
    /// An open-ended bar runs to the right edge.
    pub fn span(&self, bar: &Bar) -> Option<Span> {
        let start = bar.start?;
        let end = bar.end.unwrap_or(NaiveDate::MAX).max(start);
        if end < self.start || start > self.end() {
            return None;
        }
        let cut_left = start < self.start;
        let cut_right = end > self.end();
        let from = if cut_left { 0 } else { self.column(start)? };
        let to = if cut_right {
            self.cells
        } else {
            self.column(end)? + 1
        };
        Some(Span {
            from,
            to,
            cut_left,
            cut_right,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::decode_page;

    fn d(y: i32, m: u32, day: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, day).unwrap()
    }

    fn projects(json: &str) -> Vec<Project> {
        decode_page::<Project>(json.as_bytes()).unwrap().data
    }

    /// Issue 44: bars spanning decades at 60 and 80 columns used to open on the selected bar's
    /// start, years before today.
    #[test]
    fn the_window_opens_with_today_in_view_at_every_width() {
        let today = d(2026, 11, 24);
        let bar = |id: &str, start: NaiveDate, end: Option<NaiveDate>| Bar {
            id: id.into(),
            name: id.into(),
            status: None,
            start: Some(start),
            end,
            overdue: false,
        };
        let bars = vec![
            bar("old", d(1998, 1, 1), None),
            bar("mid", d(2012, 5, 1), Some(d(2013, 1, 1))),
            bar("late", d(2031, 1, 1), Some(d(2032, 1, 1))),
        ];
        for cells in [20u16, 30, 44, 60, 120, 400] {
            for selected in [None, Some(&bars[0]), Some(&bars[1]), Some(&bars[2])] {
                let w = Window::fit(&bars, selected, today, cells);
                assert!(
                    w.column(today).is_some(),
                    "{cells} cells, {selected:?}: {w:?}"
                );
            }
        }
    }

    #[test]
    fn date_only_values_are_never_shifted_and_instants_use_the_zone() {
        let ps = projects(
            r#"[{"id":"p1","start_date":"2026-03-01","end_date":"2026-03-31"},
                {"id":"p2","start_date":"2026-03-01T23:30:00Z"}]"#,
        );
        let zone: Zone = "Asia/Tokyo".parse().unwrap();
        let bars = bars(&ps, zone, d(2026, 11, 24));
        assert_eq!(bars[0].start, Some(d(2026, 3, 1)));
        assert_eq!(bars[0].end, Some(d(2026, 3, 31)));
        // 23:30 UTC is the next morning in Tokyo.
        assert_eq!(bars[1].start, Some(d(2026, 3, 2)));
        assert_eq!(bars[1].end, None);
    }

    #[test]
    fn overdue_means_end_passed_and_not_finished() {
        let ps = projects(
            r#"[{"id":"a","status":"active","start_date":"2026-01-01","end_date":"2026-11-23"},
                {"id":"b","status":"Completed","start_date":"2026-01-01","end_date":"2026-02-01"},
                {"id":"c","status":"active","start_date":"2026-01-01","end_date":"2026-11-24"},
                {"id":"d","status":"cancelled","start_date":"2026-01-01","end_date":"2026-02-01"},
                {"id":"e","status":"active","start_date":"2026-01-01"}]"#,
        );
        let bars = bars(&ps, Zone::Named(chrono_tz::UTC), d(2026, 11, 24));
        let overdue: Vec<&str> = bars
            .iter()
            .filter(|b| b.overdue)
            .map(|b| b.id.as_str())
            .collect();
        assert_eq!(overdue, ["a"]);
    }

    #[test]
    fn bars_sort_by_start_with_undated_last() {
        let ps = projects(
            r#"[{"id":"x"},{"id":"late","start_date":"2026-05-01"},{"id":"early","start_date":"2026-01-01"}]"#,
        );
        let ids: Vec<String> = bars(&ps, Zone::Named(chrono_tz::UTC), d(2026, 1, 1))
            .into_iter()
            .map(|b| b.id)
            .collect();
        assert_eq!(ids, ["early", "late", "x"]);
    }

    #[test]
    fn spans_clip_at_the_edges_and_open_ends_run_to_the_right() {
        let w = Window {
            start: d(2026, 1, 1),
            scale: Scale::Week,
            cells: 10,
        };
        assert_eq!(w.end(), d(2026, 3, 11));
        let bar = |start: NaiveDate, end: Option<NaiveDate>| Bar {
            id: "p".into(),
            name: "p".into(),
            status: None,
            start: Some(start),
            end,
            overdue: false,
        };
        let inside = w.span(&bar(d(2026, 1, 8), Some(d(2026, 1, 21)))).unwrap();
        assert_eq!(
            (inside.from, inside.to, inside.cut_left, inside.cut_right),
            (1, 3, false, false)
        );
        let left = w.span(&bar(d(2025, 12, 1), Some(d(2026, 1, 1)))).unwrap();
        assert_eq!((left.from, left.to, left.cut_left), (0, 1, true));
        let open = w.span(&bar(d(2026, 2, 1), None)).unwrap();
        assert_eq!((open.from, open.to, open.cut_right), (4, 10, true));
        assert_eq!(w.span(&bar(d(2027, 1, 1), None)), None);
        assert_eq!(w.span(&bar(d(2025, 1, 1), Some(d(2025, 2, 1)))), None);
    }

    fn dated(start: NaiveDate, end: Option<NaiveDate>) -> Bar {
        Bar {
            id: "p".into(),
            name: "p".into(),
            status: None,
            start: Some(start),
            end,
            overdue: false,
        }
    }

    #[test]
    fn the_opening_window_fits_every_bar_at_the_finest_scale_that_can() {
        let today = d(2026, 11, 25);
        // Three years of projects in 50 columns: months (50 x 30 days), the span in the middle.
        let bars = [
            dated(d(2023, 4, 6), Some(d(2024, 4, 18))),
            dated(d(2024, 2, 24), None),
            dated(d(2025, 9, 2), Some(d(2026, 3, 26))),
        ];
        let w = Window::fit(&bars, bars.first(), today, 50);
        assert_eq!(w.scale, Scale::Month);
        assert!(w.start <= d(2023, 4, 6) && w.end() >= today, "{w:?}");
        for b in &bars {
            let span = w.span(b).unwrap();
            assert!(!span.cut_left && span.to > span.from, "{b:?} {span:?}");
        }
        // A few weeks of work: days.
        let near = [dated(d(2026, 11, 20), Some(d(2026, 12, 10)))];
        assert_eq!(Window::fit(&near, None, today, 40).scale, Scale::Day);
        // Too long for months: quarters (20 x 91 days hold the three years).
        let w = Window::fit(&bars, bars.get(1), today, 20);
        assert_eq!(w.scale, Scale::Quarter);
        assert!(
            w.column(today).is_some() && w.column(d(2023, 4, 6)).is_some(),
            "{w:?}"
        );
        // Too long even for quarters: quarters from the selected project's start when today
        // shows too, else up to today.
        let w = Window::fit(&bars, bars.get(1), today, 8);
        assert_eq!(w.scale, Scale::Quarter);
        assert!(w.column(today).is_some(), "{w:?}");
        // Nothing dated: weeks around today.
        assert_eq!(
            Window::fit(&[], None, today, 40),
            Window::around(today, Scale::Week, 40)
        );
    }

    #[test]
    fn rescaling_keeps_today_or_the_middle_day_in_its_column() {
        let w = Window {
            start: d(2026, 1, 1),
            scale: Scale::Week,
            cells: 10,
        };
        let middle = d(2026, 2, 5);
        assert_eq!(w.column(middle), Some(5));
        // A day outside the window: the middle stays the middle.
        let days = w.rescaled(Scale::Day, d(2030, 1, 1));
        assert_eq!((days.scale, days.column(middle)), (Scale::Day, Some(5)));
        assert_eq!(days.rescaled(Scale::Week, d(2030, 1, 1)), w);
        // A day inside (today) keeps its column.
        let today = d(2026, 1, 15);
        assert_eq!(w.column(today), Some(2));
        let days = w.rescaled(Scale::Day, today);
        assert_eq!(days.column(today), Some(2));
        assert_eq!(days.rescaled(Scale::Month, today).column(today), Some(2));
    }

    #[test]
    fn windows_scroll_and_place_today_a_quarter_in() {
        let w = Window::around(d(2026, 11, 24), Scale::Day, 40);
        assert_eq!(w.column(d(2026, 11, 24)), Some(10));
        let later = w.scrolled(7);
        assert_eq!(later.start, d(2026, 11, 21));
        assert_eq!(later.scrolled(-7), w);
        assert_eq!(Scale::Month.next(), Scale::Quarter);
        assert_eq!(Scale::Quarter.next(), Scale::Day);
    }
}
