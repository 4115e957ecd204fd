//! The request log: one request a line (time, method, status, duration, size, view, path),
//! or the selected one whole.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::app::App;
use crate::app::dialogs::requests::{Detail, KEPT, LoggedRequest, RequestLogView, human_bytes};
use crate::app::keymap::Action;
use crate::ui::common::{fit, modal};
use crate::ui::theme::Theme;

pub fn draw(f: &mut Frame, area: Rect, v: &RequestLogView, app: &App, theme: &Theme) {
    let keys = &app.keymap;
    let m = modal::centered(area, area.width.saturating_sub(4).min(160), area.height);
    let log = &app.requests.entries;
    if let Some(detail @ Detail { scroll, .. }) = &v.detail {
        let footer = format!(
            "{} scroll · {} copy as curl · {} back",
            keys.pair(Action::Down, Action::Up),
            keys.first_key(Action::CopyJson),
            keys.first_key(Action::Back),
        );
        let title = format!("Request {} of {}", v.selected + 1, log.len());
        let inner = modal::frame(f, m, &title, &footer, theme);
        // Read whole: a long URL or header wraps onto the next lines, never cut.
        let all = detail.wrapped_to(
            usize::from(inner.width).max(1),
            crate::ui::common::form_rows::wrap,
        );
        // Never scrolled past the last screenful.
        let last_top = all.len().saturating_sub(usize::from(inner.height));
        let lines = all
            .iter()
            .skip(usize::from(*scroll).min(last_top))
            .take(usize::from(inner.height))
            .map(|l| {
                let style = if l.starts_with('>') || l.starts_with('<') {
                    theme.dim
                } else {
                    Style::new()
                };
                Line::from(Span::styled(l.as_str(), style))
            });
        fit::draw_lines(f.buffer_mut(), inner, lines);
        return;
    }
    let footer = format!(
        "{} select · {} show · {} copy as curl · {} close",
        keys.pair(Action::Down, Action::Up),
        keys.first_key(Action::Detail),
        keys.first_key(Action::CopyJson),
        keys.first_key(Action::Back),
    );
    let title = format!("Requests ({} of the last {KEPT})", log.len());
    let inner = modal::frame(f, m, &title, &footer, theme);
    if inner.height == 0 {
        return;
    }
    if log.is_empty() {
        fit::draw_str(
            f.buffer_mut(),
            inner,
            "No requests yet in this session.",
            theme.dim,
        );
        return;
    }
    let rows = usize::from(inner.height);
    let first = (v.selected + 1).saturating_sub(rows);
    let lines = log
        .iter()
        .enumerate()
        .skip(first)
        .take(rows)
        .map(|(i, r)| row(r, i == v.selected, theme));
    fit::draw_lines(f.buffer_mut(), inner, lines);
}

fn row<'a>(r: &'a LoggedRequest, selected: bool, theme: &Theme) -> Line<'a> {
    let x = &r.exchange;
    let (status, tone) = match x.status {
        Some(s) if (200..300).contains(&s) => (s.to_string(), theme.good),
        Some(s) => (s.to_string(), theme.bad),
        None => ("---".to_string(), theme.bad),
    };
    let base = if selected {
        theme.selected
    } else {
        Style::new()
    };
    let pick = |s: Style| if selected { theme.selected } else { s };
    Line::from(vec![
        Span::styled(format!("{} ", x.at.format("%H:%M:%S")), pick(theme.dim)),
        Span::styled(format!("{:<6} ", x.method), base),
        Span::styled(format!("{status:>3} "), pick(tone)),
        Span::styled(
            format!("{:>6} ", format!("{}ms", x.elapsed.as_millis())),
            pick(theme.dim),
        ),
        Span::styled(format!("{:>8} ", human_bytes(x.size)), pick(theme.dim)),
        Span::styled(format!("{:<11} ", r.origin), pick(theme.dim)),
        Span::styled(r.path.as_str(), base),
    ])
}
