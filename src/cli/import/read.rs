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
    /// A full-name column split into first_name and last_name (at the first space), when
    /// the file has neither of those.
    pub full_name: Option<usize>,
    /// Columns whose header is not the field's own name, and the field they fill (`Mobile`
    /// → `phone`, by a common name or `--map`): said before anything is sent.
    pub mapped: Vec<(usize, &'static str)>,
    /// Columns sent as further body keys (named by their header).
    pub extra: Vec<usize>,
    /// Columns not sent (`--only-known`, or an empty header).
    pub ignored: Vec<usize>,
    pub key: Option<usize>,
}

impl Layout {
    /// [`Layout::open_mapped`] without `--map`.
    pub fn open(
        path: &Path,
        delimiter: Option<u8>,
        key_column: Option<&str>,
        only_known: bool,
    ) -> Result<Layout, CliError> {
        Layout::open_mapped(path, delimiter, key_column, only_known, &[])
    }

    /// Reads the header row and maps it (see [`FieldMap`]). Refuses a header naming no known
    /// field (saying which separator it read the file with), two columns for one field, a
    /// `--map` naming no column, or a missing key column.
    pub fn open_mapped(
        path: &Path,
        delimiter: Option<u8>,
        key_column: Option<&str>,
        only_known: bool,
        maps: &[(String, String)],
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
        let fields = FieldMap::build(&headers, maps).map_err(|m| match m {
            MapError::Field(field, m) => CliError::field(field, format!("{shown}: {m}")),
            MapError::Map(m) => CliError::field("map", format!("{shown}: {m}")),
        })?;
        let known = fields.known;
        if known.iter().all(Option::is_none) && fields.full_name.is_none() {
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
                "{shown}: the header row names none of {} ({how}; its columns: {}); \
                 --map 'HEADER=FIELD' says which column holds which",
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
            if known.contains(&Some(i)) || fields.full_name == Some(i) {
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
            full_name: fields.full_name,
            mapped: fields.mapped,
            extra,
            ignored,
            key,
        })
    }

    /// Columns that fill no contact field, in file order.
    pub fn unknown_headers(&self) -> Vec<&str> {
        (0..self.headers.len())
            .filter(|i| !self.known.contains(&Some(*i)) && self.full_name != Some(*i))
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

/// The field a full-name column fills (both first_name and last_name).
pub const FULL_NAME: &str = "full_name";

/// Headers that commonly name a contact field, normalized (see [`normalize_header`]).
const COMMON_NAMES: [(&str, &[&str]); 5] = [
    ("first_name", &["first", "givenname", "given", "forename"]),
    ("last_name", &["last", "surname", "familyname"]),
    ("email", &["emailaddress", "mail", "mailaddress"]),
    (
        "phone",
        &[
            "phonenumber",
            "mobile",
            "mobilephone",
            "mobilenumber",
            "cell",
            "cellphone",
            "telephone",
            "telephonenumber",
            "tel",
        ],
    ),
    (FULL_NAME, &["fullname", "name", "contactname"]),
];

/// `--map 'HEADER=FIELD'`: the column and the contact field it fills (first_name, last_name,
/// email, phone, or full_name, split into both names).
pub fn parse_map(s: &str) -> Result<(String, String), String> {
    let (header, field) = s
        .rsplit_once('=')
        .ok_or_else(|| format!("{s:?}: give HEADER=FIELD, e.g. 'Mobile=phone'"))?;
    let (header, field) = (header.trim(), field.trim());
    if header.is_empty() {
        return Err(format!("{s:?}: the header before = is empty"));
    }
    let field = target(field).ok_or_else(|| {
        format!(
            "{s:?}: {field:?} is not a contact field ({}, {FULL_NAME})",
            KNOWN_FIELDS.join(", ")
        )
    })?;
    Ok((header.to_string(), field.to_string()))
}

/// The field `name` spells (`Phone`, `first name`...), as the one static name.
fn target(name: &str) -> Option<&'static str> {
    let n = normalize_header(name);
    KNOWN_FIELDS
        .iter()
        .copied()
        .chain([FULL_NAME])
        .find(|f| normalize_header(f) == n)
}

/// Why a header cannot be mapped.
enum MapError {
    /// Two columns for one field.
    Field(&'static str, String),
    /// A `--map` that names no column, or one already mapped.
    Map(String),
}

/// How the header row fills the contact, decided in this order: `--map` first; then each
/// field's own name (`First Name`, `E-Mail`, `PHONE`: case, spaces, dashes, underscores and
/// dots do not matter); then, for a field still unfilled, a common name for it (`Given Name`,
/// `Surname`, `Email Address`, `Mobile`, `Phone Number`, `Full Name`...), the leftmost
/// column first. A full-name column is used only when the file has no first or last name.
struct FieldMap {
    known: [Option<usize>; 4],
    full_name: Option<usize>,
    mapped: Vec<(usize, &'static str)>,
}

impl FieldMap {
    fn build(headers: &[String], maps: &[(String, String)]) -> Result<FieldMap, MapError> {
        let mut slots: Vec<(&'static str, usize)> = Vec::new();
        let mut mapped = Vec::new();
        let taken = |slots: &[(&'static str, usize)], field: &str| {
            slots.iter().find(|(f, _)| *f == field).map(|(_, i)| *i)
        };
        let both = |first: usize, second: usize, field: &'static str| {
            MapError::Field(
                field,
                format!(
                    "columns '{}' and '{}' both name {field}; keep one",
                    headers[first], headers[second]
                ),
            )
        };
        for (header, field) in maps {
            let column = headers
                .iter()
                .position(|h| h == header.trim())
                .or_else(|| {
                    headers
                        .iter()
                        .position(|h| normalize_header(h) == normalize_header(header))
                })
                .ok_or_else(|| {
                    MapError::Map(format!(
                        "--map {header}={field}: there is no column '{header}' (columns: {})",
                        headers.join(", ")
                    ))
                })?;
            let field = target(field).ok_or_else(|| {
                MapError::Map(format!("--map {header}={field}: not a contact field"))
            })?;
            if slots.iter().any(|(_, i)| *i == column) {
                return Err(MapError::Map(format!(
                    "--map names column '{}' twice",
                    headers[column]
                )));
            }
            if let Some(first) = taken(&slots, field) {
                return Err(both(first, column, field));
            }
            slots.push((field, column));
            mapped.push((column, field));
        }
        let by_map = slots.len();
        for (i, h) in headers.iter().enumerate() {
            if slots.iter().any(|(_, c)| *c == i) {
                continue;
            }
            let Some(field) = target(h) else { continue };
            if let Some(first) = taken(&slots, field) {
                return Err(both(first, i, field));
            }
            slots.push((field, i));
            if field == FULL_NAME {
                mapped.push((i, field));
            }
        }
        for (field, names) in COMMON_NAMES {
            if taken(&slots, field).is_some() {
                continue;
            }
            let found = headers.iter().enumerate().find(|(i, h)| {
                !slots.iter().any(|(_, c)| c == i) && names.contains(&normalize_header(h).as_str())
            });
            if let Some((i, _)) = found {
                slots.push((field, i));
                mapped.push((i, field));
            }
        }
        let mut known = [None; 4];
        for (k, f) in KNOWN_FIELDS.iter().enumerate() {
            known[k] = taken(&slots, f);
        }
        let mut full_name = taken(&slots, FULL_NAME);
        if let Some(full) = full_name
            && let Some(name) = known[0].or(known[1])
        {
            let asked = slots[..by_map].iter().any(|(_, c)| *c == full);
            if asked {
                return Err(MapError::Map(format!(
                    "--map {}={FULL_NAME} fills first_name and last_name, but column '{}' \
                     already gives {}",
                    headers[full],
                    headers[name],
                    if known[0] == Some(name) {
                        "first_name"
                    } else {
                        "last_name"
                    }
                )));
            }
            // The file names its parts: the full name goes as a further key, like any column.
            full_name = None;
            mapped.retain(|(c, _)| *c != full);
        }
        Ok(FieldMap {
            known,
            full_name,
            mapped,
        })
    }
}

/// A full name as first and last name: split at the first space (`Ada King Lovelace` is
/// `Ada` and `King Lovelace`); one word is a first name.
fn split_full_name(full: &str) -> (String, String) {
    match full.trim().split_once(char::is_whitespace) {
        Some((first, last)) => (first.to_string(), last.trim().to_string()),
        None => (full.trim().to_string(), String::new()),
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

    fn fields_of(header: &str, maps: &[(&str, &str)]) -> Result<Layout, CliError> {
        let f = file(&format!("{header}\nx,y,z,w,v\n"));
        let maps: Vec<(String, String)> = maps
            .iter()
            .map(|(h, f)| (h.to_string(), f.to_string()))
            .collect();
        Layout::open_mapped(f.path(), Some(b','), None, false, &maps)
    }

    /// Issue 27: `Full Name`, `Email Address`, `Mobile`... went as extra attributes.
    #[test]
    fn common_header_names_map_by_themselves() {
        let l = fields_of("Given Name,Surname,Email Address,Mobile", &[]).unwrap();
        assert_eq!(l.known, [Some(0), Some(1), Some(2), Some(3)]);
        assert_eq!(
            l.mapped,
            [
                (0, "first_name"),
                (1, "last_name"),
                (2, "email"),
                (3, "phone")
            ]
        );
        let l = fields_of("Full Name,E-mail,Phone Number", &[]).unwrap();
        assert_eq!(l.full_name, Some(0));
        assert_eq!(l.known, [None, None, Some(1), Some(2)]);
        assert!(l.unknown_headers().is_empty());
        // A field's own name beats a common name for it: `Mobile` stays an extra column.
        let l = fields_of("email,Phone,Mobile", &[]).unwrap();
        assert_eq!(l.known[3], Some(1));
        assert_eq!(l.unknown_headers(), ["Mobile"]);
        // The file names the parts: the full name is a further key.
        let l = fields_of("First Name,Last Name,Name", &[]).unwrap();
        assert_eq!(l.full_name, None);
        assert_eq!(l.extra_keys(), ["Name"]);
    }

    #[test]
    fn map_names_the_rest_and_wins() {
        let l = fields_of(
            "email,Handy,Kontakt",
            &[("Handy", "phone"), ("Kontakt", "full_name")],
        )
        .unwrap();
        assert_eq!(l.known[3], Some(1));
        assert_eq!(l.full_name, Some(2));
        let l = fields_of("email,Phone,Mobile", &[("Mobile", "phone")]);
        let e = l.unwrap_err().to_string();
        assert!(e.contains("'Mobile' and 'Phone' both name phone"), "{e}");
        let e = fields_of("email,Handy", &[("Cell", "phone")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("no column 'Cell'"), "{e}");
        assert!(parse_map("Mobile=phone").is_ok());
        assert_eq!(
            parse_map(" Mobile = Phone ").unwrap(),
            ("Mobile".into(), "phone".into())
        );
        assert!(
            parse_map("Mobile=mobile")
                .unwrap_err()
                .contains("not a contact field")
        );
        assert!(parse_map("Mobile").is_err());
    }

    #[test]
    fn a_full_name_is_split_at_the_first_space() {
        assert_eq!(
            split_full_name(" Ada King Lovelace "),
            ("Ada".into(), "King Lovelace".into())
        );
        assert_eq!(
            split_full_name("Madonna"),
            ("Madonna".into(), String::new())
        );
        let rows = planned(
            "Full Name,Email Address\nAda King Lovelace,ada@example.com\n",
            None,
            false,
        );
        assert_eq!(rows[0].contact.first_name.as_deref(), Some("Ada"));
        assert_eq!(rows[0].contact.last_name.as_deref(), Some("King Lovelace"));
    }

    /// Issue 27: an unclosed quote swallowed the rest of the file without a word.
    #[test]
    fn an_unclosed_quote_is_reported_with_its_line() {
        let f = file(
            "first_name,last_name,email\nAda,Lovelace,ada@example.com\nBob,\"Smith,bob@example.com\nCy,C,cy@example.com\nDi,D,di@example.com\n",
        );
        let layout = Layout::open(f.path(), None, None, false).unwrap();
        let err = check_file(&layout, false).unwrap_err();
        let CliError::Invalid { fields, .. } = err else {
            panic!("{err:?}")
        };
        assert_eq!(fields.len(), 1, "{fields:?}");
        assert_eq!(fields[0].0, "line 3");
        assert!(
            fields[0].1.contains("opened on line 3 is never closed"),
            "{fields:?}"
        );
        // Quotes closed, doubled, or inside an unquoted field are fine.
        let ok = file(
            "first_name,last_name,email\n\"Ada \"\"A\"\"\",Love\"lace,ada@example.com\n\"Bo, b\",B,b@example.com\n",
        );
        let layout = Layout::open(ok.path(), None, None, false).unwrap();
        assert_eq!(check_file(&layout, false).unwrap().rows, 2);
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
