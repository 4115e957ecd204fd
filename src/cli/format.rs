//! `--format table|json|csv` for the CLI: the default follows stdout (a terminal gets a table
//! sized to its width, a pipe gets JSON), and records go through the shared writers in `output`.

use std::io::{BufWriter, Write};

use crate::api::ApiRecord;
use crate::cli::context::Ttys;
use crate::cli::exit::CliError;
use crate::output::{self, Format, OutputError, Tabular};

/// What a list or a single record needs to be printed in every format.
pub trait Printable: ApiRecord + Tabular {}
impl<T: ApiRecord + Tabular> Printable for T {}

/// The format asked for, or the default for where stdout goes.
pub fn resolve(asked: Option<Format>, tty: Ttys) -> Format {
    asked.unwrap_or_else(|| Format::default_for(tty.stdout))
}

/// Width for tables: the terminal's columns, else `COLUMNS`, else 120.
pub fn table_width() -> u16 {
    if let Ok((cols, _)) = crossterm::terminal::size()
        && cols > 0
    {
        return cols;
    }
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse().ok())
        .filter(|c| *c > 0)
        .unwrap_or(120)
}

/// Prints a list of records to stdout.
pub fn print_list<T: Printable>(records: &[T], fmt: Format) -> Result<(), CliError> {
    let mut out = BufWriter::new(std::io::stdout().lock());
    let result = match fmt {
        Format::Json => output::write_json(records, &mut out).map_err(OutputError::from),
        Format::Csv => output::write_csv(records, &mut out),
        Format::Table => {
            output::write_table(records, table_width(), &mut out).map_err(OutputError::from)
        }
    };
    finish(result.and_then(|()| out.flush().map_err(OutputError::from)))
}

/// Prints one record (what create and reschedule return): JSON is the `data` object as sent.
pub fn print_one<T: Printable>(record: &T, fmt: Format) -> Result<(), CliError> {
    match fmt {
        Format::Json => {
            let mut out = std::io::stdout().lock();
            let result = output::write_json_one(record, &mut out).and_then(|()| out.flush());
            finish(result.map_err(OutputError::from))
        }
        _ => print_list(std::slice::from_ref(record), fmt),
    }
}

/// A closed pipe (`| head`) is not an error worth reporting.
fn finish(result: Result<(), OutputError>) -> Result<(), CliError> {
    match result {
        Ok(()) => Ok(()),
        Err(OutputError::Io(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(CliError::other(format!("cannot write the output: {e}"))),
    }
}
