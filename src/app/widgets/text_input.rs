//! A single-line text field: editing by grapheme cluster, display widths by `unicode-width`,
//! word movement and deletion, `Ctrl-U` to clear, pastes flattened to one line. Used by the
//! filter bar and by every dialog.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

/// What a key did to the field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputOutcome {
    /// The text changed.
    Changed,
    /// Only the cursor moved.
    Moved,
    /// Not an editing key: the caller may use it.
    Ignored,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TextInput {
    value: String,
    /// Byte offset, always on a grapheme boundary.
    cursor: usize,
    /// Longest value accepted, in graphemes (0 = no limit).
    max_graphemes: usize,
    /// The value was put there for the user (a default), not typed: focusing the field
    /// selects it, so typing replaces it.
    suggestion: bool,
    /// The whole value is selected: the next character typed (or pasted) replaces it,
    /// `Backspace`/`Delete` clear it, arrows, `Home` and `End` keep it for editing.
    selected: bool,
}

impl TextInput {
    pub fn new(value: impl Into<String>) -> Self {
        let value = flatten(&value.into());
        TextInput {
            cursor: value.len(),
            value,
            max_graphemes: 0,
            suggestion: false,
            selected: false,
        }
    }

    /// A field prefilled with a suggestion (a default start, a file name): focusing it
    /// selects the suggestion, so the first character typed replaces it.
    pub fn suggested(value: impl Into<String>) -> Self {
        let mut t = TextInput::new(value);
        t.suggestion = !t.value.is_empty();
        t
    }

    /// The field gets the focus: a suggestion not edited yet is selected whole.
    pub fn focus(&mut self) {
        self.selected = self.suggestion && !self.value.is_empty();
    }

    /// Whether the whole value is selected (typing replaces it).
    pub fn is_selected(&self) -> bool {
        self.selected
    }

    pub fn with_max(mut self, max_graphemes: usize) -> Self {
        self.max_graphemes = max_graphemes;
        self
    }

    pub fn value(&self) -> &str {
        &self.value
    }

    pub fn cursor(&self) -> usize {
        self.cursor
    }

    pub fn is_empty(&self) -> bool {
        self.value.is_empty()
    }

    /// Replaces the value (a quick shift, a completion); a selected suggestion stays one.
    pub fn set(&mut self, value: impl Into<String>) {
        self.value = flatten(&value.into());
        self.cursor = self.value.len();
        self.selected &= !self.value.is_empty();
    }

    pub fn clear(&mut self) {
        self.value.clear();
        self.cursor = 0;
        self.selected = false;
    }

    /// Drops a selection before an edit: the selected text goes, what is typed replaces it.
    fn take_selection(&mut self) {
        if self.selected {
            self.clear();
        }
        self.suggestion = false;
    }

    /// Inserts text at the cursor; newlines and tabs become spaces (pastes stay one line).
    pub fn insert_str(&mut self, text: &str) -> InputOutcome {
        let mut text = flatten(text);
        if text.is_empty() {
            return InputOutcome::Ignored;
        }
        self.take_selection();
        if self.max_graphemes > 0 {
            let room = self
                .max_graphemes
                .saturating_sub(self.value.graphemes(true).count());
            if let Some((cut, _)) = text.grapheme_indices(true).nth(room) {
                text.truncate(cut);
            }
        }
        if text.is_empty() {
            return InputOutcome::Ignored;
        }
        self.value.insert_str(self.cursor, &text);
        self.cursor += text.len();
        // A combining mark typed after a base character joins it: keep the cursor on a boundary.
        self.cursor = self.boundary_at_or_after(self.cursor);
        InputOutcome::Changed
    }

    fn boundary_at_or_after(&self, pos: usize) -> usize {
        self.value
            .grapheme_indices(true)
            .map(|(i, _)| i)
            .chain(std::iter::once(self.value.len()))
            .find(|i| *i >= pos)
            .unwrap_or(self.value.len())
    }

    fn prev_boundary(&self) -> usize {
        self.value[..self.cursor]
            .grapheme_indices(true)
            .next_back()
            .map(|(i, _)| i)
            .unwrap_or(0)
    }

    fn next_boundary(&self) -> usize {
        self.value[self.cursor..]
            .graphemes(true)
            .next()
            .map(|g| self.cursor + g.len())
            .unwrap_or(self.value.len())
    }

    /// Start of the word before the cursor (skipping spaces first), as readline does.
    fn word_start_before(&self) -> usize {
        let before = &self.value[..self.cursor];
        let mut pos = self.cursor;
        let mut seen_word = false;
        for (i, g) in before.grapheme_indices(true).rev() {
            let space = g.chars().all(char::is_whitespace);
            if space && seen_word {
                break;
            }
            if !space {
                seen_word = true;
            }
            pos = i;
        }
        pos
    }

    fn word_end_after(&self) -> usize {
        let mut pos = self.cursor;
        let mut seen_word = false;
        for g in self.value[self.cursor..].graphemes(true) {
            let space = g.chars().all(char::is_whitespace);
            if space && seen_word {
                break;
            }
            if !space {
                seen_word = true;
            }
            pos += g.len();
        }
        pos
    }

    fn delete_range(&mut self, from: usize, to: usize) -> InputOutcome {
        if from == to {
            self.selected = false;
            return InputOutcome::Moved;
        }
        self.value.replace_range(from..to, "");
        self.cursor = from;
        self.suggestion = false;
        self.selected = false;
        InputOutcome::Changed
    }

    fn move_to(&mut self, pos: usize) -> InputOutcome {
        self.cursor = pos;
        self.selected = false;
        InputOutcome::Moved
    }

    /// A key while the whole value is selected: `Backspace`/`Delete` clear it, `←`/`Home`
    /// go to its start and `→`/`End` to its end keeping the text; others end the selection.
    fn key_on_selection(&mut self, key: &KeyEvent) -> Option<InputOutcome> {
        let plain = !key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
        self.selected = false;
        match key.code {
            KeyCode::Backspace | KeyCode::Delete => {
                self.suggestion = false;
                let had = !self.value.is_empty();
                self.clear();
                Some(if had {
                    InputOutcome::Changed
                } else {
                    InputOutcome::Moved
                })
            }
            KeyCode::Left | KeyCode::Home if plain => Some(self.move_to(0)),
            KeyCode::Right | KeyCode::End if plain => Some(self.move_to(self.value.len())),
            // Typed text replaces the selection (`insert_str` sees it); other keys (word
            // editing, keys the field ignores) act as usual and end it if they edit or move.
            _ => {
                self.selected = true;
                None
            }
        }
    }

    /// Applies an editing key. Keys it does not know are `Ignored` for the caller to use.
    pub fn handle_key(&mut self, key: &KeyEvent) -> InputOutcome {
        if self.selected
            && let Some(done) = self.key_on_selection(key)
        {
            return done;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        match key.code {
            KeyCode::Char('w') if ctrl => self.delete_range(self.word_start_before(), self.cursor),
            KeyCode::Backspace if alt || ctrl => {
                self.delete_range(self.word_start_before(), self.cursor)
            }
            KeyCode::Char('u') if ctrl => self.delete_range(0, self.value.len()),
            KeyCode::Char('k') if ctrl => self.delete_range(self.cursor, self.value.len()),
            KeyCode::Char('a') if ctrl => self.move_to(0),
            KeyCode::Char('e') if ctrl => self.move_to(self.value.len()),
            KeyCode::Char('b') if alt => self.move_to(self.word_start_before()),
            KeyCode::Char('f') if alt => self.move_to(self.word_end_after()),
            KeyCode::Char('d') if alt => self.delete_range(self.cursor, self.word_end_after()),
            KeyCode::Char(c) if !ctrl && !alt => {
                let mut buf = [0u8; 4];
                self.insert_str(c.encode_utf8(&mut buf))
            }
            KeyCode::Backspace => self.delete_range(self.prev_boundary(), self.cursor),
            KeyCode::Delete => self.delete_range(self.cursor, self.next_boundary()),
            KeyCode::Left if ctrl || alt => self.move_to(self.word_start_before()),
            KeyCode::Right if ctrl || alt => self.move_to(self.word_end_after()),
            KeyCode::Left => self.move_to(self.prev_boundary()),
            KeyCode::Right => self.move_to(self.next_boundary()),
            KeyCode::Home => self.move_to(0),
            KeyCode::End => self.move_to(self.value.len()),
            _ => InputOutcome::Ignored,
        }
    }

    /// The part to draw in `width` columns and the cursor's column within it. The window keeps
    /// the cursor visible, preferring to show the start of the text.
    pub fn view(&self, width: u16) -> (&str, u16) {
        let width = width.max(1) as usize;
        let before_w = self.value[..self.cursor].width();
        // Leave one column for the cursor itself at the end.
        let mut start = 0;
        if before_w >= width {
            let mut w = 0;
            start = self.cursor;
            for (i, g) in self.value[..self.cursor].grapheme_indices(true).rev() {
                w += g.width();
                if w >= width {
                    break;
                }
                start = i;
            }
        }
        let mut end = start;
        let mut w = 0;
        for g in self.value[start..].graphemes(true) {
            if w + g.width() > width {
                break;
            }
            w += g.width();
            end += g.len();
        }
        let cursor_col = self.value[start..self.cursor].width() as u16;
        (&self.value[start..end], cursor_col)
    }
}

/// Newlines, tabs and other controls become spaces.
fn flatten(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode, m: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, m)
    }

    fn typed(s: &str) -> TextInput {
        let mut t = TextInput::default();
        for c in s.chars() {
            t.handle_key(&key(KeyCode::Char(c), KeyModifiers::NONE));
        }
        t
    }

    #[test]
    fn backspace_removes_whole_grapheme_clusters() {
        let mut t = typed("ae\u{301}");
        assert_eq!(t.value(), "ae\u{301}");
        t.handle_key(&key(KeyCode::Backspace, KeyModifiers::NONE));
        assert_eq!(t.value(), "a");
        let mut t = TextInput::new("x👍🏽");
        t.handle_key(&key(KeyCode::Backspace, KeyModifiers::NONE));
        assert_eq!(t.value(), "x");
    }

    #[test]
    fn word_delete_and_clear() {
        let mut t = typed("acme  corp ");
        t.handle_key(&key(KeyCode::Char('w'), KeyModifiers::CONTROL));
        assert_eq!(t.value(), "acme  ");
        t.handle_key(&key(KeyCode::Backspace, KeyModifiers::ALT));
        assert_eq!(t.value(), "");
        let mut t = typed("abc");
        t.handle_key(&key(KeyCode::Left, KeyModifiers::NONE));
        t.handle_key(&key(KeyCode::Char('X'), KeyModifiers::NONE));
        assert_eq!(t.value(), "abXc");
        t.handle_key(&key(KeyCode::Char('u'), KeyModifiers::CONTROL));
        assert!(t.is_empty());
    }

    #[test]
    fn paste_is_one_line_and_bounded() {
        let mut t = TextInput::default().with_max(5);
        t.insert_str("ab\ncdefgh");
        assert_eq!(t.value(), "ab cd");
    }

    #[test]
    fn a_focused_suggestion_is_replaced_by_typing_and_kept_by_arrows() {
        let mut t = TextInput::suggested("2026-11-22 18:30");
        t.focus();
        assert!(t.is_selected());
        for c in "tomorrow".chars() {
            t.handle_key(&key(KeyCode::Char(c), KeyModifiers::NONE));
        }
        assert_eq!(t.value(), "tomorrow");
        // Edited: focusing again selects nothing.
        t.focus();
        assert!(!t.is_selected());

        let mut t = TextInput::suggested("1h");
        t.focus();
        t.handle_key(&key(KeyCode::End, KeyModifiers::NONE));
        t.handle_key(&key(KeyCode::Char('5'), KeyModifiers::NONE));
        assert_eq!(t.value(), "1h5");
        let mut t = TextInput::suggested("1h");
        t.focus();
        t.handle_key(&key(KeyCode::Home, KeyModifiers::NONE));
        t.handle_key(&key(KeyCode::Char('2'), KeyModifiers::NONE));
        assert_eq!(t.value(), "21h");
        let mut t = TextInput::suggested("1h");
        t.focus();
        t.handle_key(&key(KeyCode::Backspace, KeyModifiers::NONE));
        assert!(t.is_empty());
        let mut t = TextInput::suggested("deals.csv");
        t.focus();
        t.insert_str("out.json");
        assert_eq!(t.value(), "out.json");
        // A plain field never selects.
        let mut t = TextInput::new("typed");
        t.focus();
        assert!(!t.is_selected());
    }

    #[test]
    fn view_keeps_wide_cursor_visible() {
        let t = TextInput::new("日本語のテキスト");
        let (shown, col) = t.view(6);
        assert!(shown.width() <= 6);
        assert!(col <= 6);
        assert!(t.value().ends_with(shown));
        let mut t = TextInput::new("hello");
        t.handle_key(&key(KeyCode::Home, KeyModifiers::NONE));
        assert_eq!(t.view(3), ("hel", 0));
    }
}
