//! `--format table|json|jsonl|csv` for the CLI: the default follows stdout (a terminal gets a table
//! sized to its width, a pipe gets JSON), and records go through the shared writers in `output`.

use std::io::{BufWriter, Write};

use crate::api::ApiRecord;
use crate::cli::context::Ttys;
use crate::cli::exit::CliError;
use crate::output::{self, ColumnSet, Columns, Format, ListWriter, OutputError, Tabular};

/// What a list or a single record needs to be printed in every format.
pub trait Printable: ApiRecord + Tabular + Columns {}
impl<T: ApiRecord + Tabular + Columns> Printable for T {}

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

/// Stdout for a list: buffered, flushed after each page by [`ListWriter`].
pub fn list_writer<T: Printable>(
    fmt: Format,
    columns: Option<ColumnSet>,
) -> ListWriter<BufWriter<output::Screen<std::io::Stdout>>> {
    let out = BufWriter::with_capacity(64 * 1024, output::stdout());
    ListWriter::new::<T>(fmt, columns, table_width(), out)
}

/// Prints one record (what create and reschedule return): JSON (and JSON Lines) is the
/// `data` object as sent.
pub fn print_one<T: Printable>(record: &T, fmt: Format) -> Result<(), CliError> {
    let result = match fmt {
        Format::Json | Format::Jsonl => {
            let mut out = output::stdout();
            output::write_json_one(record, &mut out)
                .and_then(|()| out.flush())
                .map_err(OutputError::from)
        }
        _ => {
            let mut w = list_writer::<T>(fmt, None);
            w.page(std::slice::from_ref(record))
                .and_then(|()| w.finish().map(drop))
        }
    };
    finish(result)
}

/// A closed pipe (`| head`) is not an error worth reporting.
pub fn finish(result: Result<(), OutputError>) -> Result<(), CliError> {
    match result {
        Ok(()) => Ok(()),
        Err(e) if is_closed_pipe(&e) => Ok(()),
        Err(e) => Err(CliError::other(format!("cannot write the output: {e}"))),
    }
}

/// Whether writing failed because the reader went away (`| head -1`).
pub fn is_closed_pipe(e: &OutputError) -> bool {
    match e {
        OutputError::Io(e) => e.kind() == std::io::ErrorKind::BrokenPipe,
        OutputError::Csv(e) => {
            matches!(e.kind(), csv::ErrorKind::Io(io) if io.kind() == std::io::ErrorKind::BrokenPipe)
        }
        OutputError::NotAnObject { .. } => false,
    }
}
