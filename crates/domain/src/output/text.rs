//! Text made safe and measured for a terminal cell: server data can hold newlines, escape
//! sequences and bidi overrides, and CJK or emoji take two columns.

use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

/// One line of harmless text: line breaks become `↵`, tabs a space, other characters as
/// [`visible`] shows them (`␛` for ESC, so no escape sequence ever reaches the terminal).
pub fn sanitize_cell(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' | '\r' | '\u{2028}' | '\u{2029}' | '\u{85}' => out.push('↵'),
            '\t' => out.push(' '),
            c => out.push(visible(c).unwrap_or(c)),
        }
    }
    out
}

/// Whether `c` changes text direction or takes no room at all while not joining anything:
/// bidi embeddings, overrides, isolates and marks, the zero-width space, the word joiner, the
/// byte-order mark and the invisible operators. (The zero-width joiner and non-joiner are
/// left alone: they shape emoji and many scripts.)
pub fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{061c}'
            | '\u{200b}'
            | '\u{2060}'..='\u{2064}'
            | '\u{feff}'
    )
}

/// What the terminal is shown instead of `c`, when `c` could act on it or hide: C0 controls
/// as their Control Pictures symbol (`␛` for ESC, `␍` for CR), DEL as `␡`, C1 controls and
/// [`is_invisible`] characters as `�`. `None`: `c` is shown as it is. Line ends and tabs are
/// the caller's choice (the table makes them `↵` and a space; printed text keeps them).
pub fn visible(c: char) -> Option<char> {
    match c {
        // Control Pictures block: U+2400 + the C0 code.
        '\0'..='\u{1f}' => Some(char::from_u32(0x2400 + c as u32).unwrap_or('�')),
        '\u{7f}' => Some('␡'),
        '\u{80}'..='\u{9f}' => Some('�'),
        c if is_invisible(c) => Some('�'),
        _ => None,
    }
}

/// Whether a character only changes how its neighbours join in an emoji (a joiner, an emoji
/// or text presentation selector, a skin tone, a tag): these are where terminals disagree
/// on widths (tmux 3.3 draws `🏳️` in one column, `👍🏽` in four; VTE and xterm split
/// `👩‍👩‍👧` into three glyphs of two columns, kitty joins it into one of two).
fn joins_emoji(c: char) -> bool {
    matches!(c, '\u{200d}' | '\u{fe0e}' | '\u{fe0f}' | '\u{1f3fb}'..='\u{1f3ff}' | '\u{e0020}'..='\u{e007f}')
}

/// `s` as every terminal draws it alike, cell for cell.
///
/// Emoji sequences become their parts side by side (joiners, presentation selectors, skin
/// tones and tags left out): `👩‍👩‍👧` → `👩👩👧`, six columns everywhere. Every other character
/// is kept as it is: a cluster of several spacing characters (Devanagari `र्मा`) is split
/// into the cells the terminal gives it when the frame is drawn (`ui::common::clusters`),
/// never by inserting characters, so what reaches the terminal is the text itself.
///
/// Bidi overrides and isolates, direction marks and zero-width characters ([`is_invisible`])
/// are drawn as `�`: a name with U+202E would otherwise show its text reversed, one with
/// U+200B two names that look the same.
pub fn terminal_safe(s: &str) -> std::borrow::Cow<'_, str> {
    if s.is_ascii() || !s.chars().any(|c| joins_emoji(c) || is_invisible(c)) {
        return std::borrow::Cow::Borrowed(s);
    }
    std::borrow::Cow::Owned(
        s.chars()
            .filter(|c| !joins_emoji(*c))
            .map(|c| if is_invisible(c) { '�' } else { c })
            .collect(),
    )
}

/// Columns `s` takes in a terminal: the width of each grapheme cluster (unicode-width)
/// summed, which is how ratatui's buffer places text and how layout and cutting measure it.
/// (The whole string's width can differ: `unicode-width` counts lam-alef `لا` as one column,
/// while its two clusters take two cells.)
pub fn display_width(s: &str) -> usize {
    if s.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        return s.len();
    }
    s.graphemes(true).map(cluster_width).sum()
}

/// One grapheme cluster's columns, as ratatui's buffer counts them: `unicode-width`, plus one
/// per halfwidth sound mark (U+FF9E, U+FF9F), which terminals draw as a cell of its own.
fn cluster_width(g: &str) -> usize {
    let marks = g
        .chars()
        .filter(|c| matches!(c, '\u{ff9e}' | '\u{ff9f}'))
        .count();
    UnicodeWidthStr::width(g) + marks
}

/// `s` cut to at most `max` columns, ending in `…` when cut; never splits a grapheme.
pub fn truncate_to_width(s: &str, max: usize) -> String {
    if display_width(s) <= max {
        return s.to_string();
    }
    if max == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 0;
    for g in s.graphemes(true) {
        let w = cluster_width(g);
        if used + w > max - 1 {
            break;
        }
        out.push_str(g);
        used += w;
    }
    out.push('…');
    out
}

/// `s` padded with spaces to `width` columns, on the left when `right` is set.
pub fn pad(s: &str, width: usize, right: bool) -> String {
    let fill = " ".repeat(width.saturating_sub(display_width(s)));
    if right {
        format!("{fill}{s}")
    } else {
        format!("{s}{fill}")
    }
}

/// JSON text without insignificant whitespace, every literal byte kept (numbers are never
/// re-parsed, so their digits survive exactly).
pub(crate) fn minify_json(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut in_string = false;
    let mut escaped = false;
    for c in raw.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !c.is_ascii_whitespace() {
            out.push(c);
        }
    }
    out
}
