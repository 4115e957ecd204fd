//! Scrollable, pre-wrapped text for the detail pane and the help overlay: lines are built
//! and wrapped once (on open and on resize), never per frame.

use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

use crate::app::keymap::{Action, KeyMap};
use crossterm::event::{KeyEvent, MouseEvent, MouseEventKind};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Heading,
    Key,
    Value,
    Dim,
}

/// One drawn line: spans of text with a tone each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextLine {
    pub spans: Vec<(String, Tone)>,
}

impl TextLine {
    pub fn new(spans: Vec<(String, Tone)>) -> Self {
        TextLine { spans }
    }
}

/// A logical line before wrapping: an indent, an optional key and a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub indent: usize,
    pub key: Option<String>,
    pub value: String,
    pub tone: Tone,
    /// Where continuation lines start, in columns from the left edge; `None`: under the
    /// value. The help overlay's rows hang their descriptions after the key column.
    pub hang: Option<usize>,
}

#[derive(Debug, Clone, Default)]
pub struct ScrollText {
    pub entries: Vec<Entry>,
    pub lines: Vec<TextLine>,
    pub offset: usize,
    pub width: u16,
    /// Rows visible, for paging and clamping.
    pub height: u16,
}

impl ScrollText {
    pub fn new(entries: Vec<Entry>, width: u16, height: u16) -> Self {
        let mut s = ScrollText {
            entries,
            ..Default::default()
        };
        s.reflow(width, height);
        s
    }

    /// Wraps the entries to `width`: continuation lines align under the value.
    pub fn reflow(&mut self, width: u16, height: u16) {
        self.width = width.max(10);
        self.height = height.max(1);
        let w = self.width as usize;
        self.lines.clear();
        for e in &self.entries {
            let pad = " ".repeat(e.indent.min(w / 2));
            let key = e.key.as_ref().map(|k| format!("{k}: ")).unwrap_or_default();
            let lead = pad.width() + key.width();
            let hang = match e.hang {
                Some(h) if h + 8 <= w => h,
                _ if lead + 8 > w => pad.width() + 2,
                _ => lead,
            };
            let mut first = true;
            let chunks = wrap(
                &e.value,
                w.saturating_sub(lead).max(8),
                w.saturating_sub(hang).max(8),
            );
            for chunk in chunks {
                let spans = if first {
                    let mut v = vec![(format!("{pad}{key}"), Tone::Key)];
                    v.push((chunk, e.tone));
                    v
                } else {
                    vec![(" ".repeat(hang), Tone::Value), (chunk, e.tone)]
                };
                first = false;
                self.lines.push(TextLine::new(spans));
            }
        }
        self.clamp();
    }

    fn max_offset(&self) -> usize {
        self.lines.len().saturating_sub(self.height as usize)
    }

    fn clamp(&mut self) {
        self.offset = self.offset.min(self.max_offset());
    }

    /// Scroll keys; true when the key was a scroll key.
    pub fn on_key(&mut self, key: &KeyEvent, keymap: &KeyMap) -> bool {
        let page = self.height.max(2) as usize - 1;
        match keymap.action(key) {
            Some(Action::Down) => self.offset += 1,
            Some(Action::Up) => self.offset = self.offset.saturating_sub(1),
            Some(Action::NextPage) => self.offset += page,
            Some(Action::PrevPage) => self.offset = self.offset.saturating_sub(page),
            Some(Action::First) => self.offset = 0,
            Some(Action::Last) => self.offset = self.max_offset(),
            _ => return false,
        }
        self.clamp();
        true
    }

    /// The wheel scrolls three lines; true when the event was a wheel.
    pub fn on_mouse(&mut self, mouse: &MouseEvent) -> bool {
        match mouse.kind {
            MouseEventKind::ScrollDown => self.scroll_by(3),
            MouseEventKind::ScrollUp => self.scroll_by(-3),
            _ => return false,
        }
        true
    }

    /// Re-wraps for a modal on a terminal of this size.
    pub fn reflow_modal(&mut self, width: u16, height: u16) {
        let (w, h) = crate::app::layout::modal_inner(width, height);
        self.reflow(w, h);
    }

    pub fn scroll_by(&mut self, delta: isize) {
        self.offset = (self.offset as isize + delta).max(0) as usize;
        self.clamp();
    }
}

/// Splits text into lines: at newlines, then at width (by grapheme and display width,
/// preferring spaces). Control characters become spaces.
pub fn wrap(text: &str, first_width: usize, width: usize) -> Vec<String> {
    let text = &*crate::output::terminal_safe(text);
    let mut out = Vec::new();
    for raw_line in text.split('\n') {
        let clean: String = raw_line
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        let mut line = String::new();
        let mut line_w = 0;
        let mut last_space: Option<usize> = None;
        for g in clean.graphemes(true) {
            let limit = if out.is_empty() { first_width } else { width };
            let gw = g.width();
            if line_w + gw > limit && !line.is_empty() {
                match last_space {
                    Some(sp) if sp > 0 => {
                        let rest = line.split_off(sp);
                        out.push(line.trim_end().to_string());
                        line = rest.trim_start().to_string();
                    }
                    _ => out.push(std::mem::take(&mut line)),
                }
                line_w = line.width();
                last_space = None;
            }
            if g == " " {
                last_space = Some(line.len());
            }
            line.push_str(g);
            line_w += gw;
        }
        out.push(line);
    }
    if out.len() > 1 && out.last().is_some_and(String::is_empty) {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_by_display_width() {
        let lines = wrap("日本語日本語", 6, 6);
        assert_eq!(lines, ["日本語", "日本語"]);
        assert_eq!(wrap("one two three", 8, 8), ["one two", "three"]);
        assert_eq!(wrap("a\nb", 10, 10), ["a", "b"]);
    }

    #[test]
    fn continuation_lines_hang_where_the_entry_says() {
        let e = Entry {
            indent: 2,
            key: None,
            value: "Ctrl-X    one two three four".into(),
            tone: Tone::Value,
            hang: Some(12),
        };
        let t = ScrollText::new(vec![e], 24, 10);
        let text: Vec<String> = t
            .lines
            .iter()
            .map(|l| l.spans.iter().map(|(s, _)| s.as_str()).collect())
            .collect();
        assert_eq!(text, ["  Ctrl-X    one two", "            three four"]);
    }
}
