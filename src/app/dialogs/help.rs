//! The `?` overlay: every binding of the active key map, the filter bar's editing keys and
//! the log file's path.

use std::path::Path;

use crossterm::event::{KeyEvent, MouseEvent};

use crate::app::Said;
use crate::app::dialogs::{Dialog, DialogCx, Outcome};
use crate::app::keymap::{Action, KeyMap};
use crate::app::table::record::DisplayZone;
use crate::app::widgets::scroll::{Entry, ScrollText, Tone};

/// Editing keys of text fields (not rebindable: they follow readline).
const EDITING: &[(&str, &str)] = &[
    ("Ctrl-U", "clear the field"),
    ("Ctrl-W Alt-Backspace", "delete the word before the cursor"),
    ("Ctrl-A Ctrl-E Home End", "start / end of the field"),
    ("Ctrl-← Ctrl-→", "word left / right"),
];

/// The filter bar's rows, from the key map: every key of each action.
fn filter_bar_rows(keymap: &KeyMap) -> [(String, &'static str); 3] {
    let keys = |a: Action| {
        keymap
            .keys(a)
            .iter()
            .map(|k| k.to_string())
            .collect::<Vec<_>>()
    };
    let (next, prev) = (keys(Action::NextField), keys(Action::PrevField));
    // The first key of each (`Tab Shift-Tab`), then the others, previous first (`↑ ↓`).
    let moves: Vec<String> = next
        .iter()
        .take(1)
        .chain(prev.iter().take(1))
        .chain(prev.iter().skip(1))
        .chain(next.iter().skip(1))
        .cloned()
        .collect();
    [
        (moves.join(" "), "next / previous filter field"),
        (
            keys(Action::Confirm).join(" "),
            "apply the filters now and close the bar",
        ),
        (
            keys(Action::Cancel).join(" "),
            "close the filter bar (filters stay)",
        ),
    ]
}

pub struct HelpView {
    pub text: ScrollText,
}

impl HelpView {
    pub fn new(keymap: &KeyMap, log_path: Option<&Path>, width: u16, height: u16) -> Self {
        let mut e = vec![heading("Keys")];
        for (keys, desc) in keymap.help_rows() {
            e.push(row(keys, desc.to_string()));
        }
        e.push(row("Ctrl-C".into(), "quit from anywhere".into()));
        e.push(heading(""));
        e.push(heading("In the filter bar and text fields"));
        for (k, d) in filter_bar_rows(keymap) {
            e.push(row(k, d.to_string()));
        }
        for (k, d) in EDITING {
            e.push(row(k.to_string(), d.to_string()));
        }
        let values = [Action::NextValue, Action::PrevValue]
            .map(|a| keymap.first_key(a))
            .join(" ");
        e.push(row(values, "status: next / previous value seen".into()));
        e.push(heading(""));
        e.push(heading(
            "Mouse: click a tab, a row or a column header (sorts); the wheel scrolls.",
        ));
        e.push(heading(
            "Keys can be rebound in the config file: [keys] filter = [\"ctrl-f\"].",
        ));
        let log = log_path
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "(not logging)".to_string());
        e.push(Entry {
            indent: 0,
            key: Some("Log file".into()),
            value: log,
            tone: Tone::Value,
            hang: None,
        });
        let close = keymap.first_key(Action::Back);
        e.push(Entry {
            indent: 0,
            key: None,
            value: format!("{close} closes this help"),
            tone: Tone::Dim,
            hang: None,
        });
        HelpView {
            text: ScrollText::new(e, width, height),
        }
    }
}

fn heading(s: &str) -> Entry {
    Entry {
        indent: 0,
        key: None,
        value: s.to_string(),
        tone: Tone::Heading,
        hang: None,
    }
}

/// The key column's width (keys padded to it), from the overlay's left edge.
const KEY_COLUMN: usize = 2 + 24;

fn row(keys: String, desc: String) -> Entry {
    // Keys padded by display width (arrows and other symbols are one column wide each).
    let pad = 24usize.saturating_sub(crate::output::display_width(&keys));
    let long_keys = pad == 0;
    Entry {
        indent: 2,
        key: None,
        value: format!("{keys}{}{desc}", " ".repeat(pad.max(1))),
        tone: Tone::Value,
        // A long description wraps under itself, after the key column, not under the keys.
        hang: (!long_keys).then_some(KEY_COLUMN),
    }
}

impl HelpView {
    /// Puts the recent status-bar messages first, whole (the status bar may cut them),
    /// newest first, with their time in `zone`.
    pub fn with_messages(mut self, said: &[Said], zone: &DisplayZone) -> Self {
        if said.is_empty() {
            return self;
        }
        let mut e = vec![heading("Recent messages (newest first)")];
        for s in said.iter().rev() {
            let at = zone.format_instant(s.at);
            let time = at.get(11..).unwrap_or(&at).to_string();
            e.push(Entry {
                indent: 2,
                key: Some(time),
                value: s.text.clone(),
                tone: if s.error { Tone::Key } else { Tone::Value },
                hang: None,
            });
        }
        e.push(heading(""));
        e.append(&mut self.text.entries);
        let (w, h) = (self.text.width, self.text.height);
        self.text = ScrollText::new(e, w, h);
        self
    }
}

impl Dialog for HelpView {
    fn on_key(&mut self, key: &KeyEvent, cx: &mut DialogCx) -> Outcome {
        if self.text.on_key(key, cx.keymap) {
            return Outcome::Handled;
        }
        match cx.keymap.action(key) {
            Some(Action::Back) | Some(Action::Help) => Outcome::Close,
            _ => Outcome::Ignored,
        }
    }

    fn on_mouse(&mut self, mouse: &MouseEvent) -> Outcome {
        match self.text.on_mouse(mouse) {
            true => Outcome::Handled,
            false => Outcome::Ignored,
        }
    }

    fn on_resize(&mut self, width: u16, height: u16) {
        self.text.reflow_modal(width, height);
    }
}
