//! `--format csv`: RFC 4180 via the `csv` crate, the columns of [`ColumnSet`] (the resource's
//! fixed columns unless `--columns` chose others), so every page and every result, empty
//! included, has the same header.

use std::io::Write;

use super::OutputError;
use super::columns::{ColumnSet, Columns};
pub use super::csv_cell::CsvWriter;

/// The header and one row per record: strings as their text, numbers as the literal digits
/// sent, booleans as `true`/`false`, null or a missing key as an empty cell, objects and
/// arrays as compact JSON text, relations as their summary. CRLF after every line.
pub fn write_csv<T: Columns>(records: &[T], w: &mut impl Write) -> Result<(), OutputError> {
    let mut sink = CsvSink::new(ColumnSet::fixed::<T>());
    sink.rows(records, w)?;
    sink.finish(w)
}

/// The one CSV writer setup: RFC 4180, CRLF after every line, formula cells neutralised
/// (see [`super::csv_cell`]).
pub fn writer<W: Write>(w: W) -> CsvWriter<W> {
    CsvWriter::new(w, csv::Terminator::CRLF)
}

/// The same writer with a bare LF after every line (`changes`, `search`, `deals summary`
/// have always ended their lines so).
pub fn writer_lf<W: Write>(w: W) -> CsvWriter<W> {
    CsvWriter::new(w, csv::Terminator::Any(b'\n'))
}

/// A CSV written in parts (pages): the header once, then each part's rows.
pub struct CsvSink {
    columns: ColumnSet,
    header_written: bool,
}

impl CsvSink {
    pub fn new(columns: ColumnSet) -> CsvSink {
        CsvSink {
            columns,
            header_written: false,
        }
    }

    /// The header (first call only) and a row per record.
    pub fn rows<T: Columns>(
        &mut self,
        records: &[T],
        w: &mut impl Write,
    ) -> Result<(), OutputError> {
        let mut out = writer(w);
        if !self.header_written {
            out.write_record(self.columns.names())?;
            self.header_written = true;
        }
        for r in records {
            out.write_record(self.columns.row(r)?)?;
        }
        out.flush()?;
        Ok(())
    }

    /// The header alone when no record came.
    pub fn finish(&mut self, w: &mut impl Write) -> Result<(), OutputError> {
        if !self.header_written {
            self.rows::<crate::api::AppointmentRef>(&[], w)?;
        }
        Ok(())
    }
}
