//! `:jobs`: one line per job (state, kind, what, progress or outcome), running first; and
//! the question before opening many records in the browser.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::app::App;
use crate::app::dialogs::Dialog;
use crate::app::dialogs::confirm_action::ConfirmOpen;
use crate::app::dialogs::jobs::JobsView;
use crate::app::jobs::JobState;
use crate::app::keymap::KeyMap;
use crate::ui::common::{fit, modal};
use crate::ui::theme::Theme;

pub fn draw(f: &mut Frame, area: Rect, v: &JobsView, app: &App, theme: &Theme) {
    let jobs = app.jobs.in_order();
    let width = area.width.saturating_sub(4).min(110);
    let rows = (jobs.len().max(1) as u16).min(area.height.saturating_sub(6).max(1));
    let m = modal::centered(area, width, rows + 4);
    let footer = app.keymap.hint_text(v.hints(), m.width.saturating_sub(4));
    let running = app.jobs.running();
    let title = format!("Jobs · {running} running · {} in all", jobs.len());
    let inner = modal::frame(f, m, &title, &footer, theme);
    let list = Rect {
        height: inner.height.saturating_sub(1),
        ..inner
    };
    if jobs.is_empty() {
        let text = "No jobs yet: exports, the pipeline and timeline readings, syncs and \
                    selections of every match (*) show here.";
        f.render_widget(
            Paragraph::new(Span::styled(text, theme.dim)).wrap(Wrap { trim: true }),
            list,
        );
        return;
    }
    let cursor = v.cursor.min(jobs.len() - 1);
    let shown = usize::from(list.height.max(1));
    let first = cursor.saturating_sub(shown - 1);
    for (row, (i, j)) in jobs.iter().enumerate().skip(first).take(shown).enumerate() {
        let (mark, style) = match &j.state {
            JobState::Running => ("…", theme.spinner),
            JobState::Done(_) => ("✓", theme.dim),
            JobState::Failed(_) => ("✗", theme.error),
            JobState::Cancelled => ("-", theme.dim),
        };
        let at = app.config.zone.format_instant(j.started);
        let time = at.get(11..).unwrap_or(&at);
        let text = format!(
            "{mark} {time} {:<9} {} · {}",
            j.kind.name(),
            j.title,
            j.outcome()
        );
        let y = list.y + row as u16;
        let line_area = Rect::new(list.x, y, list.width, 1);
        let style = if i == cursor { theme.selected } else { style };
        fit::draw_str(f.buffer_mut(), line_area, &text, style);
    }
}

pub fn draw_confirm_open(f: &mut Frame, area: Rect, c: &ConfirmOpen, keys: &KeyMap, theme: &Theme) {
    let m = modal::centered(area, 56, 6);
    let footer = keys.hint_text(c.hints(), m.width.saturating_sub(4));
    let inner = modal::frame(f, m, "Open in the browser?", &footer, theme);
    let text = vec![Line::from(format!(
        "Open {} {} in the browser, one tab each?",
        c.urls.len(),
        c.noun
    ))];
    f.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), inner);
}
