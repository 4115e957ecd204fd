//! A plan file's rows as typed: CSV (`id,start[,end]`, an optional header naming those
//! columns, `#` comments) or JSON Lines (`{"id": .., "start": .., "end": ..}`), each row with
//! the line it came from. A first row naming `id` or `start` is the header. The format is the first non-blank, non-comment line's: `{` is JSON
//! Lines.

use serde_json::Value;

/// One row as written: the text of its cells, not yet read as an id or times.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawRow {
    /// 1-based line in the file.
    pub line: u64,
    pub id: String,
    pub start: String,
    /// Empty when the row has none.
    pub end: String,
}

/// A row that cannot be read, with its line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadRow {
    pub line: u64,
    pub message: String,
}

/// The columns of a plan.
pub const COLUMNS: [&str; 3] = ["id", "start", "end"];

/// Reads every row of `text`; a row that cannot be read is a [`BadRow`] (the others are still
/// read, so every problem is named at once).
pub fn read_rows(text: &str) -> Vec<Result<RawRow, BadRow>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'));
    match first {
        Some(l) if l.starts_with('{') => read_jsonl(text),
        _ => read_csv(text),
    }
}

fn bad(line: u64, message: impl Into<String>) -> BadRow {
    BadRow {
        line,
        message: message.into(),
    }
}

fn read_jsonl(text: &str) -> Vec<Result<RawRow, BadRow>> {
    let mut rows = Vec::new();
    for (i, l) in text.lines().enumerate() {
        let line = i as u64 + 1;
        let t = l.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        rows.push(jsonl_row(line, t));
    }
    rows
}

fn jsonl_row(line: u64, t: &str) -> Result<RawRow, BadRow> {
    let obj = match serde_json::from_str::<Value>(t) {
        Ok(Value::Object(o)) => o,
        Ok(_) => return Err(bad(line, "not a JSON object ({\"id\": .., \"start\": ..})")),
        Err(e) => return Err(bad(line, format!("not valid JSON: {e}"))),
    };
    if let Some(k) = obj.keys().find(|k| !COLUMNS.contains(&k.as_str())) {
        return Err(bad(
            line,
            format!("unknown key {k:?}: a row has id, start and end"),
        ));
    }
    let text = |k: &str| -> Result<String, BadRow> {
        match obj.get(k) {
            None | Some(Value::Null) => Ok(String::new()),
            Some(Value::String(s)) => Ok(s.trim().to_string()),
            Some(Value::Number(n)) if k == "id" => Ok(n.to_string()),
            Some(other) => Err(bad(line, format!("{k} must be a string, not {other}"))),
        }
    };
    Ok(RawRow {
        line,
        id: text("id")?,
        start: text("start")?,
        end: text("end")?,
    })
}

fn read_csv(text: &str) -> Vec<Result<RawRow, BadRow>> {
    // Comment lines blanked, not removed (the reader's comments do not count as lines).
    let text: String = text
        .split_inclusive('\n')
        .map(|l| {
            if l.trim_start().starts_with('#') {
                "\n"
            } else {
                l
            }
        })
        .collect();
    // Lines from byte offsets: the reader's own line count skips blank lines, and a
    // record's position is where the reader started, before the blank lines it skipped.
    let line_of = |byte: u64| {
        let bytes = text.as_bytes();
        let mut end = usize::try_from(byte).unwrap_or(usize::MAX).min(bytes.len());
        while end < bytes.len() && matches!(bytes[end], b'\n' | b'\r') {
            end += 1;
        }
        bytes[..end].iter().filter(|b| **b == b'\n').count() as u64 + 1
    };
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let mut rows = Vec::new();
    // Where each column is: positional, or by the header's names.
    let mut at: [Option<usize>; 3] = [Some(0), Some(1), Some(2)];
    let mut width = 3;
    let mut first = true;
    for record in reader.records() {
        let (line, record) = match record {
            Ok(r) => (r.position().map_or(0, |p| line_of(p.byte())), r),
            Err(e) => {
                let line = e.position().map_or(0, |p| line_of(p.byte()));
                rows.push(Err(bad(line, format!("not valid CSV: {e}"))));
                continue;
            }
        };
        if record.iter().all(str::is_empty) {
            continue;
        }
        let names_a_column = record
            .iter()
            .any(|c| c.eq_ignore_ascii_case("id") || c.eq_ignore_ascii_case("start"));
        if std::mem::take(&mut first) && names_a_column {
            match header(&record) {
                Ok((columns, n)) => (at, width) = (columns, n),
                Err(message) => {
                    // Without its columns no row can be read.
                    return vec![Err(bad(line, message))];
                }
            }
            continue;
        }
        if record.len() > width {
            rows.push(Err(bad(
                line,
                format!(
                    "{} columns: a row has at most {width} (id,start,end)",
                    record.len()
                ),
            )));
            continue;
        }
        let cell = |c: Option<usize>| c.and_then(|i| record.get(i)).unwrap_or("").to_string();
        rows.push(Ok(RawRow {
            line,
            id: cell(at[0]),
            start: cell(at[1]),
            end: cell(at[2]),
        }));
    }
    rows
}

/// The columns a header names: id and start required, end optional, nothing else.
fn header(record: &csv::StringRecord) -> Result<([Option<usize>; 3], usize), String> {
    let mut at = [None; 3];
    for (i, name) in record.iter().enumerate() {
        let name = name.to_ascii_lowercase();
        let Some(c) = COLUMNS.iter().position(|c| *c == name) else {
            return Err(format!(
                "the header names a column {name:?}: a plan has the columns id, start and end"
            ));
        };
        if at[c].is_some() {
            return Err(format!("the header names {name:?} twice"));
        }
        at[c] = Some(i);
    }
    if at[1].is_none() {
        return Err("the header has no start column (id,start,end)".into());
    }
    Ok((at, record.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(r: &Result<RawRow, BadRow>) -> &RawRow {
        r.as_ref().expect("a good row")
    }

    #[test]
    fn csv_with_and_without_a_header_keeps_line_numbers() {
        let rows = read_rows("# moved for Ada\napt_1,mon 09:00\n\napt_2,mon 10:00,30m\n");
        assert_eq!(rows.len(), 2);
        assert_eq!(ok(&rows[0]).line, 2);
        assert_eq!(ok(&rows[1]).line, 4);
        assert_eq!(ok(&rows[1]).end, "30m");
        let rows = read_rows("start,ID\n\"2026-12-01 09:00\",apt_7\n");
        assert_eq!(
            ok(&rows[0]),
            &RawRow {
                line: 2,
                id: "apt_7".into(),
                start: "2026-12-01 09:00".into(),
                end: String::new()
            }
        );
    }

    #[test]
    fn bad_shapes_are_named_with_their_line() {
        let rows = read_rows("apt_1,09:00\napt_2,09:00,10:00,extra\n");
        assert!(rows[0].is_ok());
        let e = rows[1].as_ref().unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("4 columns"), "{}", e.message);
        let rows = read_rows("id,start,room\napt_1,09:00,4\n");
        assert_eq!(rows.len(), 1);
        assert!(rows[0].as_ref().unwrap_err().message.contains("\"room\""));
    }

    #[test]
    fn jsonl_rows_and_their_problems() {
        let rows = read_rows(
            "{\"id\": \"apt_1\", \"start\": \"mon 09:00\", \"end\": null}\n\n{\"id\": 42, \"start\": \"10:00\", \"when\": 1}\n[1]\n",
        );
        assert_eq!(ok(&rows[0]).id, "apt_1");
        let e = rows[1].as_ref().unwrap_err();
        assert_eq!((e.line, e.message.contains("\"when\"")), (3, true));
        assert_eq!(rows[2].as_ref().unwrap_err().line, 4);
    }
}
