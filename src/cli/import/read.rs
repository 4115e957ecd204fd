//! Reading an import file as a stream: the separator (detected or given), the header mapped onto
//! the seed's fields whatever its spelling, each row validated with its true line number, and
//! the file-order decisions (duplicates inside the file, each row's Idempotency-Key).

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::api::{IdempotencyKey, NewContact};
use crate::cli::contacts::checked_contact;
use crate::cli::exit::CliError;
use crate::validate::{ContactInput, KNOWN_FIELDS};

/// The separators detection chooses from, in order of preference on a tie.
const CANDIDATES: [u8; 3] = [b',', b';', b'\t'];

/// How many bad rows an error lists (the rest are counted).
const MAX_LISTED_PROBLEMS: usize = 200;

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

/// A 128-bit digest (collisions are out of reach for any file): memory per row stays small.
fn digest(parts: &[&str]) -> u128 {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_be_bytes());
        h.update(p.as_bytes());
    }
    let out = h.finalize();
    let mut b = [0u8; 16];
    b.copy_from_slice(&out[..16]);
    u128::from_be_bytes(b)
}

/// The form under which two emails are the same address.
pub fn email_id(email: &str) -> u128 {
    digest(&["email", &email.trim().to_lowercase()])
}

/// Why a row is not sent: an earlier row of the file stands for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SameAs {
    Email(u64),
    Content(u64),
    Key(u64),
}

/// A row ready to send (or to skip as a duplicate inside the file).
pub struct Planned {
    pub line: u64,
    pub contact: NewContact,
    pub key: IdempotencyKey,
    pub email: Option<String>,
    pub duplicate_of: Option<SameAs>,
}

/// The decisions that depend on earlier rows, made in file order (so the same in every run
/// and whatever the order answers arrive in).
pub struct Decider {
    allow_duplicate: bool,
    by_email: HashMap<u128, u64>,
    /// Content (or external id) -> first line, its content, how many rows so far.
    by_key: HashMap<u128, (u64, u128, u32)>,
}

impl Decider {
    pub fn new(allow_duplicate: bool) -> Decider {
        Decider {
            allow_duplicate,
            by_email: HashMap::new(),
            by_key: HashMap::new(),
        }
    }

    /// The row's key and whether an earlier row stands for it; `Err` when a key column value
    /// comes back with other values.
    pub fn decide(&mut self, line: u64, row: Parsed) -> Result<Planned, String> {
        let content = digest(&["content", &row.body]);
        let material = match &row.external {
            Some(x) => digest(&["key", x]),
            None => content,
        };
        let slot = self.by_key.entry(material).or_insert((line, content, 0));
        let (first, first_content, seen) = *slot;
        slot.2 += 1;
        if first != line && first_content != content {
            return Err(format!(
                "key '{}' is also on line {first} with other values",
                row.external.as_deref().unwrap_or_default()
            ));
        }
        let key = match &row.external {
            Some(x) => IdempotencyKey::derived(&["crmdash-import-key", x]),
            // The first of identical rows keeps the key earlier versions gave it.
            None if seen == 0 => IdempotencyKey::derived(&["crmdash-import-row", &row.body]),
            None => IdempotencyKey::derived(&["crmdash-import-row", &row.body, &seen.to_string()]),
        };
        let email = row.contact.email.clone();
        let mut duplicate_of = None;
        if !self.allow_duplicate
            && let Some(e) = &email
        {
            let first_email = *self.by_email.entry(email_id(e)).or_insert(line);
            if first_email != line {
                duplicate_of = Some(SameAs::Email(first_email));
            }
        }
        if duplicate_of.is_none() && first != line {
            if row.external.is_some() {
                duplicate_of = Some(SameAs::Key(first));
            } else if !self.allow_duplicate {
                duplicate_of = Some(SameAs::Content(first));
            }
        }
        Ok(Planned {
            line,
            contact: row.contact,
            key,
            email,
            duplicate_of,
        })
    }
}

/// What the first pass learnt: how many rows, the emails the rows to send carry, and those
/// rows as the near-duplicate finder sees them.
#[derive(Debug)]
pub struct Checked {
    pub rows: u64,
    pub emails: std::collections::HashSet<u128>,
    pub people: Vec<crate::insights::dupes::Person>,
}

/// The first pass: every row read and decided; any bad row fails the whole file (exit 5), with
/// one line per problem, so nothing is sent until the file is clean.
pub fn check_file(layout: &Layout, allow_duplicate: bool) -> Result<Checked, CliError> {
    let mut decider = Decider::new(allow_duplicate);
    let mut problems: Vec<(String, String)> = Vec::new();
    let mut bad_rows = 0u64;
    let mut rows = 0u64;
    let mut emails = std::collections::HashSet::new();
    let mut people = Vec::new();
    for raw in Rows::open(layout)? {
        let result = raw
            .parsed
            .and_then(|p| decider.decide(raw.line, p).map_err(|m| vec![m]));
        match result {
            Ok(planned) => {
                rows += 1;
                if planned.duplicate_of.is_none() {
                    if let Some(e) = &planned.email {
                        emails.insert(email_id(e));
                    }
                    people.push(super::near::person_of_row(planned.line, &planned.contact));
                }
            }
            Err(messages) => {
                bad_rows += 1;
                for m in messages {
                    if problems.len() < MAX_LISTED_PROBLEMS {
                        problems.push((format!("line {}", raw.line), m));
                    }
                }
            }
        }
    }
    let shown = layout.path.display();
    if bad_rows > 0 {
        let plural = if bad_rows == 1 { "row" } else { "rows" };
        let more = if bad_rows as usize > problems.len() {
            format!(" (the first {} problems listed)", problems.len())
        } else {
            String::new()
        };
        return Err(CliError::Invalid {
            message: format!("{shown}: {bad_rows} bad {plural}; nothing was sent{more}"),
            fields: problems,
        });
    }
    if rows == 0 {
        return Err(CliError::invalid(format!("{shown}: no rows to import")));
    }
    Ok(Checked {
        rows,
        emails,
        people,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file(text: &str) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(text.as_bytes()).unwrap();
        f
    }

    fn planned(text: &str, key: Option<&str>, allow: bool) -> Vec<Planned> {
        read_planned(text, key, false, allow)
    }

    /// The rows of `text` as the second pass plans them, after the first pass accepted them.
    fn read_planned(text: &str, key: Option<&str>, only_known: bool, allow: bool) -> Vec<Planned> {
        let f = file(text);
        let layout = Layout::open(f.path(), None, key, only_known).unwrap();
        check_file(&layout, allow).unwrap();
        let mut d = Decider::new(allow);
        Rows::open(&layout)
            .unwrap()
            .map(|r| d.decide(r.line, r.parsed.ok().unwrap()).unwrap())
            .collect()
    }

    #[test]
    fn headers_match_whatever_their_spelling() {
        for h in [
            "First Name;last-name;E-Mail;PHONE",
            "first_name;LAST_NAME;email;Phone",
        ] {
            let f = file(&format!("{h}\nAda;Lovelace;ada@example.com;\n"));
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
        let f = file("name|mail\nAda|ada@example.com\n");
        let err = Layout::open(f.path(), None, None, false).unwrap_err();
        assert!(err.to_string().contains("separator ','"), "{err}");
        let g = file("name;mail\n");
        let err = Layout::open(g.path(), Some(b'\t'), None, false).unwrap_err();
        assert!(err.to_string().contains("--delimiter tab"), "{err}");
    }

    #[test]
    fn duplicates_are_decided_in_file_order() {
        let rows = planned(
            "email,first_name\nada@example.com,Ada\nADA@example.com ,Ada2\nbob@example.com,Bob\n,Cy\n,Cy\n",
            None,
            false,
        );
        assert_eq!(rows[0].duplicate_of, None);
        assert_eq!(rows[1].duplicate_of, Some(SameAs::Email(2)));
        assert_eq!(rows[2].duplicate_of, None);
        assert_eq!(rows[3].duplicate_of, None);
        assert_eq!(rows[4].duplicate_of, Some(SameAs::Content(5)));
        // --allow-duplicate: every row is sent, identical ones under distinct keys.
        let all = planned("first_name\nCy\nCy\n", None, true);
        assert!(all.iter().all(|p| p.duplicate_of.is_none()));
        assert_ne!(all[0].key, all[1].key);
    }

    #[test]
    fn line_numbers_follow_crlf_blank_lines_and_quoted_newlines() {
        let f = file(
            "\u{feff}first_name,email\r\n\r\nAda,ada@example.com\r\n\"Bo\nb\",bob@example.com\r\nCy,cy@example.com\r\n",
        );
        let layout = Layout::open(f.path(), None, None, false).unwrap();
        let lines: Vec<u64> = Rows::open(&layout).unwrap().map(|r| r.line).collect();
        assert_eq!(lines, vec![3, 4, 6]);
    }

    #[test]
    fn the_key_column_is_matched_loosely_and_conflicts_are_refused() {
        let f = file("External ID,email\n7,a@example.com\n7,b@example.com\n");
        let layout = Layout::open(f.path(), None, Some("external_id"), false).unwrap();
        assert_eq!(layout.key, Some(0));
        let err = check_file(&layout, false).unwrap_err();
        assert!(
            err.field_errors()[0].1.contains("also on line 2"),
            "{err:?}"
        );
    }

    fn checked_rows(text: &str, key: Option<&str>, only_known: bool) -> Vec<Planned> {
        read_planned(text, key, only_known, false)
    }

    #[test]
    fn rows_map_known_columns_and_keep_the_others() {
        let text = "id,first_name,email,source\n7,Ada,ada@example.com,fair\n";
        let rows = checked_rows(text, Some("id"), false);
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].line, 2);
        let body = rows[0].contact.to_body();
        assert_eq!(body["first_name"], "Ada");
        assert_eq!(body["source"], "fair");
        assert_eq!(body["id"], "7");
        let known = checked_rows(text, Some("id"), true);
        assert!(!known[0].contact.to_body().contains_key("source"));
    }

    #[test]
    fn keys_are_stable_across_runs_and_follow_the_key_column() {
        let text = "id,first_name,email\n7,Ada,ada@example.com\n8,Bob,bob@example.com\n";
        let a = checked_rows(text, None, false);
        let b = checked_rows(text, None, false);
        assert_eq!(a[0].key, b[0].key);
        assert_ne!(a[0].key, a[1].key);
        // The first key of a row is the one earlier versions derived from its content.
        let body = serde_json::to_string(&a[0].contact.to_body()).unwrap();
        assert_eq!(
            a[0].key,
            IdempotencyKey::derived(&["crmdash-import-row", &body])
        );
        let by_id_1 = checked_rows(text, Some("id"), false);
        let by_id_2 = checked_rows(
            "id,first_name,email\n7,Ada,ada@other.example\n",
            Some("id"),
            false,
        );
        assert_eq!(by_id_1[0].key, by_id_2[0].key);
    }

    #[test]
    fn every_bad_row_is_reported_with_its_line() {
        let f = file(
            "first_name,email,phone\nAda,not-an-email,\n,,\nBob,bob@example.com,12345\nCy,cy@example.com,+1 555 0100\n",
        );
        let layout = Layout::open(f.path(), None, None, false).unwrap();
        let err = check_file(&layout, false).unwrap_err();
        let lines: Vec<String> = err.field_errors().into_iter().map(|(l, _)| l).collect();
        assert!(lines.contains(&"line 2".to_string()), "{lines:?}");
        assert!(lines.contains(&"line 4".to_string()), "{lines:?}");
        assert!(!lines.contains(&"line 5".to_string()), "{lines:?}");
        assert_eq!(err.exit() as u8, 5);
    }

    #[test]
    fn a_missing_key_column_is_refused() {
        let f = file("first_name,email\nAda,ada@example.com\n");
        let err = Layout::open(f.path(), None, Some("external_id"), false).unwrap_err();
        assert!(err.to_string().contains("no column 'external_id'"), "{err}");
    }
}
