//! The write gate's questions: a protected profile's name typed, and quitting while a write
//! waits in its undo window.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::app::dialogs::write_guard::{PendingWriteQuit, TypeProfileName};
use crate::app::keymap::{Action, KeyMap};
use crate::app::{UnsentDrafts, describe_unsent};
use crate::ui::common::{modal, text_input};
use crate::ui::theme::Theme;

pub fn draw_type_name(
    f: &mut Frame,
    area: Rect,
    d: &TypeProfileName,
    keys: &KeyMap,
    theme: &Theme,
) {
    let m = modal::centered(area, 56, 9);
    let footer = format!(
        "{} send · {} don't send",
        keys.first_key(Action::Confirm),
        keys.first_key(Action::Cancel)
    );
    let title = format!("Protected profile {}", d.profile);
    let inner = modal::frame(f, m, &title, &footer, theme);
    let ask = format!(
        "Profile {} is protected (a live service). Type its name to send this write:",
        d.profile
    );
    let said = if d.mismatch {
        Line::from(Span::styled(
            format!("That is not {}: nothing sent yet.", d.profile),
            theme.error,
        ))
    } else {
        Line::from("")
    };
    let text_rows = inner.height.saturating_sub(2);
    f.render_widget(
        Paragraph::new(vec![Line::from(Span::styled(ask, theme.error)), said])
            .wrap(Wrap { trim: true }),
        Rect {
            height: text_rows,
            ..inner
        },
    );
    if inner.height >= 2 {
        let field = Rect {
            y: inner.bottom() - 1,
            height: 1,
            ..inner
        };
        let label = "Name: ";
        let w = label.len() as u16;
        f.render_widget(
            Paragraph::new(Span::styled(label, theme.key)),
            Rect { width: w, ..field },
        );
        let field = Rect {
            x: field.x + w,
            width: field.width.saturating_sub(w),
            ..field
        };
        text_input::draw(f, field, &d.input, true, theme);
    }
}

pub fn draw_pending_quit(
    f: &mut Frame,
    area: Rect,
    d: &PendingWriteQuit,
    keys: &KeyMap,
    theme: &Theme,
) {
    let m = modal::centered(area, 56, 7);
    let footer = format!(
        "{} send now · {} drop · {} stay",
        keys.first_key(Action::Yes),
        keys.first_key(Action::No),
        keys.first_key(Action::Cancel)
    );
    let inner = modal::frame(f, m, "A write waits to be sent", &footer, theme);
    let text = vec![
        Line::from(format!(
            "The {} has not been sent yet (its undo window is running).",
            d.what
        )),
        Line::from("Send it now and quit once the service answers, or drop it and quit?"),
    ];
    f.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), inner);
}

/// At the start: the writes an earlier dashboard never sent, each opened as a draft with Enter.
/// Wrapped, never cut: each is read whole.
pub fn draw_unsent(f: &mut Frame, area: Rect, d: &UnsentDrafts, keys: &KeyMap, theme: &Theme) {
    let m = modal::centered(area, 76, area.height.saturating_sub(2).max(8));
    let footer = format!(
        "{} open as draft · {} close (they stay in :log)",
        keys.first_key(Action::Confirm),
        keys.first_key(Action::Back)
    );
    let title = match d.writes.len() {
        1 => "A write was not sent".to_string(),
        n => format!("{n} writes were not sent"),
    };
    let inner = modal::frame(f, m, &title, &footer, theme);
    let killed = d.writes.iter().any(UnsentDrafts::killed);
    let why = if killed {
        "crmdash ended without a word (it was killed) while these waited in their undo window:"
    } else {
        "crmdash ended (a quit that dropped them, or a signal) while these waited in their undo window:"
    };
    let mut text = vec![Line::from(why), Line::from("")];
    for (i, w) in d.writes.iter().enumerate() {
        let style = if i == d.selected {
            theme.selected
        } else {
            ratatui::style::Style::default()
        };
        let mark = if i == d.selected { "› " } else { "  " };
        text.push(Line::from(Span::styled(
            format!("{mark}{}", describe_unsent(w)),
            style,
        )));
    }
    text.push(Line::from(""));
    text.push(Line::from(Span::styled(
        "Nothing was sent. A draft opens as it was confirmed; sending it is up to you.",
        theme.dim,
    )));
    f.render_widget(Paragraph::new(text).wrap(Wrap { trim: false }), inner);
}
