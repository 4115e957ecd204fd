//! The status line (page position, data age, request state, last error or note, profile and
//! host) and the hint line generated from the key map.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

use crate::app::App;
use crate::ui::theme::Theme;

const SPINNER: [&str; 8] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧"];

/// `page 2/7 · 163 total`, or `all 42 contacts` for an unpaged list.
pub fn position(app: &App) -> String {
    if app.pipeline_visible && app.pipeline_shown().is_some() {
        // The table's page says nothing about the pipeline, whose header has its own count.
        return String::new();
    }
    let tab = app.tab();
    let Some(shown) = &tab.shown else {
        return String::new();
    };
    match shown.page.meta {
        Some(meta) => {
            let page = meta.current_page.unwrap_or(shown.spec.page as u64);
            let last = tab
                .last_page()
                .map(|l| l.to_string())
                .unwrap_or_else(|| "?".into());
            let total = meta
                .total
                .map(|t| format!(" · {t} total"))
                .unwrap_or_default();
            format!("page {page}/{last}{total}")
        }
        None => format!(
            "all {} {}",
            shown.page.records.len(),
            tab.resource.kind.noun()
        ),
    }
}

pub fn draw_status(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let mut left: Vec<Span> = Vec::new();
    let sep = || Span::styled(" · ", theme.dim);
    let mirror = app.mirror_status();
    // Offline comes first: on a narrow screen it is the last thing to be cut.
    if app.is_offline()
        && let Some(m) = &mirror
    {
        left.push(Span::styled(m.clone(), theme.error));
    }
    let pos = position(app);
    if !pos.is_empty() {
        if !left.is_empty() {
            left.push(sep());
        }
        left.push(Span::raw(pos));
    }
    if let Some(age) = app.age_label() {
        if !left.is_empty() {
            left.push(sep());
        }
        left.push(Span::styled(age, theme.dim));
    }
    if app.busy() {
        if !left.is_empty() {
            left.push(sep());
        }
        let frame = SPINNER[app.spinner_frame % SPINNER.len()];
        left.push(Span::styled(format!("{frame} loading"), theme.spinner));
    } else if let Some(l) = app.status.latency.filter(|_| !app.is_offline()) {
        if !left.is_empty() {
            left.push(sep());
        }
        left.push(Span::styled(format!("{} ms", l.as_millis()), theme.dim));
    }
    if let Some(m) = mirror.filter(|_| !app.is_offline()) {
        if !left.is_empty() {
            left.push(sep());
        }
        left.push(Span::styled(m, theme.dim));
    }
    if app.status.awaiting_token {
        left.push(sep());
        left.push(Span::styled("looking up the API token", theme.pending));
    }
    if let Some(r) = &app.status.retrying {
        left.push(sep());
        left.push(Span::styled(r.as_str(), theme.pending));
    }
    // A separator only between items (an error alone starts the line).
    if let Some(e) = &app.status.error {
        if !left.is_empty() {
            left.push(sep());
        }
        left.push(Span::styled(e.as_str(), theme.error));
    } else if let Some((n, _)) = &app.status.note {
        if !left.is_empty() {
            left.push(sep());
        }
        left.push(Span::styled(n.as_str(), theme.note));
    }
    let host = match app.config.host.as_str() {
        "" => "no base URL yet",
        h => h,
    };
    let right = format!(" {} @ {host} ", app.config.profile);
    let rw = (right.width() as u16).min(area.width / 3);
    let left_area = Rect {
        width: area.width.saturating_sub(rw),
        ..area
    };
    let right_area = Rect {
        x: area.x + area.width - rw,
        width: rw,
        ..area
    };
    f.render_widget(Paragraph::new(Line::from(left)), left_area);
    f.render_widget(
        Paragraph::new(Line::from(Span::styled(right, theme.dim)).right_aligned()),
        right_area,
    );
}

pub fn draw_hint(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    f.render_widget(
        Paragraph::new(Line::from(Span::styled(
            app.hint_line(area.width),
            theme.dim,
        ))),
        area,
    );
}
