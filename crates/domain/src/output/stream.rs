//! Lists written page by page: every `--all` output of the CLI and the dashboard's export go
//! through [`ListWriter`], so memory holds one page at a time and the first rows are out as
//! soon as the first page is in. The bytes are those of the one-shot writers.

use std::io::Write;

use super::columns::{ColumnSet, Columns};
use super::csv_out::CsvSink;
use super::json_out::{JsonSink, write_jsonl};
use super::table::{TableShape, TableWriter, Tabular};
use super::{Format, OutputError};

enum Sink {
    Csv(CsvSink),
    Json(JsonSink),
    Jsonl,
    /// `Some(columns)` for `--columns`, else the type's own table columns.
    Table(TableWriter, Option<ColumnSet>),
}

/// One list being written in a format, page after page.
pub struct ListWriter<W: Write> {
    sink: Sink,
    out: W,
    records: usize,
}

impl<W: Write> ListWriter<W> {
    /// `columns`: `--columns` (CSV and table), else the resource's fixed columns. `width`:
    /// a table's width in terminal columns.
    pub fn new<T: Columns + Tabular>(
        format: Format,
        columns: Option<ColumnSet>,
        width: u16,
        out: W,
    ) -> ListWriter<W> {
        let sink = match format {
            Format::Csv => Sink::Csv(CsvSink::new(columns.unwrap_or_else(ColumnSet::fixed::<T>))),
            Format::Json => Sink::Json(JsonSink::default()),
            Format::Jsonl => Sink::Jsonl,
            Format::Table => match columns {
                Some(c) => Sink::Table(
                    TableWriter::new(TableShape::named(c.names()), width),
                    Some(c),
                ),
                None => Sink::Table(TableWriter::new(TableShape::of::<T>(), width), None),
            },
        };
        ListWriter {
            sink,
            out,
            records: 0,
        }
    }

    /// Writes one page and flushes it, so it is out before the next page is asked for.
    pub fn page<T: Columns + Tabular>(&mut self, records: &[T]) -> Result<(), OutputError> {
        let w = &mut self.out;
        match &mut self.sink {
            Sink::Csv(s) => s.rows(records, w)?,
            Sink::Json(s) => s.rows(records, w)?,
            Sink::Jsonl => write_jsonl(records, w)?,
            Sink::Table(t, None) => t.rows(records.iter().map(Tabular::cells).collect(), w)?,
            Sink::Table(t, Some(c)) => {
                let rows = records.iter().map(|r| c.row(r)).collect::<Result<_, _>>()?;
                t.rows(rows, w)?
            }
        }
        self.records += records.len();
        self.out.flush()?;
        Ok(())
    }

    /// Ends the output (a CSV or table header alone, `[]` for an empty JSON array) and
    /// returns the writer.
    pub fn finish(mut self) -> Result<W, OutputError> {
        let w = &mut self.out;
        match &mut self.sink {
            Sink::Csv(s) => s.finish(w)?,
            Sink::Json(s) => s.finish(w)?,
            Sink::Jsonl => {}
            Sink::Table(t, _) => t.finish(w)?,
        }
        self.out.flush()?;
        Ok(self.out)
    }

    /// Records written so far.
    pub fn records(&self) -> usize {
        self.records
    }
}
