//! The `?` overlay: every binding of the active key map with the action's name (what the
//! config file's `[keys]` table uses), the filter bar's editing keys, where the page size
//! comes from, the config file's warnings and the log file's path.

use std::path::Path;

use crate::app::Said;
use crate::app::dialogs::pager::Pager;
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

/// The help is a [`Pager`] (closed by `?` too).
impl Pager {
    pub fn help(keymap: &KeyMap, log_path: Option<&Path>, width: u16, height: u16) -> Self {
        Pager::help_with_facts(keymap, log_path, &HelpFacts::default(), width, height)
    }

    /// The help with what the app knows about its settings: the config file's warnings
    /// (all of them) and where the page size comes from.
    pub fn help_with_facts(
        keymap: &KeyMap,
        log_path: Option<&Path>,
        facts: &HelpFacts,
        width: u16,
        height: u16,
    ) -> Self {
        let mut e = Vec::new();
        if !facts.warnings.is_empty() {
            e.push(heading(&format!(
                "Config file: {} warning{}",
                facts.warnings.len(),
                if facts.warnings.len() == 1 { "" } else { "s" }
            )));
            for w in &facts.warnings {
                e.push(Entry {
                    indent: 2,
                    key: None,
                    value: w.clone(),
                    tone: Tone::Key,
                    hang: Some(2),
                });
            }
            e.push(heading(""));
        }
        if let Some(page_size) = &facts.page_size {
            e.push(Entry {
                indent: 0,
                key: Some("Page size".into()),
                value: page_size.clone(),
                tone: Tone::Value,
                hang: None,
            });
            e.push(heading(""));
        }
        e.push(heading(
            "Keys (in parentheses: the action's name for [keys] in the config file)",
        ));
        for (keys, name, desc) in keymap.help_entries(false) {
            e.push(named_row(keys, name, desc));
        }
        e.push(row("Ctrl-C".into(), "quit from anywhere".into()));
        e.push(heading(""));
        if !facts.user_actions.is_empty() {
            e.push(heading(
                "Your actions ([actions.NAME] in the config file; :run NAME runs one)",
            ));
            for (keys, name, desc) in &facts.user_actions {
                e.push(named_row(keys.clone(), name, desc));
            }
            e.push(heading(""));
        }
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
        e.push(heading("In dialogs and the filter bar"));
        for (keys, name, desc) in keymap.help_entries(true) {
            e.push(named_row(keys, name, desc));
        }
        e.push(heading(""));
        e.push(heading(&format!(
            "Commands ({} opens the prompt, Tab completes)",
            keymap.first_key(Action::Palette)
        )));
        for (c, d) in crate::app::dialogs::palette::grammar::COMMANDS {
            e.push(row(format!(":{c}"), d.to_string()));
        }
        e.push(heading(""));
        e.push(heading(
            "Mouse: click a tab, a row or a column header (sorts); the wheel scrolls.",
        ));
        e.push(heading(
            "Keys can be rebound in the config file with the names in parentheses: [keys] filter = [\"/\", \"ctrl-t\"]. A key another action of the same screen or dialog has is refused.",
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
        Pager::of(ScrollText::new(e, width, height), Action::Help)
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

/// The status bar's note at start when the settings had problems: how many, where to read
/// them all (`?`), then the first.
pub fn warnings_note(warnings: &[String], keymap: &KeyMap) -> Option<String> {
    let first = warnings.first()?;
    let help = keymap.first_key(Action::Help);
    Some(match warnings.len() {
        1 => format!("Config warning ({help} shows it): {first}"),
        n => format!("{n} config warnings ({help} lists them): {first}"),
    })
}

/// What the help says about the settings in force (the app fills it in).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HelpFacts {
    /// Every warning about the config file and its `[keys]`.
    pub warnings: Vec<String>,
    /// "25 per page (from the config file)", for the active tab.
    pub page_size: Option<String>,
    /// `[actions.NAME]`: key (or `:run NAME`), name, what it does.
    pub user_actions: Vec<(String, String, String)>,
}

/// A binding: its keys, what it does, and the name `[keys]` knows it by.
fn named_row(keys: String, name: &str, desc: &str) -> Entry {
    row(keys, format!("{desc} ({name})"))
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

impl Pager {
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

impl crate::app::App {
    /// What the help says about the settings: every warning, the active tab's page size and
    /// where it comes from.
    pub fn help_facts(&self) -> HelpFacts {
        let tab = self.tab();
        HelpFacts {
            warnings: self.config.warnings.clone(),
            page_size: Some(format!(
                "{}: {}",
                tab.resource.kind.title(),
                tab.per_page_origin.describe(tab.per_page)
            )),
            user_actions: self.user_action_help(),
        }
    }
}
