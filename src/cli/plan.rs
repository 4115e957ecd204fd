//! `crmdash appointments reschedule --plan FILE|-`: many appointments moved at once. Every
//! row is read and checked first (nothing is sent while one is bad), the plan is shown and
//! confirmed, then the rows go out concurrently under the import's rate-aware governor, with
//! a progress bar on a terminal and a report per row; the run journal makes a re-run after
//! Ctrl-C or a crash send only what is not done (see [`crate::reschedule::plan::journal`]).

mod report;

use std::io::{BufRead, Read, Write};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use chrono::Utc;

use crate::cli::appointments::{RescheduleArgs, log_path};
use crate::cli::context::Ctx;
use crate::cli::exit::{CliError, Failure, IN_DOUBT, NETWORK};
use crate::cli::{format, times, verbose};
use crate::output::{Format, TableShape, TableWriter};
use crate::reschedule::plan::journal::Journal;
use crate::reschedule::plan::preview::{self, PreviewRow};
use crate::reschedule::plan::run::Runner;
use crate::reschedule::plan::{Plan, PlanOptions};
use serde_json::Value;

use report::Reporter;

/// The plan part of `appointments reschedule --help`.
pub const PLAN_HELP: &str = "\
A plan (--plan FILE, or - for stdin) is CSV or JSON Lines, one appointment a row:
  id,start,end                       (the header is optional; # starts a comment)
  apt_000017,mon 09:00,09:30
  apt_000018,2026-12-07 10:00,45m
  apt_000019,2026-12-07 11:00        (no end: --end's, else the service keeps the length)
  {\"id\": \"apt_000020\", \"start\": \"2026-12-07 14:00\", \"end\": \"15:00\"}
Start and end read like --start and --end; --shift +1d moves every row, --end 30m
gives rows without an end a length, --set KEY=VALUE goes with every row. A re-run
sends only the rows not done yet.
  crmdash appointments reschedule --plan monday.csv --shift +1d --end 30m
  crmdash appointments reschedule --plan monday.csv --dry-run
  crmdash appointments reschedule --plan - --yes < monday.jsonl";

/// Reads, checks, shows, confirms and sends a plan.
pub async fn run(ctx: &Ctx, args: &RescheduleArgs, path: &Path) -> Result<(), CliError> {
    let text = read_plan(path)?;
    let settings = &ctx.settings.reschedule;
    let zone = times::zone_named(ctx.settings.reschedule_zone())?;
    let opts = PlanOptions {
        shift: args.shift.clone(),
        default_end: args.end.clone(),
        extra: args.set.iter().cloned().collect(),
    };
    let plan = Plan::parse(&text, &opts, settings, &zone, Utc::now()).map_err(CliError::invalid)?;
    if !plan.bad.is_empty() {
        let n = plan.bad.len();
        return Err(CliError::Invalid {
            message: format!(
                "{n} bad {} in the plan: nothing was sent (fix {} and run it again)",
                if n == 1 { "row" } else { "rows" },
                if n == 1 { "it" } else { "them" },
            ),
            fields: plan
                .bad
                .iter()
                .map(|b| (format!("line {}", b.line), b.message.clone()))
                .collect(),
        });
    }
    // The token before asking, so a confirmed plan is not then refused for setup.
    let mut client = ctx.client().await?.clone();
    if let Some(v) = verbose::observer(ctx.verbosity()) {
        client = client.with_observer(v);
    }
    let host = crate::config::host_label(client.base_url().as_str());
    let journal_path = Journal::default_path(ctx.demo())
        .ok_or_else(|| CliError::other("no data directory for the plan's run journal"))?;
    let journal = Journal::open(&journal_path, &host).map_err(|e| {
        CliError::other(format!(
            "cannot read the run journal {}: {e}",
            journal_path.display()
        ))
    })?;
    let log = log_path(ctx.demo())
        .and_then(|p| crate::reschedule::read_log(&p, usize::MAX).ok())
        .unwrap_or_default();
    let rows = preview::preview(
        &plan,
        &journal,
        &log,
        &host,
        settings,
        &zone,
        args.resend_in_doubt,
    );
    if args.dry_run {
        // Table or JSON by the same rule as the run's report (a terminal, or `--format`).
        let mut out = crate::output::stdout();
        let fmt = format::resolve(args.format, ctx.tty);
        let written = match fmt {
            Format::Table => show(&rows, &zone, &mut out).map_err(Into::into),
            _ => dry_run_records(&plan.rows, &rows, fmt, &mut out),
        };
        return format::finish(written.and_then(|()| out.flush().map_err(Into::into)));
    }
    if !args.yes {
        confirm(ctx, &rows, &zone, path)?;
    } else if ctx.tty.stderr {
        crmdash_domain::say!("{}", preview::sentence(&rows));
    }

    let stop = Arc::new(AtomicBool::new(false));
    let interrupted = Arc::new(AtomicBool::new(false));
    let watcher = tokio::spawn(watch_interrupt(stop.clone(), interrupted.clone()));
    let runner = Runner {
        client,
        jobs: usize::from(args.jobs),
        journal: Arc::new(journal),
        log_path: log_path(ctx.demo()),
        write_journal: ctx.journal_path(),
        run_id: format!("plan-{}", uuid::Uuid::new_v4()),
        profile: ctx.profile().await?.to_string(),
        stop,
        resend_in_doubt: args.resend_in_doubt,
        who: crate::journal::Who::Cli,
        gate: ctx.gatekeeper(args.yes).await?,
    };
    let fmt = format::resolve(args.format, ctx.tty);
    let mut reporter = Reporter::new(fmt, plan.rows.len() as u64, ctx.tty, &zone);
    reporter.start();
    let times: std::collections::HashMap<String, _> =
        plan.rows.iter().map(|r| (r.id.clone(), r.times)).collect();
    let end = runner
        .run(plan.rows, |r| {
            let t = times.get(&r.id).copied();
            reporter.row(&r, t);
        })
        .await;
    watcher.abort();
    let counts = reporter.finish();
    if end.rate_limited > 0 && ctx.tty.stderr {
        crmdash_domain::say!(
            "note: the service rate-limited the plan {} {}; it slowed down and no row failed for it",
            end.rate_limited,
            if end.rate_limited == 1 {
                "time"
            } else {
                "times"
            }
        );
    }
    if let Some(e) = end.fatal {
        return Err(CliError::Api(e));
    }
    if interrupted.load(Ordering::Relaxed) {
        return Err(CliError::Coded(Failure::new(
            130,
            format!(
                "interrupted: {} not sent; run the same command again to send them (rows done are not sent twice)",
                counts.plural(counts.not_sent)
            ),
        )));
    }
    if let Some(e) = end.streak {
        return Err(CliError::Coded(Failure::new(
            NETWORK,
            format!(
                "stopped after {} rows in a row failed (the last: {}); run the same command again to finish",
                crate::reschedule::plan::run::MAX_FAILURE_STREAK,
                e.summary()
            ),
        )));
    }
    if counts.failed > 0 {
        let message = format!(
            "{} of {} failed (a re-run sends them again; rows done are not sent twice)",
            counts.failed,
            counts.plural(counts.rows)
        );
        return Err(if counts.rejected > 0 {
            CliError::invalid(message)
        } else {
            CliError::Coded(Failure::new(NETWORK, message))
        });
    }
    if counts.in_doubt > 0 {
        return Err(CliError::Coded(Failure::new(
            IN_DOUBT,
            format!(
                "{} in doubt: sent by a run that stopped before the answer, so maybe moved; not sent again (check them, then --resend-in-doubt)",
                counts.plural(counts.in_doubt)
            ),
        )));
    }
    Ok(())
}

/// The plan's text: a file, or stdin for `-`.
fn read_plan(path: &Path) -> Result<String, CliError> {
    let mut text = String::new();
    let read = if path.as_os_str() == "-" {
        std::io::stdin()
            .lock()
            .read_to_string(&mut text)
            .map(|_| ())
    } else {
        std::fs::File::open(path).and_then(|mut f| f.read_to_string(&mut text).map(|_| ()))
    };
    read.map_err(|e| {
        let name = if path.as_os_str() == "-" {
            "stdin".to_string()
        } else {
            path.display().to_string()
        };
        CliError::other(format!("cannot read the plan {name}: {e}"))
    })?;
    Ok(text)
}

/// The dry run for a program: per row its line, the appointment, the exact body it would send
/// (or why it would not be sent) and the preview's note. JSON (an array), JSON Lines or CSV.
fn dry_run_records(
    plan: &[crate::reschedule::plan::PlanRow],
    rows: &[PreviewRow],
    fmt: Format,
    w: &mut impl Write,
) -> Result<(), crate::output::OutputError> {
    let records: Vec<Value> = plan
        .iter()
        .zip(rows)
        .map(|(p, r)| {
            serde_json::json!({
                "line": p.line,
                "id": p.id,
                "send": r.skip.is_none(),
                "skip": r.skip.map(|o| o.name()),
                "body": p.body,
                "note": (!r.note.is_empty()).then_some(&r.note),
            })
        })
        .collect();
    match fmt {
        Format::Jsonl => {
            for r in &records {
                writeln!(w, "{r}")?;
            }
        }
        Format::Csv => {
            let mut out = crate::output::csv_writer(w);
            out.write_record(["line", "id", "send", "skip", "body", "note"])?;
            for r in &records {
                let text = |k: &str| match &r[k] {
                    Value::Null => String::new(),
                    Value::String(s) => s.clone(),
                    v => v.to_string(),
                };
                out.write_record([
                    text("line"),
                    text("id"),
                    text("send"),
                    text("skip"),
                    text("body"),
                    text("note"),
                ])?;
            }
            out.flush()?;
        }
        _ => serde_json::to_writer_pretty(&mut *w, &records)
            .map_err(std::io::Error::from)
            .and_then(|()| writeln!(w))?,
    }
    Ok(())
}

/// The preview table and its summary line. What it previews stays when the width runs short:
/// the new start, the new end and the note, then the id; the line and the old times give way.
fn show(
    rows: &[PreviewRow],
    zone: &crate::timeparse::Zone,
    w: &mut impl Write,
) -> std::io::Result<()> {
    let names: Vec<String> = preview::COLUMNS.iter().map(|s| s.to_string()).collect();
    let mut t = TableWriter::new(
        TableShape::named(&names)
            .keep_whole(&[0, 1, 4, 5])
            // line, id, old start, old end, new start, new end, note
            .prioritised(&[5, 7, 3, 2, 9, 9, 8]),
        format::table_width(),
    );
    t.rows(rows.iter().map(PreviewRow::cells).collect(), w)?;
    t.finish(w)?;
    writeln!(
        w,
        "{} (times in {})",
        preview::sentence(rows),
        zone.describe()
    )
}

/// Shows the plan on stderr and asks on the terminal (stdin, or /dev/tty when the plan
/// comes on stdin); without a terminal, `--yes` is required.
fn confirm(
    ctx: &Ctx,
    rows: &[PreviewRow],
    zone: &crate::timeparse::Zone,
    path: &Path,
) -> Result<(), CliError> {
    let from_stdin = path.as_os_str() == "-";
    let mut answer_from: Box<dyn BufRead> = if ctx.tty.stdin && ctx.tty.stderr && !from_stdin {
        Box::new(std::io::stdin().lock())
    } else {
        match std::fs::File::open("/dev/tty") {
            Ok(tty) if ctx.tty.stderr => Box::new(std::io::BufReader::new(tty)),
            _ => {
                return Err(CliError::Usage(format!(
                    "not a terminal: pass --yes to send this plan ({}), or --dry-run to see it",
                    preview::sentence(rows)
                )));
            }
        }
    };
    let mut err = std::io::stderr().lock();
    let _ = show(rows, zone, &mut err);
    if ctx.settings.reschedule.fields_are_defaults {
        let _ = writeln!(
            err,
            "(the keys {} / {} are crmdash's defaults: set [reschedule] start_field and end_field \
             in the config file to your service's names)",
            ctx.settings.reschedule.start_field, ctx.settings.reschedule.end_field
        );
    }
    let to_send = rows.iter().filter(|r| r.skip.is_none()).count();
    if to_send == 0 {
        let _ = writeln!(err, "nothing to send");
        return Ok(());
    }
    let _ = write!(err, "Reschedule {to_send} appointments? [y/N] ");
    let _ = err.flush();
    let mut answer = String::new();
    answer_from
        .read_line(&mut answer)
        .map_err(|e| CliError::other(format!("cannot read the answer: {e}")))?;
    if matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
        Ok(())
    } else {
        Err(CliError::other("cancelled: nothing was sent"))
    }
}

/// Ctrl-C (or SIGTERM) once: no new request goes out, those under way finish and are
/// recorded; twice: quit at once (rows under way are then in doubt).
async fn watch_interrupt(stop: Arc<AtomicBool>, interrupted: Arc<AtomicBool>) {
    let _ = tokio::signal::ctrl_c().await;
    stop.store(true, Ordering::Relaxed);
    interrupted.store(true, Ordering::Relaxed);
    crmdash_domain::say!(
        "\nstopping: no new request goes out; those under way finish (Ctrl-C again to quit now)"
    );
    let _ = tokio::signal::ctrl_c().await;
    std::process::exit(130);
}
