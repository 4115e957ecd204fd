//! The export dialog: path prompt, then progress, then the outcome.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::app::dialogs::export::{ExportDialog, ExportStage};
use crate::app::keymap::{Action, KeyMap};
use crate::ui::common::{modal, text_input};
use crate::ui::theme::Theme;

pub fn draw(f: &mut Frame, area: Rect, d: &ExportDialog, keys: &KeyMap, theme: &Theme) {
    let key = |a: Action| keys.first_key(a);
    let m = modal::centered(area, 72, 9);
    let title = format!("Export {}", d.kind.noun());
    let footer = match d.stage {
        ExportStage::Asking => format!(
            "{} export · {} CSV/JSON · {} cancel",
            key(Action::Confirm),
            key(Action::SwitchFormat),
            key(Action::Cancel)
        ),
        ExportStage::Running { .. } => format!("{} cancel", key(Action::Cancel)),
        _ => format!("{} close", keys.pair(Action::Confirm, Action::Cancel)),
    };
    let inner = modal::frame(f, m, &title, &footer, theme);
    if inner.height < 3 {
        return;
    }
    let scope = Line::from(vec![
        Span::styled("All pages of: ", theme.dim),
        Span::raw(d.scope.as_str()),
    ]);
    f.render_widget(Paragraph::new(scope), Rect { height: 1, ..inner });
    let row = |n: u16| Rect {
        y: inner.y + n,
        height: 1,
        ..inner
    };
    match &d.stage {
        ExportStage::Asking => {
            f.render_widget(
                Paragraph::new(Span::styled(
                    format!("File ({}):", d.format.extension().to_uppercase()),
                    theme.key,
                )),
                row(2),
            );
            let input = Rect {
                x: inner.x + 12,
                width: inner.width.saturating_sub(12),
                ..row(2)
            };
            text_input::draw(f, input, &d.path, true, theme);
        }
        ExportStage::Running {
            records,
            page,
            last_page,
            ..
        } => {
            let of = last_page.map(|l| format!("/{l}")).unwrap_or_default();
            let text = format!("Exporting… page {page}{of} · {records} records");
            f.render_widget(Paragraph::new(Span::styled(text, theme.spinner)), row(2));
        }
        ExportStage::Finished(msg) => {
            f.render_widget(
                Paragraph::new(Span::styled(msg.as_str(), theme.note)).wrap(Wrap { trim: true }),
                Rect {
                    y: inner.y + 2,
                    height: inner.height - 2,
                    ..inner
                },
            );
        }
        ExportStage::Failed(msg) => {
            f.render_widget(
                Paragraph::new(Span::styled(msg.as_str(), theme.error)).wrap(Wrap { trim: true }),
                Rect {
                    y: inner.y + 2,
                    height: inner.height - 2,
                    ..inner
                },
            );
        }
    }
}
