//! `crmdash log`: the write journal (`crate::journal`), every create, reschedule, import row
//! and bulk write sent from this machine, by the CLI or the dashboard, oldest first.

use std::io::Write;

use clap::Args;

use crate::cli::context::Ctx;
use crate::cli::exit::CliError;
use crate::cli::{format, times};
use crate::journal::{self, Filter, WriteKind, WriteRecord};
use crate::output::{Format, LogColumns, write_log_entries};
use crate::timeparse;

pub const EXAMPLES: &str = "\
Examples:
  crmdash log
  crmdash log --type reschedule --since yesterday
  crmdash log --type create --type import --since -7d --format csv > writes.csv
  crmdash log --last 20 --format json";

/// `crmdash log`.
#[derive(Debug, Clone, Args)]
pub struct LogArgs {
    /// Only writes of this kind (repeat for several).
    #[arg(long = "type", value_enum, value_name = "TYPE")]
    pub kinds: Vec<WriteKind>,
    /// Only writes sent at or after this time (`yesterday`, `-2h`, `2026-12-24 10:00`; in
    /// `[reschedule] timezone`).
    #[arg(long, value_name = "T", allow_hyphen_values = true)]
    pub since: Option<String>,
    /// Only the last N entries.
    #[arg(long, value_name = "N")]
    pub last: Option<usize>,
    /// Output format [default: table on a terminal, json otherwise]; jsonl is the journal's
    /// own lines.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<Format>,
}

/// The CSV's columns (and the JSON's keys, in order).
const CSV_COLUMNS: [&str; 11] = [
    "at", "type", "who", "profile", "host", "target", "answer", "status", "key", "run", "sent",
];

const TABLE_COLUMNS: [&str; 7] = ["sent", "type", "who", "profile", "host", "target", "answer"];

/// Shows the journal.
pub fn run(ctx: &Ctx, args: &LogArgs) -> Result<(), CliError> {
    let since = match &args.since {
        Some(t) => {
            let zone = times::zone_named(ctx.settings.display_zone())?;
            Some(
                timeparse::parse_instant(t, &zone, chrono::Utc::now())
                    .map_err(|e| CliError::field("since", format!("--since: {e}")))?,
            )
        }
        None => None,
    };
    let path = ctx
        .journal_path()
        .ok_or_else(|| CliError::other("no data directory for the write journal"))?;
    // A plan's rows are reschedules too (type `bulk`): `--type reschedule` lists them.
    let mut kinds = args.kinds.clone();
    if kinds.contains(&WriteKind::Reschedule) && !kinds.contains(&WriteKind::Bulk) {
        kinds.push(WriteKind::Bulk);
    }
    let filter = Filter {
        kinds,
        since,
        last: args.last,
    };
    let entries = journal::read(&path, &filter).map_err(|e| {
        CliError::other(format!(
            "cannot read the write journal {}: {e}",
            path.display()
        ))
    })?;
    let fmt = format::resolve(args.format, ctx.tty);
    let mut out = std::io::BufWriter::new(crate::output::stdout());
    let written = write(&entries, fmt, &mut out).and_then(|()| out.flush().map_err(Into::into));
    format::finish(written)
}

fn write(
    entries: &[WriteRecord],
    fmt: Format,
    w: &mut impl Write,
) -> Result<(), crate::output::OutputError> {
    let columns = LogColumns {
        csv: &CSV_COLUMNS,
        table: &TABLE_COLUMNS,
        // When the width runs short the time, the answer and the kind of write stay; the host
        // and who sent it give way first. The answer shrinks (its words can be long) rather than
        // hide.
        keep_whole: &[0, 1],
        // sent, type, who, profile, host, target, answer
        priority: &[9, 7, 3, 5, 2, 6, 8],
        zoned: &[0],
    };
    let width = format::table_width();
    write_log_entries(entries, fmt, &columns, width, csv_cells, table_cells, w)
}

fn csv_cells(e: &WriteRecord) -> Vec<String> {
    vec![
        timeparse::to_utc_rfc3339(e.at),
        e.kind.name().to_string(),
        e.who.name().to_string(),
        e.profile.clone(),
        e.host.clone(),
        e.target.clone().unwrap_or_default(),
        e.answer.summary(),
        e.answer.status.map(|s| s.to_string()).unwrap_or_default(),
        e.key.clone().unwrap_or_default(),
        e.run.clone().unwrap_or_default(),
        if e.sent.is_null() {
            String::new()
        } else {
            serde_json::to_string(&e.sent).unwrap_or_default()
        },
    ]
}

/// One row of the table (and of the dashboard's `:log`).
pub fn table_cells(e: &WriteRecord) -> Vec<String> {
    vec![
        crmdash_api::clock::get().format_seconds(e.at),
        e.kind.name().to_string(),
        e.who.name().to_string(),
        e.profile.clone(),
        e.host.clone(),
        e.target.clone().unwrap_or_default(),
        e.answer.summary(),
    ]
}
