//! A log's entries (the reschedule log, the write journal) in every output format: JSON as one
//! array of the entries' own serialisation, JSON Lines, CSV with its columns, and a table.

use std::io::Write;

use serde::Serialize;

use super::{Format, OutputError, TableShape, TableWriter};

/// A log's columns: the CSV header, the table's header and the table columns never cut.
pub struct LogColumns<'a> {
    pub csv: &'a [&'a str],
    pub table: &'a [&'a str],
    pub keep_whole: &'a [usize],
    /// Which table columns stay longest when the width runs short (higher first); empty: the
    /// leftmost.
    pub priority: &'a [u8],
    /// The table columns holding times on the display clock (their headers say its zone).
    pub zoned: &'a [usize],
}

/// Writes `entries` as `fmt` (a table `width` columns wide); `csv_cells` and `table_row` give
/// an entry's cells.
pub fn write_log_entries<T: Serialize>(
    entries: &[T],
    fmt: Format,
    columns: &LogColumns,
    width: u16,
    csv_cells: impl Fn(&T) -> Vec<String>,
    table_row: impl Fn(&T) -> Vec<String>,
    w: &mut impl Write,
) -> Result<(), OutputError> {
    let json = |e: &T| serde_json::to_string(e).unwrap_or_default();
    match fmt {
        Format::Json => {
            let lines: Vec<String> = entries.iter().map(json).collect();
            if lines.is_empty() {
                w.write_all(b"[]\n")?;
            } else {
                write!(w, "[\n{}\n]\n", lines.join(",\n"))?;
            }
        }
        Format::Jsonl => {
            for e in entries {
                writeln!(w, "{}", json(e))?;
            }
        }
        Format::Csv => {
            let mut out = super::csv_writer(w);
            out.write_record(columns.csv)?;
            for e in entries {
                out.write_record(csv_cells(e))?;
            }
            out.flush()?;
        }
        Format::Table => {
            let names: Vec<String> = columns.table.iter().map(|s| s.to_string()).collect();
            let mut t = TableWriter::new(
                TableShape::named(&names)
                    .keep_whole(columns.keep_whole)
                    .prioritised(columns.priority)
                    .zoned(columns.zoned),
                width,
            );
            t.rows(entries.iter().map(table_row).collect(), w)?;
            t.finish(w)?;
        }
    }
    Ok(())
}
