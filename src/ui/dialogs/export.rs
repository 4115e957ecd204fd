//! The export dialog: path prompt, then progress, then the outcome.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::ui::common::fit;

use crate::app::dialogs::export::{ExportDialog, ExportStage};
use crate::app::keymap::{Action, KeyMap};
use crate::ui::common::{modal, text_input};
use crate::ui::theme::Theme;

/// Where the file name starts: after `File (JSON):` and a space.
const NAME_AT: u16 = 13;

pub fn draw(f: &mut Frame, area: Rect, d: &ExportDialog, keys: &KeyMap, theme: &Theme) {
    let m = modal::centered(area, 72, 9);
    let title = format!("Export {}", d.noun());
    let inner = modal::frame(f, m, &title, &footer(d, keys), theme);
    if inner.height < 3 {
        return;
    }
    let scope = Line::from(vec![
        // The selected records are read from wherever they are, not page by page.
        Span::styled(
            if d.only.is_some() {
                "Only "
            } else {
                "Every page of "
            },
            theme.dim,
        ),
        Span::raw(d.scope.as_str()),
    ]);
    fit::draw_line(f.buffer_mut(), Rect { height: 1, ..inner }, scope);
    // Under the scope line and a blank one: what the stage shows.
    let body = Rect {
        y: inner.y + 2,
        height: inner.height - 2,
        ..inner
    };
    match &d.stage {
        ExportStage::Asking => draw_asking(f, body, d, theme),
        ExportStage::Exists { path, free } => {
            let name = free
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let lines = vec![
                Line::from(Span::styled(
                    format!(
                        "{} exists.",
                        tail_fit(&path.display().to_string(), inner.width.saturating_sub(8))
                    ),
                    theme.error,
                )),
                Line::from(format!(
                    "Overwrite it, write {name} instead, or change the name?"
                )),
            ];
            draw_wrapped(f, body, lines);
        }
        ExportStage::Running {
            records,
            page,
            last_page,
            ..
        } => {
            let of = last_page.map(|l| format!("/{l}")).unwrap_or_default();
            let text = format!("Exporting… page {page}{of} · {records} records");
            f.render_widget(
                Paragraph::new(Span::styled(text, theme.spinner)),
                first_row(body),
            );
        }
        ExportStage::Finished(msg) => {
            draw_wrapped(
                f,
                body,
                vec![Line::from(Span::styled(msg.as_str(), theme.note))],
            );
        }
        ExportStage::Failed(msg) => {
            draw_wrapped(
                f,
                body,
                vec![Line::from(Span::styled(msg.as_str(), theme.error))],
            );
        }
    }
}

fn footer(d: &ExportDialog, keys: &KeyMap) -> String {
    let key = |a: Action| keys.first_key(a);
    match d.stage {
        ExportStage::Asking => format!(
            "{} export · {} CSV/JSON · {} cancel",
            key(Action::Confirm),
            key(Action::SwitchFormat),
            key(Action::Cancel)
        ),
        ExportStage::Exists { .. } => format!(
            "{} overwrite · {} new name · {} change the name",
            key(Action::Yes),
            key(Action::No),
            key(Action::Cancel)
        ),
        ExportStage::Running { .. } => format!("{} cancel", key(Action::Cancel)),
        _ => format!("{} close", keys.pair(Action::Confirm, Action::Cancel)),
    }
}

fn first_row(area: Rect) -> Rect {
    Rect { height: 1, ..area }
}

/// Lines word-wrapped in `area`.
fn draw_wrapped(f: &mut Frame, area: Rect, lines: Vec<Line>) {
    f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), area);
}

/// The path prompt, and under it the folder the typed name writes into (seen before Enter is
/// pressed), or the error of the last attempt.
fn draw_asking(f: &mut Frame, body: Rect, d: &ExportDialog, theme: &Theme) {
    let row = first_row(body);
    f.render_widget(
        Paragraph::new(Span::styled(
            format!("File ({}):", d.format.extension().to_uppercase()),
            theme.key,
        )),
        row,
    );
    // The name starts a space after the longest label (`File (JSON):`), so it neither runs
    // into the label nor moves when the format changes.
    let input = Rect {
        x: body.x + NAME_AT,
        width: body.width.saturating_sub(NAME_AT),
        ..row
    };
    text_input::draw(f, input, &d.path, true, theme);
    let (line, style) = match (&d.error, d.places.folder_of(d.path.value())) {
        (Some(e), _) => (e.clone(), theme.error),
        (None, Some(dir)) => (
            format!(
                "in {}",
                tail_fit(&dir.display().to_string(), input.width.saturating_sub(3))
            ),
            theme.dim,
        ),
        (None, None) => (String::new(), theme.dim),
    };
    fit::draw_str(
        f.buffer_mut(),
        Rect {
            y: row.y + 1,
            ..input
        },
        &line,
        style,
    );
}

/// `s` in `width` columns, its start cut with `…` when too long (a path's end says most).
fn tail_fit(s: &str, width: u16) -> String {
    use unicode_width::UnicodeWidthStr;
    let width = width as usize;
    if s.width() <= width {
        return s.to_string();
    }
    let mut kept: Vec<char> = Vec::new();
    let mut used = 1;
    for c in s.chars().rev() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > width {
            break;
        }
        used += w;
        kept.push(c);
    }
    std::iter::once('…').chain(kept.into_iter().rev()).collect()
}
