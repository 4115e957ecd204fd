//! `crmdash contacts import FILE.csv`: the seed's migration case, at migration scale. The file
//! is read as a stream, twice: first every row is validated (nothing is sent while a row is
//! bad), then rows go out with `--jobs` requests in flight, through a gate a rate limit narrows.
//! Duplicates inside the file are decided in file order; emails the service has are skipped;
//! each row's Idempotency-Key is stable (from `--key-column` or the row's content), so a re-run,
//! or two runs at once, never create a contact twice. The report comes in file order, whatever
//! the order answers arrive in.

pub(crate) mod decide;
pub(crate) mod engine;
mod layout;
pub(crate) mod near;
mod read;
pub(crate) mod report;
pub(crate) mod send;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use clap::Args;

use crate::api::Observer;
use crate::cli::context::Ctx;
use crate::cli::exit::{CliError, Failure, NETWORK};
use crate::cli::verbose;
use crate::output::Format;

pub use engine::{Halt, ImportOptions};
pub use layout::{Layout, normalize_header, parse_delimiter, parse_map};
pub use near::DupesPolicy;
pub use report::{Counts, Outcome};
pub use send::ExistingBy;

use crate::api::Governor;
use decide::check_file;
use report::Reporter;
use send::Sender;

/// `crmdash contacts import`.
#[derive(Debug, Clone, Args)]
#[command(after_help = IMPORT_EXAMPLES)]
pub struct ImportArgs {
    /// CSV with a header row. Columns named like first_name, last_name, email, phone (any
    /// case; spaces, dashes, underscores or dots alike) map onto the contact, and so do common
    /// names for them (Given Name, Surname, Email Address, Mobile, Phone Number; Full Name is
    /// split into first and last name); the others are sent as further keys (unless
    /// --only-known).
    #[arg(value_name = "FILE.csv")]
    pub file: PathBuf,
    /// A column for a contact field, where its header is not a name crmdash knows:
    /// HEADER=FIELD, FIELD one of first_name, last_name, email, phone, full_name
    /// (repeatable; wins over the names crmdash would map by itself).
    #[arg(long = "map", value_name = "HEADER=FIELD", value_parser = layout::parse_map)]
    pub map: Vec<(String, String)>,
    /// Column holding an external id: each row's Idempotency-Key derives from it
    /// [default: a hash of the row's content].
    #[arg(long, value_name = "COL")]
    pub key_column: Option<String>,
    /// Ignore columns other than first_name, last_name, email, phone.
    #[arg(long)]
    pub only_known: bool,
    /// Report what the import would do, row by row (duplicates in the file and on the
    /// service included); create nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Confirm an import into a protected profile (needs --profile NAME on the command line
    /// too).
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Create rows whose email already exists, on the service or earlier in the file
    /// (by default they are skipped).
    #[arg(long)]
    pub allow_duplicate: bool,
    /// Column separator: one character or `tab` [default: detected from the header line
    /// among ',' ';' and tab].
    #[arg(long, value_name = "C", value_parser = parse_delimiter)]
    pub delimiter: Option<u8>,
    /// Requests in flight at once (a rate limit lowers it for a while).
    #[arg(long, short = 'j', value_name = "N", default_value_t = 8,
          value_parser = clap::value_parser!(u16).range(1..=64))]
    pub jobs: u16,
    /// How emails the service already has are found: search (a look-up per row), scan (list
    /// every contact once, first), auto (scan when that takes fewer than half the requests).
    #[arg(long, value_enum, value_name = "HOW", default_value_t = ExistingBy::Auto)]
    pub existing: ExistingBy,
    /// Rows that look like an earlier row or a contact in the local mirror (a typo, another
    /// phone format, swapped names: see `crmdash contacts dupes`): skip them, warn (create
    /// and name the look-alike in the report) or create without looking.
    #[arg(long, value_enum, value_name = "WHAT", default_value_t = DupesPolicy::Warn)]
    pub dupes: DupesPolicy,
    /// The per-row report: table (one line per row, then the summary), json (rows and
    /// summary), csv (rows; the summary on stderr).
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = Format::Table)]
    pub format: Format,
}

impl ImportArgs {
    /// The options the engine takes.
    pub fn options(&self) -> ImportOptions {
        ImportOptions {
            map: self.map.clone(),
            key_column: self.key_column.clone(),
            only_known: self.only_known,
            allow_duplicate: self.allow_duplicate,
            delimiter: self.delimiter,
            jobs: usize::from(self.jobs),
            existing: self.existing,
            dupes: self.dupes,
        }
    }
}

const IMPORT_EXAMPLES: &str = "\
Examples:
  crmdash contacts import people.csv --dry-run
  crmdash contacts import people.csv --key-column external_id --jobs 16
  crmdash contacts import export.csv --map 'Handy=phone' --map 'Kontakt=full_name'
  crmdash contacts import people.csv --only-known --allow-duplicate --format csv > report.csv
  crmdash contacts import people.csv --dry-run --dupes skip

The file (RFC 4180, UTF-8, header row; separator ',' ';' or tab):
  external_id,First Name,last_name,EMAIL,phone,source
  17,Ada,Lovelace,ada@example.com,+44 20 7946 0000,fair-2026

Re-running the same command is safe: rows already created are skipped or replayed, never
created twice. On a terminal a progress line shows rows done, created, skipped, failed, the
rate and the time left; piped, only the report is written.";

/// Transient failures in a row after which the import stops (the service is down, or the
/// link): the rest would only fail the same way, slowly.
pub(crate) const MAX_FAILURE_STREAK: u32 = 20;

/// Said by a request refused because the import stopped.
pub(crate) const STOPPED: &str = "not sent: the import stopped";

/// `crmdash contacts import`.
pub async fn run(ctx: &Ctx, args: &ImportArgs) -> Result<(), CliError> {
    // Before the file is read: a read-only or protected profile refuses the whole import (a
    // dry run writes nothing and may look).
    if !args.dry_run {
        ctx.check_write(args.yes)?;
    }
    let opts = args.options();
    let layout = opts.layout(&args.file)?;
    announce(&layout);
    let checked = {
        let layout = layout.clone();
        let allow = args.allow_duplicate;
        tokio::task::spawn_blocking(move || check_file(&layout, allow))
            .await
            .map_err(|e| CliError::other(format!("reading the file stopped: {e}")))??
    };
    let jobs = opts.jobs;
    let gov = Arc::new(Governor::new(jobs));
    let stop = Arc::new(AtomicBool::new(false));
    let client = ctx.client().await?.clone();
    let sender = Sender {
        client: client.with_observer(observer(gov.clone(), ctx.verbosity())),
        gov: gov.clone(),
        jobs,
        dry_run: args.dry_run,
        stop: stop.clone(),
        mirror: if args.dry_run {
            None
        } else {
            crate::cli::cache::CreatedSink::open(ctx).await
        },
        journal: if args.dry_run {
            None
        } else {
            let template = ctx
                .write_record(
                    crate::journal::WriteKind::Import,
                    serde_json::Value::Null,
                    crate::journal::Answer::default(),
                )
                .await?;
            let gate = ctx.gatekeeper(args.yes).await?;
            ctx.journal_path().map(|path| send::RowJournal {
                path,
                template,
                gate,
                file: args
                    .file
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            })
        },
    };
    let mut reporter = Reporter::new(
        args.format,
        args.dry_run,
        checked.rows,
        ctx.tty.stderr,
        ctx.tty.stdout,
    );
    let known = {
        let on_page = |done: u64, total: u64| {
            reporter.note(format!(
                "scanning the service's contacts: page {done}/{total}"
            ));
        };
        engine::known(&sender, &opts, &checked.emails, &on_page).await?
    };
    drop(checked.emails);
    let near = if args.dupes == DupesPolicy::Create {
        std::collections::HashMap::new()
    } else {
        let mirrored = near::mirror_people(ctx).await.unwrap_or_else(|why| {
            // Said on a terminal only: a script's stderr keeps to errors and warnings.
            if ctx.tty.stderr {
                crmdash_domain::say!(
                    "note: near duplicates are looked for within the file only: {why}"
                );
            }
            Vec::new()
        });
        let finder = crate::insights::dupes::mirrored::Finder::of(&ctx.settings);
        let rows = checked.people;
        let dupes = args.dupes;
        tokio::task::spawn_blocking(move || engine::near_of(dupes, rows, mirrored, &finder))
            .await
            .map_err(|e| CliError::other(format!("looking for near duplicates stopped: {e}")))?
    };
    reporter.start();

    let ended = engine::send_all(layout, &sender, &known, &near, &opts, false, |row| {
        reporter.row(&row.report, gov.status().1)
    })
    .await;
    let counts = reporter.finish(checked.rows.saturating_sub(ended.reported));
    let limited = gov.times_rate_limited();
    if limited > 0 && ctx.tty.stderr {
        crmdash_domain::say!(
            "note: the service rate-limited the import {}; it slowed down and no row failed for it",
            report::plural(limited, "time", "times")
        );
    }
    ended.read?;
    match ended.halt {
        Some(Halt::Refused(e)) => return Err(CliError::Api(e)),
        Some(Halt::Streak(e)) => {
            return Err(CliError::Coded(Failure::new(
                NETWORK,
                format!(
                    "stopped after {MAX_FAILURE_STREAK} rows in a row failed (the last: {}); re-run the same command to finish: rows already created are not duplicated",
                    e.summary()
                ),
            )));
        }
        None => {}
    }
    if counts.failed > 0 {
        let message = format!(
            "{} of {} failed (re-run the same command to retry them: rows already created are not duplicated)",
            counts.failed,
            report::plural(counts.rows, "row", "rows")
        );
        return Err(if counts.rejected > 0 {
            CliError::invalid(message)
        } else {
            CliError::Coded(Failure::new(NETWORK, message))
        });
    }
    Ok(())
}

/// Says, before anything is sent, which columns are not the seed's fields and what becomes of
/// them, and which separator was detected when it is not a comma.
fn announce(layout: &Layout) {
    let lines: Vec<String> = engine::column_notes(layout)
        .into_iter()
        .map(|l| format!("note: {l}"))
        .collect();
    if !lines.is_empty() {
        let _ = std::io::Write::write_fmt(
            &mut crate::output::stderr(),
            format_args!("{}\n", lines.join("\n")),
        );
    }
}

/// Rate limits seen while the client retries reach the governor at once (not only after the
/// client gives up); `-v` output goes on as usual.
fn observer(gov: Arc<Governor>, verbosity: u8) -> Observer {
    crate::api::governor::observer(gov, verbose::observer(verbosity))
}
