//! `:dupes`: the clusters as a list (score, members, reasons), or one cluster side by side
//! with the fields that differ marked `≠` (a mark, not only a colour: readable under
//! NO_COLOR).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::app::dialogs::Dialog;
use crate::app::dialogs::dupes::{DupesView, ListEntry, OpenCluster};
use crate::app::keymap::KeyMap;
use crate::insights::dupes::mirrored::DupesReport;
use crate::ui::common::{fit, form_rows, modal};
use crate::ui::theme::Theme;

/// The field names' column in the side-by-side view.
const FIELD_W: usize = 12;
/// The narrowest member column.
const MEMBER_MIN_W: usize = 12;

pub fn draw(f: &mut Frame, area: Rect, v: &DupesView, spinner: &str, keys: &KeyMap, theme: &Theme) {
    let m = modal::centered(area, area.width.saturating_sub(4).min(140), area.height);
    let title = match (&v.open, v.report()) {
        (Some(open), Some(r)) => format!(
            "Near duplicates · cluster {} of {} · score {:.2}",
            open.cluster + 1,
            r.clusters.len(),
            r.clusters[open.cluster].score
        ),
        (_, Some(r)) => format!(
            "Near duplicates · {} clusters among {} contacts",
            r.clusters.len(),
            r.contacts
        ),
        _ => "Near duplicates".to_string(),
    };
    let footer = keys.hint_text(v.hints(), m.width.saturating_sub(4));
    let inner = modal::frame(f, m, &title, &footer, theme);
    if inner.height == 0 {
        return;
    }
    let sentence = |f: &mut Frame, text: String, style: Style| {
        f.render_widget(
            Paragraph::new(Span::styled(text, style)).wrap(Wrap { trim: false }),
            inner,
        );
    };
    let report = match &v.result {
        None => {
            return sentence(
                f,
                format!("{spinner} comparing the contacts of the local mirror"),
                theme.spinner,
            );
        }
        Some(Err(e)) => return sentence(f, e.clone(), theme.error),
        Some(Ok(None)) => {
            return sentence(
                f,
                "No local mirror yet: run `crmdash sync` (or :sync), then look again.".into(),
                theme.pending,
            );
        }
        Some(Ok(Some(r))) => r,
    };
    let mut lines: Vec<Line> = Vec::new();
    if !report.complete {
        let text = "The mirror's contacts are incomplete (no full sync finished): clusters may be missing.";
        for l in form_rows::wrap(text, usize::from(inner.width)) {
            lines.push(Line::from(Span::styled(l, theme.pending)));
        }
    }
    if v.pending.is_some() {
        lines.push(Line::from(Span::styled(
            format!("{spinner} looking again"),
            theme.spinner,
        )));
    }
    let top = lines.len();
    match &v.open {
        Some(open) => cluster_lines(&mut lines, report, open, inner.width, theme),
        None if report.clusters.is_empty() => lines.push(Line::from(Span::styled(
            format!(
                "No near duplicates among {} contacts (score {:.2} or more).",
                report.contacts, report.min_score
            ),
            theme.dim,
        ))),
        None => {
            // The selected cluster's two lines in view, the first line shown a cluster's
            // first; only the clusters in view are drawn.
            let rows = usize::from(inner.height).saturating_sub(top).max(1);
            let below = (v.selected * 2 + 2).saturating_sub(rows);
            let first = below.div_ceil(2).min(v.selected);
            for (n, entry) in v.list.iter().enumerate().skip(first).take(rows.div_ceil(2)) {
                list_lines(&mut lines, entry, n == v.selected, theme);
            }
        }
    }
    fit::draw_lines(f.buffer_mut(), inner, lines);
}

/// A cluster's two lines (made when the clusters came): score and members' names, then
/// the best pair's reasons.
fn list_lines<'a>(lines: &mut Vec<Line<'a>>, entry: &'a ListEntry, selected: bool, theme: &Theme) {
    let style = if selected {
        theme.selected
    } else {
        Style::new()
    };
    lines.push(Line::from(vec![
        Span::styled(if selected { "▸ " } else { "  " }, style),
        Span::styled(entry.head.as_str(), style),
    ]));
    lines.push(Line::from(Span::styled(entry.why.as_str(), theme.dim)));
}

/// The open cluster: a row a field, a column a member (those that fit, the selected one
/// among them), `≠` before the fields that differ.
fn cluster_lines(
    lines: &mut Vec<Line>,
    r: &DupesReport,
    open: &OpenCluster,
    width: u16,
    theme: &Theme,
) {
    let n = open.rows.first().map_or(0, |row| row.values.len());
    if n == 0 {
        return;
    }
    let room = usize::from(width).saturating_sub(FIELD_W + 2);
    let fit_n = (room / MEMBER_MIN_W).clamp(1, n);
    let col_w = room / fit_n;
    let first = open.member.saturating_sub(fit_n - 1).min(n - fit_n);
    let shown = first..first + fit_n;
    let more = if fit_n < n {
        format!(" · members {}–{} of {n}", first + 1, first + fit_n)
    } else {
        String::new()
    };
    let c = &r.clusters[open.cluster];
    let p = &r.people[c.members[open.member]];
    let reading = if open.reading.is_some() {
        " · reading the records…"
    } else {
        ""
    };
    lines.push(Line::from(Span::styled(
        format!("≠ differs{more} · ▸ {} ({}){reading}", p.name, p.id),
        theme.dim,
    )));
    for row in &open.rows {
        let mark = if row.differ { "≠ " } else { "  " };
        let mut spans = vec![
            Span::styled(mark, theme.bad),
            Span::styled(
                format!("{:<w$}", fit::cut(row.field, FIELD_W - 1), w = FIELD_W),
                if row.differ { theme.heading } else { theme.dim },
            ),
        ];
        for k in shown.clone() {
            // The selected member's id carries a mark (seen without colours too); every other
            // cell starts with a space in its place, so the columns line up.
            let value = match (row.field, k == open.member) {
                ("id", true) => format!("▸{}", row.values[k]),
                _ => format!(" {}", row.values[k]),
            };
            let text = fit::cut(&value, col_w.saturating_sub(1)).into_owned();
            let pad = col_w.saturating_sub(fit::width(&text));
            let style = if row.field == "id" && k == open.member {
                theme.selected
            } else {
                Style::new()
            };
            spans.push(Span::styled(text, style));
            spans.push(Span::raw(" ".repeat(pad)));
        }
        lines.push(Line::from(spans));
    }
}
