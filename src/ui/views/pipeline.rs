//! The pipeline view: one bar per status and currency with its count, exact total and share
//! beside it. A bar is the share of its currency's total (every status of that currency
//! together makes a full width), so bars compare amounts within one currency only and
//! currencies are never summed or scaled against each other; the header says so. For the
//! selected bar's currency, won and lost per month.
//! Won bars are `█`, lost bars `▒`, so the chart reads without colour (`NO_COLOR`).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;
use unicode_width::UnicodeWidthStr;

use super::{Reading, reading_lines};
use crate::app::App;
use crate::app::layout::pipeline_split;
use crate::app::pipeline::{HEADER_SEP, MAX_PAGES, PipelineData, PipelineView, Tone};
use crate::app::table::record::{CellStyle, StatusTone};
use crate::insights::pipeline::{Coverage, PipelineSummary, format_amount};
use crate::ui::common::table::draw_message;
use crate::ui::common::{fit, frame_box};
use crate::ui::theme::Theme;

const WON: &str = "█";
const LOST: &str = "▒";

pub fn draw(f: &mut Frame, area: Rect, app: &App, view: &PipelineView, theme: &Theme) {
    let filter = view.spec.filter_summary();
    let mut title = vec![Span::styled(" Pipeline ", theme.title)];
    let scope = if filter.is_empty() {
        "· all deals ".to_string()
    } else {
        format!("· {filter} ")
    };
    title.push(Span::styled(scope, theme.dim));
    let border = if app.overlays.is_empty() && !app.tab().filter_open {
        theme.border_focus
    } else {
        theme.border
    };
    let inner = frame_box::draw(f.buffer_mut(), area, border, Line::from(title));
    let header_rows = app.pipeline_header_rows(inner.width);
    let (bars, header, chart) = pipeline_split(inner, header_rows);
    match &view.data {
        PipelineData::Loading {
            pages,
            last_page,
            deals,
        } => {
            let r = Reading::Loading {
                pages: *pages,
                last_page: *last_page,
                so_far: format!("{deals} deals"),
            };
            draw_message(f, inner, reading_lines(app, theme, "deals", MAX_PAGES, r));
        }
        PipelineData::Failed(e) => {
            let r = Reading::Failed(e);
            draw_message(f, inner, reading_lines(app, theme, "deals", MAX_PAGES, r));
        }
        PipelineData::Cancelled { pages } => {
            let r = Reading::Cancelled {
                pages: *pages,
                instead: "no figures shown rather than partial ones",
            };
            draw_message(f, inner, reading_lines(app, theme, "deals", MAX_PAGES, r));
        }
        PipelineData::Ready(done) => {
            let (summary, coverage) = done.as_ref();
            draw_header(f, header, app, summary, coverage, theme);
            if summary.by_status.is_empty() {
                draw_message(f, bars, vec![Line::from("No deals match this filter.")]);
                return;
            }
            draw_bars(f, bars, summary, view, theme);
            if let Some(chart) = chart {
                let currency = view.selected_bar().map(|(_, c)| c).unwrap_or_default();
                draw_months(f, chart, summary, &currency, theme);
            }
        }
    }
}

fn draw_header(
    f: &mut Frame,
    area: Rect,
    app: &App,
    s: &PipelineSummary,
    cov: &Coverage,
    theme: &Theme,
) {
    let items = app
        .pipeline_header(s, cov)
        .into_iter()
        .map(|(text, tone)| {
            let style = match tone {
                Tone::Plain => Style::new(),
                Tone::Dim => theme.dim,
                Tone::Alarm => theme.error,
            };
            Line::from(Span::styled(text, style))
        })
        .collect();
    let rows = fit::packed(items, Span::styled(HEADER_SEP, theme.dim), area.width);
    fit::draw_lines(f.buffer_mut(), area, rows);
}

/// `n * width / max`, at least one cell for a non-zero amount, none for zero or less.
fn scaled(value: Decimal, max: Decimal, width: u16) -> u16 {
    if value <= Decimal::ZERO || max <= Decimal::ZERO || width == 0 {
        return 0;
    }
    let cells = (value * Decimal::from(width) / max).ceil();
    cells.to_u16().unwrap_or(width).clamp(1, width)
}

fn draw_bars(f: &mut Frame, area: Rect, s: &PipelineSummary, view: &PipelineView, theme: &Theme) {
    let rows = s.rows();
    let status_w = rows
        .iter()
        .map(|(st, _, _)| st.width())
        .max()
        .unwrap_or(0)
        .min(12);
    let cur_w = rows
        .iter()
        .map(|(_, c, _)| c.width())
        .max()
        .unwrap_or(0)
        .min(6);
    let count_w = rows
        .iter()
        .map(|(_, _, b)| b.count.to_string().len() + usize::from(b.without_value > 0))
        .max()
        .unwrap_or(1);
    let totals: Vec<String> = rows
        .iter()
        .map(|(_, _, b)| format_amount(b.total, true))
        .collect();
    let total_w = totals.iter().map(|t| t.len()).max().unwrap_or(0);
    // marker, status, currency, count, total, share, then the bar.
    let fixed = 2 + status_w + 1 + cur_w + 1 + count_w + 1 + total_w + 1 + SHARE_W + 1;
    let bar_w = (area.width as usize).saturating_sub(fixed) as u16;
    // Each bar is its share of its own currency's total (once per frame).
    let mut whole: std::collections::HashMap<&str, Decimal> = std::collections::HashMap::new();
    for (_, cur, b) in &rows {
        *whole.entry(cur).or_default() += b.total.max(Decimal::ZERO);
    }
    let whole_of = |cur: &str| whole.get(cur).copied().unwrap_or_default();
    // The selection stays in sight whatever the offset kept from a larger screen.
    let offset = crate::app::widgets::list_cursor::offset_showing(
        view.selected,
        view.offset,
        area.height as usize,
    );
    let lines: Vec<Line> = rows
        .iter()
        .zip(&totals)
        .enumerate()
        .skip(offset)
        .take(area.height as usize)
        .map(|(i, ((status, cur, b), total))| {
            let selected = i == view.selected;
            let tone = theme.cell(CellStyle::Status(StatusTone::of(status)));
            let base = if selected {
                theme.selected
            } else {
                Style::new()
            };
            let marker = if selected { "▶ " } else { "  " };
            let count = if b.without_value > 0 {
                format!("{}*", b.count)
            } else {
                b.count.to_string()
            };
            let status_text = fit::cut(status, status_w);
            let cur_text = fit::cut(cur, cur_w);
            let cells = scaled(b.total, whole_of(cur), bar_w);
            let share = share_text(b.total, whole_of(cur));
            let bar_symbol = if status.eq_ignore_ascii_case("lost") {
                LOST
            } else {
                WON
            };
            Line::from(vec![
                Span::styled(marker, base),
                Span::styled(format!("{status_text:<status_w$} "), base.patch(tone)),
                Span::styled(format!("{cur_text:<cur_w$} "), base),
                Span::styled(format!("{count:>count_w$} "), base),
                Span::styled(format!("{total:>total_w$} "), base),
                Span::styled(format!("{share:>SHARE_W$} "), base),
                Span::styled(bar_symbol.repeat(cells as usize), tone),
            ])
        })
        .collect();
    f.render_widget(Paragraph::new(lines), area);
}

/// Columns of the share (`100%`, `<1%`).
const SHARE_W: usize = 4;

/// `part` as a whole percentage of `whole`: `<1%` for a part too small to round to 1, `—`
/// when there is nothing to share.
fn share_text(part: Decimal, whole: Decimal) -> String {
    if whole <= Decimal::ZERO || part < Decimal::ZERO {
        return "—".into();
    }
    let pct = (part * Decimal::from(100) / whole).round();
    if pct.is_zero() && !part.is_zero() {
        return "<1%".into();
    }
    format!("{pct}%")
}

/// Won (`█`) and lost (`▒`) value per month of one currency, scaled to its largest month.
fn draw_months(f: &mut Frame, area: Rect, s: &PipelineSummary, currency: &str, theme: &Theme) {
    if area.height < 4 || s.months.is_empty() {
        return;
    }
    let months = &s.months;
    let of = |m| s.by_month.get(&(m, currency.to_string()));
    let won_total: Decimal = months
        .iter()
        .filter_map(|m| of(*m))
        .map(|w| w.won.total)
        .sum();
    let lost_total: Decimal = months
        .iter()
        .filter_map(|m| of(*m))
        .map(|w| w.lost.total)
        .sum();
    let legend = vec![
        Line::from(Span::styled(
            format!("Won/lost per month, {currency}, by {}:", s.month_basis()),
            theme.heading,
        )),
        Line::from(vec![
            Span::styled(WON, theme.good),
            Span::raw(format!(" won {}", format_amount(won_total, true))),
        ]),
        Line::from(vec![
            Span::styled(LOST, theme.bad),
            Span::raw(format!(" lost {}", format_amount(lost_total, true))),
        ]),
    ];
    // The legend wraps rather than cut (at most 3 rows: the plot keeps 1 or more).
    let legend = fit::packed(legend, Span::raw("  "), area.width);
    let legend_h = (legend.len() as u16).min(3);
    fit::draw_lines(
        f.buffer_mut(),
        Rect {
            height: legend_h,
            ..area
        },
        legend,
    );
    let area = Rect {
        y: area.y + legend_h - 1,
        height: area.height - (legend_h - 1),
        ..area
    };
    let plot_h = area.height - 2;
    let group_w = (area.width / months.len() as u16).clamp(2, 8);
    let bar_w = ((group_w - 1) / 2).max(1);
    let max = months
        .iter()
        .filter_map(|m| of(*m))
        .flat_map(|w| [w.won.total, w.lost.total])
        .max()
        .unwrap_or_default();
    if max <= Decimal::ZERO {
        let note = format!(
            "No won or lost {currency} deals in these {} months.",
            months.len()
        );
        let y = area.y + 1 + plot_h / 2;
        f.render_widget(
            Paragraph::new(Span::styled(note, theme.dim))
                .alignment(ratatui::layout::Alignment::Center),
            Rect {
                y,
                height: 1,
                ..area
            },
        );
    }
    let buf = f.buffer_mut();
    let base_y = area.y + 1 + plot_h; // the label row
    for (i, m) in months.iter().enumerate() {
        let x0 = area.x + i as u16 * group_w;
        if x0 + group_w > area.x + area.width {
            break;
        }
        let (won, lost) = of(*m)
            .map(|w| (w.won.total, w.lost.total))
            .unwrap_or_default();
        for (k, (value, sym, style)) in [(won, WON, theme.good), (lost, LOST, theme.bad)]
            .into_iter()
            .enumerate()
        {
            let h = scaled(value, max, plot_h);
            for dy in 0..h {
                for dx in 0..bar_w {
                    let x = x0 + k as u16 * bar_w + dx;
                    buf[(x, base_y - 1 - dy)].set_symbol(sym).set_style(style);
                }
            }
        }
        let label = if group_w >= 4 {
            m.format("%b").to_string()
        } else {
            m.format("%b").to_string().chars().take(1).collect()
        };
        let label: String = label.chars().take(group_w as usize).collect();
        buf.set_string(x0, base_y, label, theme.dim);
    }
}
