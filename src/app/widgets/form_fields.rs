//! What the new-contact pane and the reschedule dialog share about their inputs: a few fixed
//! fields followed by free `key = value` lines, with one focus index over both.

use crossterm::event::KeyEvent;

use crate::app::dialogs::Outcome;
use crate::app::keymap::{Action, KeyMap};
use crate::app::widgets::text_input::TextInput;

/// The next (or previous) field, wrapping around `count` fields.
pub fn cycle(focus: usize, count: usize, forward: bool) -> usize {
    if forward {
        (focus + 1) % count
    } else {
        (focus + count - 1) % count
    }
}

/// The input `focus` points at: a fixed field, else an extra line (the last one when the
/// focus is past the end). `extra` is never empty: it always keeps a line to type into.
pub fn input_mut<'a>(
    fixed: &'a mut [TextInput],
    extra: &'a mut [TextInput],
    focus: usize,
) -> &'a mut TextInput {
    if focus < fixed.len() {
        &mut fixed[focus]
    } else {
        let i = (focus - fixed.len()).min(extra.len() - 1);
        &mut extra[i]
    }
}

/// The extra lines as one text, a line each.
pub fn extra_text(extra: &[TextInput]) -> String {
    extra
        .iter()
        .map(|l| l.value())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A value as an extra line types it: a string as it is unless it would read back as something
/// else (`"42"` stays a string), anything else as JSON.
pub fn value_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) if crate::validate::parse_value(s) == *v => s.clone(),
        other => other.to_string(),
    }
}

/// Keeps one empty line at the end to type the next attribute into.
pub fn keep_blank_line(extra: &mut Vec<TextInput>) {
    if extra.last().is_some_and(|l| !l.is_empty()) {
        extra.push(TextInput::default());
    }
}

/// Pasted text into the extra lines: its first line into the focused line, each further line
/// as a new line after it, the focus following.
pub fn paste_lines(fixed: usize, extra: &mut Vec<TextInput>, focus: &mut usize, text: &str) {
    let mut lines = text.lines();
    if let Some(first) = lines.next() {
        let i = (*focus - fixed).min(extra.len() - 1);
        extra[i].insert_str(first);
    }
    for line in lines {
        let at = *focus - fixed + 1;
        extra.insert(at, TextInput::new(line));
        *focus += 1;
    }
}

/// A form's "discard this draft?" question: `yes` closes the form, `no` or `cancel` goes
/// back to editing (`back`); other keys are swallowed.
pub fn discard_question(keys: &KeyMap, key: &KeyEvent, back: impl FnOnce()) -> Outcome {
    match keys.pick(key, &[Action::Yes, Action::No, Action::Cancel]) {
        Some(Action::Yes) => Outcome::Close,
        Some(_) => {
            back();
            Outcome::Handled
        }
        None => Outcome::Handled,
    }
}
