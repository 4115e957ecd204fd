//! An import file's layout: the separator (detected or given) and the header mapped onto the
//! seed's fields whatever its spelling (`--map` first, then the field's own name, then a
//! common name for it).

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use super::read::csv_reader;
use crate::cli::exit::CliError;
use crate::validate::KNOWN_FIELDS;

/// The separators detection chooses from, in order of preference on a tie.
const CANDIDATES: [u8; 3] = [b',', b';', b'\t'];

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
pub(super) fn split_full_name(full: &str) -> (String, String) {
    match full.trim().split_once(char::is_whitespace) {
        Some((first, last)) => (first.to_string(), last.trim().to_string()),
        None => (full.trim().to_string(), String::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::import::read::temp_csv;

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
    fn fields_of(header: &str, maps: &[(&str, &str)]) -> Result<Layout, CliError> {
        let f = temp_csv(&format!("{header}\nx,y,z,w,v\n"));
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
    fn a_missing_key_column_is_refused() {
        let f = temp_csv("first_name,email\nAda,ada@example.com\n");
        let err = Layout::open(f.path(), None, Some("external_id"), false).unwrap_err();
        assert!(err.to_string().contains("no column 'external_id'"), "{err}");
    }
}
