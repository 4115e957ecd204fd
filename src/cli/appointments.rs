//! `crmdash appointments reschedule ID|LINK`: the body is built by the shared builder from the
//! configured keys (`[reschedule]`), shown and confirmed on a terminal, and logged once sent.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use chrono::Utc;

use clap::{Args, Subcommand};
use serde_json::{Map, Value};

use crate::cli::context::Ctx;
use crate::cli::exit::CliError;
use crate::cli::format;
use crate::cli::times;
use crate::journal::{self, Answer, WriteKind};
use crate::output::{Format, LogColumns, write_log_entries};
use crate::reschedule::{self, EndSpec, RescheduleError, RescheduleLogEntry, RescheduleTimes};
use crate::timeparse;

#[derive(Debug, Clone, Subcommand)]
pub enum AppointmentsCommand {
    /// Move an appointment (POST /public/v1/appointments/{id}/reschedule).
    Reschedule(RescheduleArgs),
    /// Show the reschedule log: every reschedule sent from this machine, by the CLI or the
    /// dashboard, oldest first (the table: when sent, id, new start and end, host, profile,
    /// other keys sent).
    Log(LogArgs),
}

/// `crmdash appointments log`.
#[derive(Debug, Clone, Args)]
#[command(after_help = "Examples:
  crmdash appointments log
  crmdash appointments log --last 20 --format json
  crmdash appointments log --format csv > reschedules.csv")]
pub struct LogArgs {
    /// Only the last N entries.
    #[arg(long, value_name = "N")]
    pub last: Option<usize>,
    /// Output format [default: table on a terminal, json otherwise]; jsonl is the log's own
    /// lines.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<Format>,
}

/// `crmdash appointments reschedule`.
#[derive(Debug, Clone, Args)]
#[command(after_help = reschedule_help())]
pub struct RescheduleArgs {
    /// The appointment's id, or a link that contains it.
    #[arg(value_name = "ID|LINK", required_unless_present = "plan",
          add = crate::cli::complete_names::appointments())]
    pub id: Option<String>,
    /// Move many appointments: a CSV or JSON Lines file (`-`: stdin) of `id,start[,end]` rows
    /// (see below). Every row is checked before anything is sent.
    #[arg(long, value_name = "FILE|-", conflicts_with_all = ["id", "start", "body"])]
    pub plan: Option<PathBuf>,
    /// With --plan: move every row's start (and an end given as a time) by this offset:
    /// `+1d`, `-2h`, `+1w`, `+1h30m` (days keep the clock time across a DST change).
    #[arg(
        long,
        value_name = "OFFSET",
        allow_hyphen_values = true,
        requires = "plan"
    )]
    pub shift: Option<String>,
    /// With --plan: requests in flight at once (a rate limit lowers it for a while).
    #[arg(long, short = 'j', value_name = "N", default_value_t = 8, requires = "plan",
          value_parser = clap::value_parser!(u16).range(1..=64))]
    pub jobs: u16,
    /// With --plan: show the plan (old and new times, what a re-run skips) and send nothing.
    #[arg(long, requires = "plan")]
    pub dry_run: bool,
    /// With --plan: send again the rows an interrupted run sent without getting an answer
    /// (they may have been moved already).
    #[arg(long, requires = "plan")]
    pub resend_in_doubt: bool,
    /// New start, sent under `[reschedule] start_field` (default `start_time`).
    #[arg(long, value_name = "T", allow_hyphen_values = true)]
    pub start: Option<String>,
    /// New end, sent under `[reschedule] end_field` (default `end_time`; "" in the config sends
    /// none), read as the dashboard's End field: a clock time (`10:00`) is on the start's day
    /// (the next day when it is before the start, said on stderr); `30m`, `1h`, `+1h`,
    /// `1h30m` are lengths after the start; else a time (`tomorrow 10:00`). A negative length
    /// (`-30m`), a number without a unit, or an end not after the start is refused. With
    /// --plan: the End of rows that have none.
    #[arg(long, value_name = "T|LENGTH", allow_hyphen_values = true)]
    pub end: Option<String>,
    /// A further body key; VALUE is parsed as JSON when it parses, else sent as a string.
    #[arg(long = "set", value_name = "KEY=VALUE", value_parser = crate::validate::parse_pair)]
    pub set: Vec<(String, Value)>,
    /// A JSON object merged into the body last (its keys win).
    #[arg(long, value_name = "JSON")]
    pub body: Option<String>,
    /// Send without asking (needed when stdin is not a terminal, and for a protected profile,
    /// with --profile NAME on the command line).
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Output format [default: table on a terminal, json otherwise]; with --plan, of the
    /// report (one row per plan row, then the summary).
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<Format>,
}

fn reschedule_help() -> String {
    format!(
        "Examples:\n  \
         crmdash appointments reschedule 8412 --start 'tomorrow 09:30' --end 10:00\n  \
         crmdash appointments reschedule 8412 --start 'fri 16:00' --end 1h30m --yes\n  \
         crmdash appointments reschedule https://crm.example.com/appointments/8412 --start +2h --yes\n  \
         crmdash appointments reschedule 8412 --start 2026-12-01T09:00:00Z --set reason='\"customer asked\"' --yes\n  \
         crmdash appointments reschedule 8412 --body '{{\"starts_at\": \"2026-12-01T09:00:00Z\"}}' --yes\n\n\
         The keys that carry the times are set in the config file (the seed does not name them):\n  \
         [reschedule]\n  start_field = \"start_time\"\n  end_field = \"end_time\"\n  timezone = \"local\"\n\n\
         Times without an offset are in [reschedule] timezone.\n\n{}\n{}",
        super::plan::PLAN_HELP,
        times::help()
    )
}

/// `crmdash appointments reschedule`.
pub async fn reschedule(ctx: &Ctx, args: &RescheduleArgs) -> Result<(), CliError> {
    // A dry run sends nothing: a read-only or protected profile shows it as any other.
    if !args.dry_run {
        ctx.check_write(args.yes)?;
    }
    if let Some(plan) = &args.plan {
        return super::plan::run(ctx, args, plan).await;
    }
    let typed = args.id.as_deref().unwrap_or_default();
    let id = reschedule::extract_appointment_id(typed).ok_or_else(|| {
        CliError::field(
            "id",
            format!("'{typed}' is neither an appointment id nor a link containing one"),
        )
    })?;
    let body = build(ctx, args)?;
    // Resolve the token before asking, so a confirmed change is not then refused for setup.
    let client = ctx.client().await?;
    if !args.yes {
        confirm(ctx, &id, &body)?;
    }
    let mut intent = ctx
        .intent(WriteKind::Reschedule, Value::Object(body.clone()))
        .await?;
    intent.target = Some(id.clone());
    let ticket = ctx.admit(args.yes, &intent).await?;
    let sent = client.reschedule_appointment(&ticket, &id, &body).await;
    // Every admitted write is answered in the journal (a request that surely did not leave as
    // failed), so only a process that ended in between leaves it in doubt.
    let answer = match &sent {
        Ok(a) => Answer {
            updated_at: a.updated_at.as_ref().map(|t| t.raw().to_string()),
            ..Answer::accepted(200)
        },
        Err(e) => Answer::failed(e),
    };
    let mut entry = ctx
        .write_record(WriteKind::Reschedule, Value::Object(body.clone()), answer)
        .await?
        .answering(ticket.id());
    entry.target = Some(id.clone());
    journal::record_or_warn(ctx.journal_path().as_deref(), &entry);
    let appointment = sent.map_err(|mut e| {
        if e.outcome_unknown {
            e.message = format!(
                "{}; the appointment may have been moved: check it before sending again",
                e.message
            );
        }
        e
    })?;
    let entry = RescheduleLogEntry {
        id: id.clone(),
        profile: ctx.profile().await?.to_string(),
        // The dashboard's spelling: host and port (`127.0.0.1:39639`), so both tell instances
        // apart alike in the shared log.
        host: crate::config::host_label(client.base_url().as_str()),
        body: body.clone(),
        updated_at: appointment.updated_at.as_ref().map(|t| t.raw().to_string()),
        at: Utc::now(),
    };
    match log_path(ctx.demo()) {
        Some(path) => {
            if let Err(e) = reschedule::append_log(&path, &entry) {
                crmdash_domain::say!(
                    "warning: could not write the reschedule log {}: {e}",
                    path.display()
                );
            }
        }
        None => crmdash_domain::say!("warning: no data directory for the reschedule log"),
    }
    format::print_one(&appointment, format::resolve(args.format, ctx.tty))
}

/// The body: the times under the configured keys (in UTC, `...Z`, as the dashboard sends
/// them) with the `--set` keys, then `--body` merged last. Every problem exits 5 before
/// anything is sent. A clock-time `--end` that lands on the day after the start says so on
/// stderr.
fn build(ctx: &Ctx, args: &RescheduleArgs) -> Result<Map<String, Value>, CliError> {
    let settings = &ctx.settings.reschedule;
    let zone = times::zone_named(ctx.settings.reschedule_zone())?;
    let now = Utc::now();
    let start = times::opt_zoned("start", &args.start, &zone)?;
    let end = match &args.end {
        Some(text) => Some(
            reschedule::parse_end(text, &zone, now)
                .map_err(|e| CliError::field("end", format!("--end: {e}")))?,
        ),
        None => None,
    };
    let extra: Map<String, Value> = args.set.iter().cloned().collect();
    let mut body = match (start, end) {
        (Some(start), end) => {
            let end = end.unwrap_or(EndSpec::None);
            let times = RescheduleTimes::new(start, end, &zone).map_err(body_error)?;
            if let Some(note) = reschedule::ends_next_day(&times, end, &zone) {
                crmdash_domain::say!("note: the appointment {note}");
            }
            reschedule::build_body(&times, settings, &extra).map_err(body_error)?
        }
        (None, Some(_)) => return Err(CliError::field("end", "--end needs --start")),
        (None, None) => extra,
    };
    if let Some(text) = &args.body {
        body.extend(parse_body(text)?);
    }
    if body.is_empty() {
        return Err(CliError::invalid(
            "nothing to send: give --start, --set or --body",
        ));
    }
    Ok(body)
}

fn body_error(e: RescheduleError) -> CliError {
    match e {
        RescheduleError::NoStartField | RescheduleError::SameFields(_) => {
            CliError::other(format!("config file: {e}"))
        }
        RescheduleError::EndNotAfterStart { .. } | RescheduleError::EndTime(_) => {
            CliError::field("end", e.to_string())
        }
        RescheduleError::ExtraOverridesTime { .. } => CliError::field("set", e.to_string()),
        RescheduleError::OutOfRange => CliError::field("start", e.to_string()),
    }
}

/// The reschedule log: one JSON Lines file in crmdash's data directory, shared with the
/// dashboard (a `--demo` run's own in its folder).
pub fn log_path(demo: bool) -> Option<PathBuf> {
    crate::reschedule::log::path(demo)
}

/// `crmdash appointments log`: the shared log in a format. Table: when it was sent, the
/// appointment, the new start and end (read under `[reschedule] start_field` / `end_field`,
/// in `[reschedule] timezone`; the end's day only when it differs from the start's), host,
/// profile and any other keys sent; CSV: `at,id,profile,host,updated_at,body` (the body as
/// compact JSON); JSON: an array of the log's entries; JSON Lines: one per line.
pub fn show_log(ctx: &Ctx, args: &LogArgs) -> Result<(), CliError> {
    let path = log_path(ctx.demo())
        .ok_or_else(|| CliError::other("no data directory for the reschedule log"))?;
    let entries = reschedule::read_log(&path, args.last.unwrap_or(usize::MAX)).map_err(|e| {
        CliError::other(format!(
            "cannot read the reschedule log {}: {e}",
            path.display()
        ))
    })?;
    let fmt = format::resolve(args.format, ctx.tty);
    let shown = LogShown {
        settings: &ctx.settings.reschedule,
        zone: times::zone_named(ctx.settings.display_zone())?,
    };
    let mut out = std::io::BufWriter::new(crate::output::stdout());
    let written =
        write_log(&entries, fmt, &shown, &mut out).and_then(|()| out.flush().map_err(Into::into));
    format::finish(written)
}

const LOG_COLUMNS: [&str; 6] = ["at", "id", "profile", "host", "updated_at", "body"];

/// The table's columns: the times first, then where they went.
const LOG_TABLE_COLUMNS: [&str; 7] = ["sent", "id", "start", "end", "host", "profile", "other"];

/// How the table reads an entry's times.
struct LogShown<'a> {
    settings: &'a crate::config::RescheduleSettings,
    zone: crate::timeparse::Zone,
}

fn write_log(
    entries: &[RescheduleLogEntry],
    fmt: Format,
    shown: &LogShown,
    w: &mut impl Write,
) -> Result<(), crate::output::OutputError> {
    let columns = LogColumns {
        csv: &LOG_COLUMNS,
        table: &LOG_TABLE_COLUMNS,
        keep_whole: &[0, 1, 2, 3, 4],
        priority: &[],
        zoned: &[0, 2, 3],
    };
    let width = format::table_width();
    write_log_entries(
        entries,
        fmt,
        &columns,
        width,
        log_cells,
        |e| shown.row(e),
        w,
    )
}

fn log_cells(e: &RescheduleLogEntry) -> Vec<String> {
    vec![
        timeparse::to_utc_rfc3339(e.at),
        e.id.clone(),
        e.profile.clone(),
        e.host.clone(),
        e.updated_at.clone().unwrap_or_default(),
        serde_json::to_string(&e.body).unwrap_or_default(),
    ]
}

/// A configured body key, `None` when blank.
fn log_key(k: &str) -> Option<&str> {
    Some(k.trim()).filter(|k| !k.is_empty())
}

impl LogShown<'_> {
    /// One table row: times as `2026-12-24 10:00` in the zone (a time the body holds in
    /// another shape shown as sent), the end as `10:30` on the start's day.
    fn row(&self, e: &RescheduleLogEntry) -> Vec<String> {
        let (start_text, end_text) = e.times_in(self.settings, &self.zone);
        let start_key = log_key(&self.settings.start_field);
        let end_key = log_key(&self.settings.end_field);
        let mut other = e.body.clone();
        for k in [start_key, end_key].into_iter().flatten() {
            other.remove(k);
        }
        let other = if other.is_empty() {
            String::new()
        } else {
            serde_json::to_string(&other).unwrap_or_default()
        };
        vec![
            crate::timeparse::DisplayZone::from(self.zone).format_instant(e.at),
            e.id.clone(),
            start_text,
            end_text,
            e.host.clone(),
            e.profile.clone(),
            other,
        ]
    }
}

/// `--body`: a JSON object, or exit 5.
fn parse_body(text: &str) -> Result<Map<String, Value>, CliError> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(CliError::field(
            "body",
            "--body must be a JSON object ({...})",
        )),
        Err(e) => Err(CliError::field(
            "body",
            format!("--body is not valid JSON: {e}"),
        )),
    }
}

/// Shows the body and asks on a terminal; without one, `--yes` is required.
fn confirm(ctx: &Ctx, id: &str, body: &Map<String, Value>) -> Result<(), CliError> {
    let pretty = serde_json::to_string_pretty(body).unwrap_or_default();
    if !(ctx.tty.stdin && ctx.tty.stderr) {
        return Err(CliError::Usage(format!(
            "not a terminal: pass --yes to send this body to appointment {id}: {}",
            serde_json::to_string(body).unwrap_or_default()
        )));
    }
    let mut err = std::io::stderr().lock();
    let fields = &ctx.settings.reschedule;
    let _ = writeln!(err, "Reschedule appointment {id} with this body:\n{pretty}");
    if fields.fields_are_defaults {
        let _ = writeln!(
            err,
            "(the keys {} / {} are crmdash's defaults: set [reschedule] start_field and end_field \
             in the config file to your service's names)",
            fields.start_field, fields.end_field
        );
    }
    let _ = write!(err, "Send? [y/N] ");
    let _ = err.flush();
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .map_err(|e| CliError::other(format!("cannot read the answer: {e}")))?;
    if matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
        Ok(())
    } else {
        Err(CliError::other("cancelled: nothing was sent"))
    }
}
