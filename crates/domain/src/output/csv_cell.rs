//! CSV that a spreadsheet cannot execute: every CSV crmdash writes goes through [`CsvWriter`],
//! which neutralises a cell that a spreadsheet would read as a formula (the OWASP rule: a
//! cell beginning with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `'`).
//! A cell that is a plain number (`-12.5`, `+3`, `-1e5`) is data and kept as it is.
//! `--csv-raw` (a global option) writes every cell exactly as the service sent it.

use std::borrow::Cow;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once at start from `--csv-raw`: every CSV writer of the process then writes raw.
static RAW: AtomicBool = AtomicBool::new(false);

/// What CSV writers do with a cell that starts like a formula.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CsvFormulas {
    /// A leading `'` makes it text (the default).
    Neutralise,
    /// Written as is (`--csv-raw`).
    Raw,
}

/// Chooses, for the whole process, what every CSV writer does with formula cells.
pub fn set_csv_formulas(f: CsvFormulas) {
    RAW.store(f == CsvFormulas::Raw, Ordering::Relaxed);
}

/// The process's choice (see [`set_csv_formulas`]).
pub fn csv_formulas() -> CsvFormulas {
    if RAW.load(Ordering::Relaxed) {
        CsvFormulas::Raw
    } else {
        CsvFormulas::Neutralise
    }
}

/// Whether a spreadsheet would take `cell` as a formula: it starts with `=`, `+`, `-`, `@`,
/// a tab or a carriage return and is not a plain decimal number.
pub fn is_formula(cell: &[u8]) -> bool {
    matches!(
        cell.first(),
        Some(b'=' | b'+' | b'-' | b'@' | b'\t' | b'\r')
    ) && !is_number(cell)
}

/// `[+-]digits[.digits][e[+-]digits]`: a number a spreadsheet reads as a number.
fn is_number(cell: &[u8]) -> bool {
    let mut i = 0;
    if matches!(cell.first(), Some(b'+' | b'-')) {
        i = 1;
    }
    let digits = |i: &mut usize| {
        let start = *i;
        while cell.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    let mut n = digits(&mut i);
    if cell.get(i) == Some(&b'.') {
        i += 1;
        n += digits(&mut i);
    }
    if n == 0 {
        return false;
    }
    if matches!(cell.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(cell.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == cell.len()
}

/// `cell` as a spreadsheet-safe text: `'` before a formula, anything else as it is.
pub fn neutralise(cell: &str) -> Cow<'_, str> {
    if is_formula(cell.as_bytes()) {
        Cow::Owned(format!("'{cell}"))
    } else {
        Cow::Borrowed(cell)
    }
}

/// A `csv::Writer` whose every cell passes [`is_formula`] first (unless `--csv-raw`).
pub struct CsvWriter<W: Write> {
    inner: csv::Writer<W>,
    raw: bool,
    scratch: Vec<u8>,
}

impl<W: Write> CsvWriter<W> {
    /// A writer with the process's formula choice.
    pub fn new(w: W, terminator: csv::Terminator) -> CsvWriter<W> {
        Self::with(w, terminator, csv_formulas())
    }

    /// A writer with an explicit formula choice.
    pub fn with(w: W, terminator: csv::Terminator, formulas: CsvFormulas) -> CsvWriter<W> {
        CsvWriter {
            inner: csv::WriterBuilder::new()
                .terminator(terminator)
                .from_writer(w),
            raw: formulas == CsvFormulas::Raw,
            scratch: Vec::new(),
        }
    }

    /// One record: its cells, then the line's end.
    pub fn write_record<I, T>(&mut self, record: I) -> csv::Result<()>
    where
        I: IntoIterator<Item = T>,
        T: AsRef<[u8]>,
    {
        for cell in record {
            let cell = cell.as_ref();
            if !self.raw && is_formula(cell) {
                self.scratch.clear();
                self.scratch.push(b'\'');
                self.scratch.extend_from_slice(cell);
                self.inner.write_field(&self.scratch)?;
            } else {
                self.inner.write_field(cell)?;
            }
        }
        self.inner.write_record(None::<&[u8]>)
    }

    pub fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }

    /// The inner writer, flushed.
    pub fn into_inner(self) -> std::io::Result<W> {
        self.inner.into_inner().map_err(|e| e.into_error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(formulas: CsvFormulas, row: &[&str]) -> String {
        let mut w = CsvWriter::with(Vec::new(), csv::Terminator::Any(b'\n'), formulas);
        w.write_record(row).unwrap();
        String::from_utf8(w.into_inner().unwrap()).unwrap()
    }

    #[test]
    fn formula_cells_get_a_leading_quote() {
        let row = [
            "=HYPERLINK(\"http://evil\",\"x\")",
            "+cmd|' /C calc'!A0",
            "-2+3",
            "@SUM(A1)",
            "\tx",
            "\rx",
            "plain",
            "",
        ];
        assert_eq!(
            written(CsvFormulas::Neutralise, &row),
            "\"'=HYPERLINK(\"\"http://evil\"\",\"\"x\"\")\",'+cmd|' /C calc'!A0,'-2+3,'@SUM(A1),'\tx,\"'\rx\",plain,\n"
        );
    }

    #[test]
    fn plain_numbers_are_data_not_formulas() {
        for n in ["-12.5", "+3", "-0", "-1e5", "-.5", "-2.5E-3", "12"] {
            assert!(!is_formula(n.as_bytes()), "{n}");
        }
        for f in ["-", "+", "-e5", "-1e", "-1-1", "+49 30 1234", "-.", "--1"] {
            assert!(is_formula(f.as_bytes()), "{f}");
        }
        assert_eq!(written(CsvFormulas::Neutralise, &["-12.5"]), "-12.5\n");
    }

    #[test]
    fn raw_writes_every_cell_as_it_is() {
        assert_eq!(written(CsvFormulas::Raw, &["=1+1", "@x"]), "=1+1,@x\n");
        assert_eq!(neutralise("=1"), "'=1");
        assert_eq!(neutralise("a=1"), "a=1");
    }
}
