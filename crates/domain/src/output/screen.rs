//! One filter for every byte crmdash prints to a terminal: when stdout (or stderr) is a
//! terminal, text from the service cannot act on it. Escape sequences (a clipboard write, a
//! screen clear, a title change, a hyperlink), other C0 and C1 controls, bidi overrides and
//! zero-width characters are shown as the table shows them ([`super::text::visible`]: `␛`,
//! `␇`, `�`); line ends (`\n`, `\r\n`) and tabs are kept. Piped or redirected output keeps
//! the exact bytes. Every CLI output (lists, `--jq`, `--template`, `api` bodies of any type,
//! CSV, JSON, reports, error messages) is written through [`stdout`] or [`stderr`].

use std::io::{IsTerminal, Write};

use super::text::visible;

/// A writer that shows controls visibly when `filter` is on (a terminal), else passes bytes.
pub struct Screen<W: Write> {
    inner: W,
    filter: bool,
    /// The start of a UTF-8 sequence cut by the end of a write.
    pending: Vec<u8>,
    /// A `\r` at the end of a write: kept when a `\n` follows, else shown as `␍`.
    cr: bool,
}

/// Stdout, filtered when it is a terminal.
pub fn stdout() -> Screen<std::io::Stdout> {
    let out = std::io::stdout();
    let tty = out.is_terminal();
    Screen::new(out, tty)
}

/// Stderr, filtered when it is a terminal.
pub fn stderr() -> Screen<std::io::Stderr> {
    let err = std::io::stderr();
    let tty = err.is_terminal();
    Screen::new(err, tty)
}

/// `eprintln!` through the filter: how crmdash writes every message to stderr (a name, a
/// path or a service's words in it cannot act on the terminal).
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        let mut err = $crate::output::stderr();
        let _ = ::std::writeln!(err, $($arg)*);
    }};
}

/// `println!` through the filter: a line of plain output to stdout.
#[macro_export]
macro_rules! show {
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        let mut out = $crate::output::stdout();
        let _ = ::std::writeln!(out, $($arg)*);
    }};
}

/// `text` as [`Screen`] shows it on a terminal.
pub fn visible_text(text: &str) -> String {
    let mut s = Screen::new(Vec::new(), true);
    let _ = s.write_all(text.as_bytes());
    let _ = s.close();
    String::from_utf8(std::mem::take(&mut s.inner)).unwrap_or_default()
}

impl<W: Write> Screen<W> {
    pub fn new(inner: W, filter: bool) -> Screen<W> {
        Screen {
            inner,
            filter,
            pending: Vec::new(),
            cr: false,
        }
    }

    /// Whether bytes are filtered (the destination is a terminal).
    pub fn filters(&self) -> bool {
        self.filter
    }

    fn push(out: &mut String, cr: &mut bool, c: char) {
        if std::mem::take(cr) {
            out.push(if c == '\n' { '\r' } else { '␍' });
        }
        match c {
            '\r' => *cr = true,
            '\n' | '\t' => out.push(c),
            c => out.push(visible(c).unwrap_or(c)),
        }
    }

    /// What is still held back (a cut UTF-8 sequence, a `\r`), shown as it stands.
    fn close(&mut self) -> std::io::Result<()> {
        let mut out = String::new();
        if std::mem::take(&mut self.cr) {
            out.push('␍');
        }
        if !std::mem::take(&mut self.pending).is_empty() {
            out.push('�');
        }
        self.inner.write_all(out.as_bytes())
    }
}

impl<W: Write> Write for Screen<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if !self.filter {
            return self.inner.write(buf);
        }
        let mut bytes = std::mem::take(&mut self.pending);
        bytes.extend_from_slice(buf);
        let mut out = String::with_capacity(bytes.len() + 8);
        let mut rest = &bytes[..];
        loop {
            match std::str::from_utf8(rest) {
                Ok(s) => {
                    for c in s.chars() {
                        Self::push(&mut out, &mut self.cr, c);
                    }
                    break;
                }
                Err(e) => {
                    let (ok, bad) = rest.split_at(e.valid_up_to());
                    for c in std::str::from_utf8(ok).unwrap_or_default().chars() {
                        Self::push(&mut out, &mut self.cr, c);
                    }
                    match e.error_len() {
                        // Cut by the end of this write: the next one completes it.
                        None => {
                            self.pending = bad.to_vec();
                            break;
                        }
                        Some(n) => {
                            Self::push(&mut out, &mut self.cr, '�');
                            rest = &bad[n..];
                        }
                    }
                }
            }
        }
        self.inner.write_all(out.as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl<W: Write> Drop for Screen<W> {
    fn drop(&mut self) {
        if self.filter {
            let _ = self.close();
            let _ = self.inner.flush();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_invisible_characters_show_and_line_ends_stay() {
        let hostile =
            "\u{1b}]52;c;cHduZWQ=\u{7}\u{1b}[2JEve\u{202e}txt\u{200b}\u{9b}31m\r\nok\tx\rover\n";
        assert_eq!(
            visible_text(hostile),
            "␛]52;c;cHduZWQ=␇␛[2JEve�txt��31m\r\nok\tx␍over\n"
        );
    }

    #[test]
    fn cut_writes_are_read_whole_and_piped_bytes_are_exact() {
        let text = "é\r\n€\u{1b}";
        let mut s = Screen::new(Vec::new(), true);
        for b in text.as_bytes() {
            s.write_all(std::slice::from_ref(b)).unwrap();
        }
        s.close().unwrap();
        assert_eq!(String::from_utf8(s.inner.clone()).unwrap(), "é\r\n€␛");
        let mut raw = Screen::new(Vec::new(), false);
        raw.write_all(b"\x1b[2J\xff").unwrap();
        assert_eq!(raw.inner, b"\x1b[2J\xff");
        let mut bad = Screen::new(Vec::new(), true);
        bad.write_all(b"a\xffb").unwrap();
        assert_eq!(bad.inner, "a�b".as_bytes());
    }
}
