//! Writers for lists of records, shared by the CLI (`--format table|json|csv`) and the
//! dashboard's export, so both produce the same bytes.

mod columns;
mod csv_cell;
mod csv_out;
mod json_out;
mod log_out;
pub mod money;
pub mod screen;
mod stream;
mod table;
mod text;

use std::fmt;
use std::str::FromStr;

pub use columns::top_level;
pub use columns::{ColumnSet, Columns};
pub use csv_cell::{
    CsvFormulas, csv_formulas, is_formula, neutralise as neutralise_csv_cell, set_csv_formulas,
};
pub use csv_out::{
    CsvSink, CsvWriter, write_csv, writer as csv_writer, writer_lf as csv_writer_lf,
};
pub use json_out::{JsonSink, write_json, write_json_one, write_jsonl};
pub use log_out::{LogColumns, write_log_entries};
pub use screen::{Screen, stderr, stdout};
pub use stream::ListWriter;
pub use table::{TableShape, TableWriter, Tabular, write_table};
pub use text::{
    display_width, is_invisible, pad, sanitize_cell, terminal_safe, truncate_to_width, visible,
};

/// An output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Format {
    /// Aligned columns sized to the terminal, values formatted for reading.
    Table,
    /// The records exactly as the server sent them, as one JSON array.
    Json,
    /// JSON Lines: one record as the server sent it per line.
    Jsonl,
    /// RFC 4180, a header row then one row per record; nested values as JSON text.
    Csv,
}

impl Format {
    /// Table for a person at a terminal, JSON for a pipe or a file.
    pub fn default_for(stdout_is_terminal: bool) -> Format {
        if stdout_is_terminal {
            Format::Table
        } else {
            Format::Json
        }
    }

    /// The file extension an export in this format gets.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Table => "txt",
            Format::Json => "json",
            Format::Jsonl => "jsonl",
            Format::Csv => "csv",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Table => "table",
            Format::Json => "json",
            Format::Jsonl => "jsonl",
            Format::Csv => "csv",
        })
    }
}

/// A format name other than `table`, `json`, `jsonl` or `csv`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown format {0:?}: choose table, json, jsonl or csv")]
pub struct UnknownFormat(pub String);

impl FromStr for Format {
    type Err = UnknownFormat;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "table" => Ok(Format::Table),
            "json" => Ok(Format::Json),
            "jsonl" => Ok(Format::Jsonl),
            "csv" => Ok(Format::Csv),
            _ => Err(UnknownFormat(s.to_string())),
        }
    }
}

/// Why a CSV could not be written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error("writing CSV: {0}")]
    Csv(#[from] csv::Error),
    /// A record's raw JSON is not an object (the decoder would not have built it).
    #[error("record {id} is not a JSON object")]
    NotAnObject { id: String },
}
