//! `--format table|json|csv` for the CLI: the default follows stdout (a terminal gets a table
//! sized to its width, a pipe gets JSON), and records go through the shared writers in `output`.

use std::io::Write;

use clap::ValueEnum;

use crate::api::ApiRecord;
use crate::cli::context::Ttys;
use crate::cli::exit::CliError;
use crate::output::{self, Format, Tabular};

/// The `--format` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// Aligned columns sized to the terminal (default on a terminal).
    Table,
    /// The records exactly as the server sent them (default when stdout is not a terminal).
    Json,
    /// RFC 4180: a header row, one row per record, nested values as JSON text.
    Csv,
}

/// What a list or a single record needs to be printed in every format.
pub trait Printable: ApiRecord + Tabular {}
impl<T: ApiRecord + Tabular> Printable for T {}

/// The format asked for, or the default for where stdout goes.
pub fn resolve(asked: Option<OutputFormat>, tty: Ttys) -> Format {
    match asked {
        Some(OutputFormat::Table) => Format::Table,
        Some(OutputFormat::Json) => Format::Json,
        Some(OutputFormat::Csv) => Format::Csv,
        None if tty.stdout => Format::Table,
        None => Format::Json,
    }
}

/// Width for tables: the terminal's columns, else 100 (stdout is not a terminal).
pub fn table_width() -> usize {
    match crossterm::terminal::size() {
        Ok((cols, _)) if cols > 0 => cols as usize,
        _ => 100,
    }
}

/// Prints a list of records to stdout.
pub fn print_list<T: Printable>(records: &[T], fmt: Format) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    let result = match fmt {
        Format::Json => output::write_json(&mut out, records),
        Format::Csv => output::write_csv(&mut out, records),
        Format::Table => output::write_table(&mut out, records, table_width()),
    };
    finish(result.and_then(|()| out.flush()))
}

/// Prints one record (what create and reschedule return): JSON is the `data` object as sent.
pub fn print_one<T: Printable>(record: &T, fmt: Format) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    let result = match fmt {
        Format::Json => writeln!(out, "{}", record.raw().get()),
        Format::Csv => output::write_csv(&mut out, std::slice::from_ref(record)),
        Format::Table => output::write_table(&mut out, std::slice::from_ref(record), table_width()),
    };
    finish(result.and_then(|()| out.flush()))
}

/// A closed pipe (`| head`) is not an error worth reporting.
fn finish(result: std::io::Result<()>) -> Result<(), CliError> {
    match result {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(CliError::other(format!("cannot write the output: {e}"))),
    }
}
