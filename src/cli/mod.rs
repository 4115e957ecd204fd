//! Command-line entry point (under construction: the scriptable commands land with issue [3/9]).

use std::process::ExitCode;

/// Parses arguments and runs the chosen mode.
pub fn main() -> ExitCode {
    eprintln!("crmdash: under construction");
    ExitCode::from(1)
}
