//! Reading an import file as a stream: the separator (detected or given), the header mapped onto
//! the seed's fields whatever its spelling, each row validated with its true line number. The
//! file-order decisions (duplicates inside the file, each row's Idempotency-Key) are `decide`'s.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use serde_json::{Map, Value};

use crate::api::NewContact;
use crate::cli::contacts::checked_contact;
use crate::cli::exit::CliError;
use crate::validate::{ContactInput, KNOWN_FIELDS};

/// The separators detection chooses from, in order of preference on a tie.
const CANDIDATES: [u8; 3] = [b',', b';', b'\t'];

/// How many bad rows an error lists (the rest are counted).
pub(super) const MAX_LISTED_PROBLEMS: usize = 200;

/// A separator as the user would type it.
pub fn separator_name(d: u8) -> String {
    match d {
        b'\t' => "tab".to_string(),
        b' ' => "space".to_string(),
        other => format!("'{}'", other as char),
    }
}

/// `--delimiter`: one character, or `tab`.
pub fn parse_delimiter(s: &str) -> Result<u8, String> {
    match s {
        "tab" | "TAB" | "\\t" | "\t" => Ok(b'\t'),
        _ if s.len() == 1 && s.is_ascii() && !matches!(s, "\"" | "\n" | "\r") => {
            Ok(s.as_bytes()[0])
        }
        _ => Err("give one ASCII character (',' ';' '|') or 'tab'".to_string()),
    }
}

/// A header reduced to letters and digits, lower case: `First Name`, `first-name`,
/// `FIRST_NAME` and `first_name` all become `firstname`.
pub fn normalize_header(h: &str) -> String {
    h.chars()
        .filter(|c| !matches!(c, ' ' | '_' | '-' | '\t' | '.'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// The separator of the header line: the candidate seen most often outside quotes.
pub fn detect_delimiter(head: &[u8]) -> Option<u8> {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let mut counts = [0usize; 3];
    let mut quoted = false;
    for &b in head {
        match b {
            b'"' => quoted = !quoted,
            b'\n' | b'\r' if !quoted => break,
            _ if !quoted => {
                if let Some(i) = CANDIDATES.iter().position(|c| *c == b) {
                    counts[i] += 1;
                }
            }
            _ => {}
        }
    }
    let best = (0..3).max_by_key(|i| (counts[*i], std::cmp::Reverse(*i)))?;
    (counts[best] > 0).then_some(CANDIDATES[best])
}

/// How the file's columns map onto the contact.
#[derive(Debug, Clone)]
pub struct Layout {
    pub path: PathBuf,
    pub delimiter: u8,
    /// True when detected, false when given with `--delimiter`.
    pub detected: bool,
    /// The header cells, trimmed.
    pub headers: Vec<String>,
    /// Column of first_name, last_name, email, phone.
    pub known: [Option<usize>; 4],
    /// Columns sent as further body keys (named by their header).
    pub extra: Vec<usize>,
    /// Columns not sent (`--only-known`, or an empty header).
    pub ignored: Vec<usize>,
    pub key: Option<usize>,
}

impl Layout {
    /// Reads the header row and maps it. Refuses a header naming no known field (saying which
    /// separator it read the file with), two columns for one field, or a missing key column.
    pub fn open(
        path: &Path,
        delimiter: Option<u8>,
        key_column: Option<&str>,
        only_known: bool,
    ) -> Result<Layout, CliError> {
        let shown = path.display();
        let mut file =
            File::open(path).map_err(|e| CliError::other(format!("cannot read {shown}: {e}")))?;
        let mut head = vec![0u8; 64 * 1024];
        let mut filled = 0;
        while filled < head.len() {
            match file.read(&mut head[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(CliError::other(format!("cannot read {shown}: {e}"))),
            }
        }
        head.truncate(filled);
        let (delimiter, detected) = match delimiter {
            Some(d) => (d, false),
            None => (detect_delimiter(&head).unwrap_or(b','), true),
        };
        let mut reader = csv_reader(delimiter, head.as_slice());
        let headers: Vec<String> = match reader.headers() {
            Ok(h) => h
                .iter()
                .map(|h| h.trim_start_matches('\u{feff}').trim().to_string())
                .collect(),
            Err(e) => return Err(CliError::invalid(format!("{shown}: {e}"))),
        };
        if headers.iter().all(String::is_empty) {
            return Err(CliError::invalid(format!(
                "{shown}: the file is empty (a header row naming first_name, last_name, email or phone comes first)"
            )));
        }
        let mut known = [None; 4];
        for (i, h) in headers.iter().enumerate() {
            let n = normalize_header(h);
            if let Some(k) = KNOWN_FIELDS.iter().position(|f| normalize_header(f) == n) {
                if let Some(first) = known[k] {
                    return Err(CliError::field(
                        KNOWN_FIELDS[k],
                        format!(
                            "{shown}: columns '{}' and '{h}' both name {}; keep one",
                            headers[first], KNOWN_FIELDS[k]
                        ),
                    ));
                }
                known[k] = Some(i);
            }
        }
        if known.iter().all(Option::is_none) {
            let how = if detected {
                format!(
                    "read with the separator {} (detected from the header line; give --delimiter if the file uses another)",
                    separator_name(delimiter)
                )
            } else {
                format!("read with --delimiter {}", separator_name(delimiter))
            };
            let shown_headers: Vec<&str> = headers.iter().take(12).map(String::as_str).collect();
            return Err(CliError::invalid(format!(
                "{shown}: the header row names none of {} ({how}; its columns: {})",
                KNOWN_FIELDS.join(", "),
                shown_headers.join(" | ")
            )));
        }
        let key = match key_column {
            None => None,
            Some(k) => Some(
                headers
                    .iter()
                    .position(|h| h == k.trim())
                    .or_else(|| {
                        headers
                            .iter()
                            .position(|h| normalize_header(h) == normalize_header(k))
                    })
                    .ok_or_else(|| {
                        CliError::field(
                            "key_column",
                            format!(
                                "{shown}: there is no column '{k}' (columns: {})",
                                headers.join(", ")
                            ),
                        )
                    })?,
            ),
        };
        let mut extra = Vec::new();
        let mut ignored = Vec::new();
        for (i, h) in headers.iter().enumerate() {
            if known.contains(&Some(i)) {
                continue;
            }
            if only_known || h.is_empty() {
                ignored.push(i);
            } else {
                extra.push(i);
            }
        }
        Ok(Layout {
            path: path.to_path_buf(),
            delimiter,
            detected,
            headers,
            known,
            extra,
            ignored,
            key,
        })
    }

    /// Columns whose header is not one of the seed's fields, in file order.
    pub fn unknown_headers(&self) -> Vec<&str> {
        (0..self.headers.len())
            .filter(|i| !self.known.contains(&Some(*i)))
            .map(|i| self.headers[i].as_str())
            .collect()
    }

    /// The body keys sent besides the seed's fields.
    pub fn extra_keys(&self) -> Vec<&str> {
        self.extra
            .iter()
            .map(|i| self.headers[*i].as_str())
            .collect()
    }
}

fn csv_reader<R: Read>(delimiter: u8, r: R) -> csv::Reader<R> {
    csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(r)
}

/// Remembers where the `\r` and `\n` bytes read so far are, so a record's byte position
/// becomes its line number (the csv crate's own line count drifts with CRLF endings).
struct Tracked<R> {
    inner: R,
    offset: u64,
    marks: Rc<RefCell<VecDeque<(u64, u8)>>>,
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
        self.offset += n as u64;
        Ok(n)
    }
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
    record: csv::StringRecord,
}

impl Rows {
    pub fn open(layout: &Layout) -> Result<Rows, CliError> {
        let file = File::open(&layout.path)
            .map_err(|e| CliError::other(format!("cannot read {}: {e}", layout.path.display())))?;
        let marks = Rc::new(RefCell::new(VecDeque::new()));
        let tracked = Tracked {
            inner: BufReader::with_capacity(64 * 1024, file),
            offset: 0,
            marks: marks.clone(),
        };
        let mut reader = csv_reader(layout.delimiter, tracked);
        reader
            .headers()
            .map_err(|e| CliError::invalid(format!("{}: {e}", layout.path.display())))?;
        Ok(Rows {
            layout: layout.clone(),
            reader,
            lines: LineCounter { marks, newlines: 0 },
            record: csv::StringRecord::new(),
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
        let input = ContactInput {
            first_name: cell(0),
            last_name: cell(1),
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
                Ok(false) => return None,
                Ok(true) => {
                    let byte = self.record.position().map_or(0, csv::Position::byte);
                    let line = self.lines.line_at(byte);
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
    fn headers_match_whatever_their_spelling() {
        for h in [
            "First Name;last-name;E-Mail;PHONE",
            "first_name;LAST_NAME;email;Phone",
        ] {
            let f = temp_csv(&format!("{h}\nAda;Lovelace;ada@example.com;\n"));
            let l = Layout::open(f.path(), None, None, false).unwrap();
            assert_eq!(l.delimiter, b';');
            assert_eq!(l.known, [Some(0), Some(1), Some(2), Some(3)], "{h}");
        }
        assert_eq!(normalize_header("FIRST_NAME"), "firstname");
    }

    #[test]
    fn separators_are_detected_outside_quotes() {
        assert_eq!(detect_delimiter(b"a,b;c,d\n"), Some(b','));
        assert_eq!(detect_delimiter(b"\"a,b,c\";d\n"), Some(b';'));
        assert_eq!(detect_delimiter(b"a\tb\tc\n1,2,3,4,5"), Some(b'\t'));
        assert_eq!(detect_delimiter(b"email\n"), None);
        assert_eq!(parse_delimiter("tab"), Ok(b'\t'));
        assert!(parse_delimiter(";;").is_err());
    }

    #[test]
    fn a_header_without_known_fields_names_the_separator() {
        let f = temp_csv("name|mail\nAda|ada@example.com\n");
        let err = Layout::open(f.path(), None, None, false).unwrap_err();
        assert!(err.to_string().contains("separator ','"), "{err}");
        let g = temp_csv("name;mail\n");
        let err = Layout::open(g.path(), Some(b'\t'), None, false).unwrap_err();
        assert!(err.to_string().contains("--delimiter tab"), "{err}");
    }

    #[test]
    fn line_numbers_follow_crlf_blank_lines_and_quoted_newlines() {
        let f = temp_csv(
            "\u{feff}first_name,email\r\n\r\nAda,ada@example.com\r\n\"Bo\nb\",bob@example.com\r\nCy,cy@example.com\r\n",
        );
        let layout = Layout::open(f.path(), None, None, false).unwrap();
        let lines: Vec<u64> = Rows::open(&layout).unwrap().map(|r| r.line).collect();
        assert_eq!(lines, vec![3, 4, 6]);
    }

    #[test]
    fn a_missing_key_column_is_refused() {
        let f = temp_csv("first_name,email\nAda,ada@example.com\n");
        let err = Layout::open(f.path(), None, Some("external_id"), false).unwrap_err();
        assert!(err.to_string().contains("no column 'external_id'"), "{err}");
    }
}
