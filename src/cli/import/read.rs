//! Reading an import file as a stream, once its layout is known (`layout`): each row validated
//! with its true line number, a quote never closed reported where it opened. The file-order
//! decisions (duplicates inside the file, each row's Idempotency-Key) are `decide`'s.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::fs::File;
use std::io::{BufReader, Read};
use std::rc::Rc;

use serde_json::{Map, Value};

use super::layout::{Layout, split_full_name};
use crate::api::NewContact;
use crate::cli::contacts::checked_contact;
use crate::cli::exit::CliError;
use crate::validate::ContactInput;

/// How many bad rows an error lists (the rest are counted).
pub(super) const MAX_LISTED_PROBLEMS: usize = 200;

pub(super) fn csv_reader<R: Read>(delimiter: u8, r: R) -> csv::Reader<R> {
    csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(r)
}

/// Remembers where the `\r` and `\n` bytes read so far are, so a record's byte position
/// becomes its line number (the csv crate's own line count drifts with CRLF endings), and
/// follows the quoting (see [`Quotes`]).
struct Tracked<R> {
    inner: R,
    offset: u64,
    marks: Rc<RefCell<VecDeque<(u64, u8)>>>,
    quotes: Rc<RefCell<Quotes>>,
}

impl<R: Read> Read for Tracked<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let mut marks = self.marks.borrow_mut();
        for (i, b) in buf[..n].iter().enumerate() {
            if matches!(b, b'\n' | b'\r') {
                marks.push_back((self.offset + i as u64, *b));
            }
        }
        let mut quotes = self.quotes.borrow_mut();
        quotes.feed(&buf[..n]);
        quotes.at_end |= n == 0 && !buf.is_empty();
        self.offset += n as u64;
        Ok(n)
    }
}

/// Where a byte stands in the CSV grammar, as the csv crate reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum QuoteState {
    /// At the start of a field: only here does a quote open a quoted field.
    #[default]
    FieldStart,
    /// In an unquoted field (a quote here is a plain character).
    Unquoted,
    Quoted,
    /// A quote inside a quoted field: it closes the field, or doubles as `""`.
    QuoteInQuoted,
}

/// Follows the quoting of the whole file as it is read, so that a quote never closed (the
/// csv crate then reads the rest of the file as one field, silently) is reported with the
/// line it opened on.
#[derive(Debug, Default)]
struct Quotes {
    delimiter: u8,
    state: QuoteState,
    newlines: u64,
    opened_on: u64,
    read: u64,
    at_end: bool,
}

impl Quotes {
    fn new(delimiter: u8) -> Quotes {
        Quotes {
            delimiter,
            ..Quotes::default()
        }
    }

    fn feed(&mut self, bytes: &[u8]) {
        const BOM: &[u8] = b"\xEF\xBB\xBF";
        for &b in bytes {
            self.read += 1;
            // A byte-order mark is not part of the first field.
            if self.read <= 3 && BOM.get(self.read as usize - 1) == Some(&b) {
                continue;
            }
            let ends_field = b == self.delimiter || b == b'\n' || b == b'\r';
            self.state = match (self.state, b) {
                (QuoteState::FieldStart, b'"') => {
                    self.opened_on = self.newlines + 1;
                    QuoteState::Quoted
                }
                (QuoteState::Quoted, b'"') => QuoteState::QuoteInQuoted,
                (QuoteState::Quoted, _) => QuoteState::Quoted,
                (QuoteState::QuoteInQuoted, b'"') => QuoteState::Quoted,
                (_, _) if ends_field => QuoteState::FieldStart,
                _ => QuoteState::Unquoted,
            };
            self.newlines += u64::from(b == b'\n');
        }
    }

    /// The line of a quote still open at the end of the file.
    fn unclosed(&self) -> Option<u64> {
        (self.at_end && self.state == QuoteState::Quoted).then_some(self.opened_on)
    }
}

/// What is said of a quote never closed.
fn unclosed_quote(line: u64) -> String {
    format!(
        "a quote (\") opened on line {line} is never closed: the rest of the file would be read \
         as one field; close it, or write a quote inside a quoted field as \"\""
    )
}

struct LineCounter {
    marks: Rc<RefCell<VecDeque<(u64, u8)>>>,
    newlines: u64,
}

impl LineCounter {
    /// The 1-based line of the first byte at or after `byte` that is not a line ending.
    /// Positions must come in increasing order.
    fn line_at(&mut self, byte: u64) -> u64 {
        let mut marks = self.marks.borrow_mut();
        while let Some(&(at, b)) = marks.front() {
            if at >= byte {
                break;
            }
            self.newlines += u64::from(b == b'\n');
            marks.pop_front();
        }
        let mut p = byte;
        while let Some(&(at, b)) = marks.front() {
            if at != p {
                break;
            }
            self.newlines += u64::from(b == b'\n');
            marks.pop_front();
            p += 1;
        }
        1 + self.newlines
    }
}

/// A row as read: its line and either the contact or what is wrong with it.
pub struct RawRow {
    pub line: u64,
    pub parsed: Result<Parsed, Vec<String>>,
}

pub struct Parsed {
    pub contact: NewContact,
    /// The body as sent (compact JSON): the row's content for keys and identical-row checks.
    pub body: String,
    /// The key column's value.
    pub external: Option<String>,
}

/// The rows of a file, streamed, header skipped; blank lines skipped.
pub struct Rows {
    layout: Layout,
    reader: csv::Reader<Tracked<BufReader<File>>>,
    lines: LineCounter,
    quotes: Rc<RefCell<Quotes>>,
    /// The quote never closed was reported.
    unclosed_told: bool,
    record: csv::StringRecord,
}

impl Rows {
    pub fn open(layout: &Layout) -> Result<Rows, CliError> {
        let file = File::open(&layout.path)
            .map_err(|e| CliError::other(format!("cannot read {}: {e}", layout.path.display())))?;
        let marks = Rc::new(RefCell::new(VecDeque::new()));
        let quotes = Rc::new(RefCell::new(Quotes::new(layout.delimiter)));
        let tracked = Tracked {
            inner: BufReader::with_capacity(64 * 1024, file),
            offset: 0,
            marks: marks.clone(),
            quotes: quotes.clone(),
        };
        let mut reader = csv_reader(layout.delimiter, tracked);
        reader
            .headers()
            .map_err(|e| CliError::invalid(format!("{}: {e}", layout.path.display())))?;
        Ok(Rows {
            layout: layout.clone(),
            reader,
            lines: LineCounter { marks, newlines: 0 },
            quotes,
            unclosed_told: false,
            record: csv::StringRecord::new(),
        })
    }

    /// The row reporting a quote never closed, once (the record that swallowed the rest
    /// of the file is not parsed: its fields are not what the file meant).
    fn unclosed(&mut self) -> Option<RawRow> {
        let line = self.quotes.borrow().unclosed()?;
        if std::mem::replace(&mut self.unclosed_told, true) {
            return None;
        }
        Some(RawRow {
            line,
            parsed: Err(vec![unclosed_quote(line)]),
        })
    }

    fn parse(&self, line: u64) -> RawRow {
        let record = &self.record;
        let layout = &self.layout;
        if record.len() != layout.headers.len() {
            return RawRow {
                line,
                parsed: Err(vec![format!(
                    "{} fields, the header has {}",
                    record.len(),
                    layout.headers.len()
                )]),
            };
        }
        let cell = |k: usize| {
            layout.known[k]
                .map(|i| record[i].to_string())
                .unwrap_or_default()
        };
        let (first_name, last_name) = match layout.full_name {
            Some(i) => split_full_name(&record[i]),
            None => (cell(0), cell(1)),
        };
        let input = ContactInput {
            first_name,
            last_name,
            email: cell(2),
            phone: cell(3),
            ..ContactInput::default()
        };
        let mut extra = Map::new();
        for &i in &layout.extra {
            if !record[i].is_empty() {
                extra.insert(
                    layout.headers[i].clone(),
                    Value::String(record[i].to_string()),
                );
            }
        }
        let external = layout.key.map(|i| record[i].to_string());
        if external.as_deref() == Some("") {
            return RawRow {
                line,
                parsed: Err(vec!["the key column is empty".to_string()]),
            };
        }
        match checked_contact(input, extra) {
            Ok(contact) => {
                let body = serde_json::to_string(&contact.to_body()).unwrap_or_default();
                RawRow {
                    line,
                    parsed: Ok(Parsed {
                        contact,
                        body,
                        external,
                    }),
                }
            }
            Err(e) => RawRow {
                line,
                parsed: Err(e
                    .field_errors()
                    .into_iter()
                    .map(|(f, m)| format!("{f}: {m}"))
                    .collect()),
            },
        }
    }
}

impl Iterator for Rows {
    type Item = RawRow;

    fn next(&mut self) -> Option<RawRow> {
        loop {
            match self.reader.read_record(&mut self.record) {
                // A quote opened in the header row swallows every row: said here.
                Ok(false) => return self.unclosed(),
                Ok(true) => {
                    let byte = self.record.position().map_or(0, csv::Position::byte);
                    let line = self.lines.line_at(byte);
                    if let Some(row) = self.unclosed() {
                        return Some(row);
                    }
                    if self.record.iter().all(str::is_empty) {
                        continue;
                    }
                    return Some(self.parse(line));
                }
                Err(e) => {
                    let line = e.position().map_or(0, |p| self.lines.line_at(p.byte()));
                    let message = format!("not valid CSV: {e}");
                    // An I/O error repeats forever: stop after reporting it.
                    if matches!(e.kind(), csv::ErrorKind::Io(_)) {
                        self.record.clear();
                        let row = RawRow {
                            line,
                            parsed: Err(vec![message]),
                        };
                        // Leave the reader at its end.
                        while let Ok(true) = self.reader.read_record(&mut self.record) {}
                        return Some(row);
                    }
                    return Some(RawRow {
                        line,
                        parsed: Err(vec![message]),
                    });
                }
            }
        }
    }
}

/// A CSV file with `text`, for tests.
#[cfg(test)]
pub(super) fn temp_csv(text: &str) -> tempfile::NamedTempFile {
    use std::io::Write;
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(text.as_bytes()).unwrap();
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_numbers_follow_crlf_blank_lines_and_quoted_newlines() {
        let f = temp_csv(
            "\u{feff}first_name,email\r\n\r\nAda,ada@example.com\r\n\"Bo\nb\",bob@example.com\r\nCy,cy@example.com\r\n",
        );
        let layout = Layout::open(f.path(), None, None, false).unwrap();
        let lines: Vec<u64> = Rows::open(&layout).unwrap().map(|r| r.line).collect();
        assert_eq!(lines, vec![3, 4, 6]);
    }
}
