//! `crmdash deals report KIND`: the pipeline over time (`insights::reports`), read from the
//! local mirror and its change feed (no network unless `--sync`): the waterfall of a period,
//! time in status, velocity, the forecast and stale deals, in every output format, each with
//! its honest limits where a person reads it.

use std::io::{BufWriter, Write};

use chrono::{DateTime, Utc};
use clap::{Args, ValueEnum};

use crate::cli::cache::{self, read_error};
use crate::cli::changes::{Since, parse_since};
use crate::cli::context::Ctx;
use crate::cli::exit::{CliError, Failure, MIRROR_INCOMPLETE};
use crate::cli::format;
use crate::cli::shape::ShapeArgs;
use crate::insights::reports::{History, load::load, stale::DEFAULT_DAYS};
use crate::mirror::{Mirror, MirrorError, Resource};
use crate::output::Format;
use crate::timeparse::{self, Zone};

mod sheets;

use sheets::Report;

/// Which report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportKind {
    /// Open value at the start of the period, +created +increased −decreased −won −lost
    /// −gone, open value at its end; per currency.
    Waterfall,
    /// Per status, the median and 90th percentile of the time deals spent in it; the open
    /// deals longest in their status.
    TimeInStatus,
    /// By month and currency: won, lost, win rate, average days from first seen open to won.
    Velocity,
    /// The open value weighted by the win rate from each status, learnt from the history.
    Forecast,
    /// Open deals not updated for --days days, ranked within their currency.
    Stale,
}

/// `crmdash deals report`.
#[derive(Debug, Clone, Args)]
#[command(after_help = EXAMPLES)]
pub struct DealReportArgs {
    /// The report.
    #[arg(value_enum, value_name = "KIND")]
    pub kind: ReportKind,
    /// The period from a duration back from now (`30d`, `2w`) or a time (`2026-11-01`,
    /// RFC 3339) to now [default: waterfall 30d, velocity the whole history].
    #[arg(long, value_name = "WHEN", conflicts_with = "from")]
    pub since: Option<String>,
    /// The period's start (a time: `2026-11-01`, `yesterday`, RFC 3339).
    #[arg(long, value_name = "DATE", requires = "to")]
    pub from: Option<String>,
    /// The period's end (a time).
    #[arg(long, value_name = "DATE")]
    pub to: Option<String>,
    /// stale: days without an update.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_DAYS,
          value_parser = clap::value_parser!(u32).range(1..=3650))]
    pub days: u32,
    /// waterfall: the deals behind each term (in json nested per term; in csv and jsonl one
    /// row per deal and term instead of one per currency).
    #[arg(long)]
    pub deals: bool,
    /// The currency of deals that carry none [default: shown as "(none)"].
    #[arg(long, value_name = "CODE")]
    pub default_currency: Option<String>,
    /// table, json, jsonl or csv (default: table on a terminal, JSON otherwise).
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<Format>,
    /// Sync the mirror first (an incremental sync, or a full one when due).
    #[arg(long)]
    pub sync: bool,
    #[command(flatten)]
    pub shape: ShapeArgs,
}

pub const EXAMPLES: &str = "Examples:
  crmdash deals report waterfall --since 30d
  crmdash deals report waterfall --from 2026-10-01 --to 2026-11-01 --deals --format json
  crmdash deals report time-in-status
  crmdash deals report velocity --format csv
  crmdash deals report forecast
  crmdash deals report stale --days 30 --jq '.[] | .id'

Reports read the local mirror's deals and change feed: run `crmdash sync` (or pass --sync).
Their limits, said on each (a table's footer, stderr otherwise): the history starts at the
first sync; changes between two syncs collapse into one; amounts are not converted between
currencies. Definitions: docs/reports.md.";

/// Said first on a `--demo` report.
const DEMO_NOTE: &str =
    "demo data: the deals' history before the demo's first sync was made up by the sandbox";

/// The period a report covers, as seconds since 1970.
fn period(
    args: &DealReportArgs,
    zone: &Zone,
    now: DateTime<Utc>,
    h: &History,
) -> Result<(i64, i64), CliError> {
    let at = |flag: &str, text: &str| {
        timeparse::parse_instant(text, zone, now)
            .map(|t| t.timestamp())
            .map_err(|e| CliError::Usage(format!("{flag}: {e}")))
    };
    let to = match &args.to {
        Some(t) => at("--to", t)?,
        None => now.timestamp(),
    };
    let from = match (&args.from, &args.since) {
        (Some(f), _) => at("--from", f)?,
        (None, Some(s)) => match parse_since(s, zone, now).map_err(CliError::Usage)? {
            Since::At(t) => t.timestamp(),
            _ => return Err(CliError::Usage("--since: a duration or a time".into())),
        },
        (None, None) if args.kind == ReportKind::Waterfall => {
            (now - chrono::Duration::days(30)).timestamp()
        }
        (None, None) => h.from,
    };
    if from > to {
        return Err(CliError::Usage(format!(
            "the period ends before it starts ({} > {})",
            args.from.as_deref().or(args.since.as_deref()).unwrap_or(""),
            args.to.as_deref().unwrap_or("now")
        )));
    }
    Ok((from, to))
}

pub async fn run(ctx: &Ctx, args: &DealReportArgs) -> Result<(), CliError> {
    if args.to.is_some() && args.from.is_none() && args.since.is_none() {
        return Err(CliError::Usage("--to goes with --from or --since".into()));
    }
    let shaper = args.shape.compile(&[("--format", args.format.is_some())])?;
    let settings = &ctx.settings;
    if !settings.cache.enabled {
        return Err(cache::cli_error(MirrorError::Disabled));
    }
    let loc = if args.sync {
        crate::cli::changes::sync_quietly(ctx).await?
    } else {
        cache::location(ctx.globals(), settings)?
    };
    if args.sync
        && let Some(sandbox) = ctx.demo_sandbox().await?
    {
        let past = crate::cli::demo_history::make(&settings.cache, sandbox);
        crate::cli::demo_history::write(&loc, &past).map_err(read_error)?;
    }
    let mirror = crate::cli::changes::open(&loc, ctx.demo())?;
    // One pass over a large part of the file: read through a memory map.
    mirror.map_for_scan().map_err(read_error)?;
    let demo_past = mirror.has_demo_deal_history().map_err(read_error)?;
    let now = Utc::now();
    let history = read(
        &mirror,
        &loc.profile,
        args,
        settings.cache.history_days,
        now,
    )?;
    let zone: Zone = settings.reschedule.timezone.parse().unwrap_or_default();
    let (from, to) = period(args, &crate::cli::times::local_zone(), now, &history)?;
    let mut report = Report::build(args, &history, from, to, zone);
    if demo_past {
        report.notes.insert(0, DEMO_NOTE.to_string());
    }
    let mut out = BufWriter::with_capacity(1 << 16, crate::output::stdout());
    if let Some(shaper) = shaper {
        report.notes_to_stderr();
        let mut shaped = Vec::new();
        shaper.emit(&report.json_text(), &mut shaped)?;
        return format::finish(
            out.write_all(&shaped)
                .and_then(|()| out.flush())
                .map_err(crate::output::OutputError::from),
        );
    }
    let fmt = format::resolve(args.format, ctx.tty);
    if fmt != Format::Table {
        report.notes_to_stderr();
    }
    let written = report
        .write(fmt, &mut out)
        .and_then(|()| out.flush().map_err(crate::output::OutputError::from));
    format::finish(written)
}

/// Every deal's history, once the mirror holds a complete copy of the deals.
fn read(
    mirror: &Mirror,
    profile: &str,
    args: &DealReportArgs,
    keep_days: u32,
    now: DateTime<Utc>,
) -> Result<History, CliError> {
    let state = mirror.sync_state(Resource::Deals).map_err(read_error)?;
    if state.last_full_at.is_none() {
        return Err(Failure::new(
            MIRROR_INCOMPLETE,
            format!(
                "the local mirror of profile '{profile}' has no complete copy of the deals: run `crmdash sync deals` (or pass --sync)"
            ),
        )
        .into());
    }
    load(
        mirror,
        args.default_currency.as_deref(),
        Some(keep_days),
        now.timestamp(),
    )
    .map_err(read_error)
}
