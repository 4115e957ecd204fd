//! `crmdash watch`: syncs every `--every` and hands each new change on, as a JSON line on
//! stdout or to a program (`--exec PROGRAM ARGS…`: the change as JSON on its stdin, its id,
//! resource, kind and fields in environment variables; argv is exactly what was typed, never
//! built from field values, never through a shell). The cursor moves past a change only once
//! it was delivered, so a failing program sees it again next round and nothing is lost.
//! A rate limit waits what the service asks; a service that is down is retried less and less
//! often (up to [`MAX_BACKOFF`]); Ctrl-C or SIGTERM stops it between two steps.

use std::io::Write;
use std::time::Duration;

use chrono::Utc;
use tokio::io::AsyncWriteExt;

use crate::api::ErrorKind;
use crate::cli::changes::{open, sync_setup};
use crate::cli::context::Ctx;
use crate::cli::exit::CliError;
use crate::insights::changes::json_line;
use crate::mirror::{ChangeKind, ChangeQuery, MirrorError, RecordChange};
use crate::resource::Resource;

/// The cursor `watch` keeps when `--cursor` names none (apart from `changes`' own).
pub const WATCH_CURSOR: &str = "watch";
/// The longest wait between two rounds while the service is down.
pub const MAX_BACKOFF: Duration = Duration::from_secs(15 * 60);

#[derive(Debug, Clone, clap::Args)]
pub struct WatchArgs {
    /// How often to sync: 30s, 1m, 5m, 1h (at least 5s).
    #[arg(long, value_name = "PERIOD", default_value = "1m", value_parser = parse_every)]
    pub every: Duration,
    /// The cursor that remembers what was delivered (default: `watch`). A new cursor starts
    /// at the changes already stored: only what changes from now on is delivered.
    #[arg(long, value_name = "NAME")]
    pub cursor: Option<String>,
    /// Only this resource (repeatable).
    #[arg(long = "type", value_enum, value_name = "RESOURCE")]
    pub types: Vec<Resource>,
    /// Only changes of this field (a dotted path; `consent` covers `consent.email`).
    #[arg(long, value_name = "FIELD")]
    pub field: Option<String>,
    /// Only this kind of change (repeatable).
    #[arg(long, value_enum, value_name = "KIND")]
    pub kind: Vec<ChangeKind>,
    /// How long an --exec program may take over one change: one still running then is
    /// killed, said on stderr and given the same change again next round.
    #[arg(long, value_name = "PERIOD", default_value = "60s", value_parser = parse_exec_timeout)]
    pub exec_timeout: Duration,
    /// Run PROGRAM with ARGS once per change (everything after --exec is its command line).
    #[arg(
        long,
        value_name = "PROGRAM ARGS",
        num_args = 1..,
        allow_hyphen_values = true,
        trailing_var_arg = true
    )]
    pub exec: Vec<String>,
}

pub const EXAMPLES: &str = "Examples:
  crmdash watch
  crmdash watch --every 5m --type deals --field status
  crmdash watch --exec notify-send 'CRM change'
  crmdash watch --cursor slack --exec ./post-to-slack.sh

Each change is a JSON object {\"seq\", \"at\", \"resource\", \"id\", \"kind\", \"fields\"} (as in
`crmdash changes --format jsonl`). Without --exec it is printed on stdout, one a line. With
--exec the program gets it on stdin and in its environment CRMDASH_CHANGE_SEQ,
CRMDASH_CHANGE_ID, CRMDASH_CHANGE_RESOURCE, CRMDASH_CHANGE_KIND and CRMDASH_CHANGE_FIELDS
(the changed fields' paths, comma separated); its stdout and stderr are watch's. A program
that fails is said on stderr and given the same change again next round; later changes wait
for it, so they arrive in order. A program still running after --exec-timeout (default 60s) is
killed and counts as failed, so a hung program cannot stall the feed. The token is never in the
program's environment.";

/// Reads `--every` with the time grammar's lengths (`30s`, `1m`, `1h30m`), at least 5s.
pub fn parse_every(text: &str) -> Result<Duration, String> {
    let period = crate::timeparse::parse_period(text)?;
    if period < chrono::TimeDelta::seconds(5) {
        return Err("the period is at least 5s".to_string());
    }
    period.to_std().map_err(|e| e.to_string())
}

/// Reads `--exec-timeout` with the same grammar (`30s`, `2m`), at least 1s.
pub fn parse_exec_timeout(text: &str) -> Result<Duration, String> {
    let period = crate::timeparse::parse_period(text)?;
    if period < chrono::TimeDelta::seconds(1) {
        return Err("the timeout is at least 1s".to_string());
    }
    period.to_std().map_err(|e| e.to_string())
}

/// How long to wait before the next round after a failed sync: what a rate limit asks (at
/// least the period), else the period doubled for each failure in a row, up to
/// [`MAX_BACKOFF`]. `None` when the failure will not pass by waiting.
pub fn backoff(e: &MirrorError, failures: u32, every: Duration) -> Option<Duration> {
    let doubled = every
        .saturating_mul(1u32 << failures.min(10))
        .min(MAX_BACKOFF.max(every));
    match e {
        MirrorError::Api(a) if a.kind == ErrorKind::RateLimited => {
            Some(a.retry_after.unwrap_or(doubled).max(every))
        }
        MirrorError::Api(a) if !a.is_transient() => None,
        _ => Some(doubled),
    }
}

pub async fn run(ctx: &Ctx, args: &WatchArgs) -> Result<(), CliError> {
    if !ctx.settings.cache.enabled {
        return Err(crate::cli::cache::cli_error(MirrorError::Disabled));
    }
    let cursor = args.cursor.as_deref().unwrap_or(WATCH_CURSOR).to_string();
    let mut stop = Box::pin(crate::cli::sync::stop_signal());
    // Where a new cursor starts: after what is stored before the first sync.
    let start = match crate::cli::cache::location(ctx.globals(), &ctx.settings) {
        Ok(loc) => open(&loc, ctx.demo())
            .ok()
            .map(|m| m.last_change_seq())
            .transpose()
            .map_err(crate::cli::cache::read_error)?,
        Err(_) => None,
    };
    let mut failures = 0u32;
    let mut started = false;
    let (client, loc, opts) = sync_setup(ctx).await?;
    loop {
        let synced = tokio::select! {
            r = crate::mirror::sync::sync(client, &loc, &opts, &|_| {}) => r,
            _ = &mut stop => return stopped(),
        };
        let wait = match synced {
            Ok(_) => {
                failures = 0;
                let mirror = open(&loc, ctx.demo())?;
                if !started && mirror.cursor(&cursor).map_err(err)?.is_none() {
                    mirror
                        .set_cursor(&cursor, start.unwrap_or(0), Utc::now())
                        .map_err(err)?;
                }
                started = true;
                deliver(&mirror, &cursor, args).await?;
                args.every
            }
            Err(e) => match backoff(&e, failures, args.every) {
                Some(wait) => {
                    failures += 1;
                    // The service's own words: through the terminal filter.
                    let _ = writeln!(
                        crate::output::stderr(),
                        "watch: sync failed ({e}); next try in {}",
                        humantime(wait)
                    );
                    wait
                }
                None => return Err(err(e)),
            },
        };
        tokio::select! {
            _ = tokio::time::sleep(wait) => {}
            _ = &mut stop => return stopped(),
        }
    }
}

fn err(e: MirrorError) -> CliError {
    crate::cli::cache::cli_error(e)
}

fn stopped() -> Result<(), CliError> {
    crmdash_domain::say!("watch: stopped");
    Ok(())
}

fn humantime(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 60 && s.is_multiple_of(60) {
        format!("{} min", s / 60)
    } else {
        format!("{s} s")
    }
}

/// Hands on every change after the cursor, in order, moving the cursor past each one
/// delivered; stops at the first the program fails on (it is tried again next round).
async fn deliver(
    mirror: &crate::mirror::Mirror,
    cursor: &str,
    args: &WatchArgs,
) -> Result<(), CliError> {
    let after = mirror.cursor(cursor).map_err(err)?.map_or(0, |c| c.seq);
    let last = mirror.last_change_seq().map_err(err)?;
    let changes = mirror
        .changes(&ChangeQuery {
            after_seq: Some(after),
            resources: args.types.clone(),
            kinds: args.kind.clone(),
            field: args.field.clone(),
            ..ChangeQuery::default()
        })
        .map_err(err)?;
    for c in &changes {
        let line = json_line(c);
        let delivered = match args.exec.split_first() {
            Some((program, rest)) => run_program(program, rest, c, &line, args.exec_timeout).await,
            None => {
                let mut out = crate::output::stdout();
                writeln!(out, "{line}")
                    .and_then(|()| out.flush())
                    .map_err(|e| format!("cannot write the output: {e}"))
            }
        };
        match delivered {
            Ok(()) => mirror.set_cursor(cursor, c.seq, Utc::now()).map_err(err)?,
            Err(why) if args.exec.is_empty() => return Err(CliError::other(why)),
            Err(why) => {
                let _ = writeln!(
                    crate::output::stderr(),
                    "watch: change {} ({} {} {}): {why}; it is tried again next round",
                    c.seq,
                    c.resource.singular(),
                    c.id,
                    c.kind.word()
                );
                return Ok(());
            }
        }
    }
    // Changes filtered out were passed over on purpose.
    mirror.set_cursor(cursor, last, Utc::now()).map_err(err)
}

/// Runs the program for one change: the JSON on stdin, the facts in its environment.
async fn run_program(
    program: &str,
    args: &[String],
    c: &RecordChange,
    json: &str,
    timeout: Duration,
) -> Result<(), String> {
    let fields: Vec<&str> = c.fields.iter().map(|f| f.field.as_str()).collect();
    let mut cmd = crate::child::command(program);
    cmd.args(args)
        .env("CRMDASH_CHANGE_SEQ", c.seq.to_string())
        .env("CRMDASH_CHANGE_ID", &c.id)
        .env("CRMDASH_CHANGE_RESOURCE", c.resource.noun())
        .env("CRMDASH_CHANGE_KIND", c.kind.word())
        .env("CRMDASH_CHANGE_FIELDS", fields.join(","))
        .stdin(std::process::Stdio::piped());
    let mut child = tokio::process::Command::from(cmd)
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot run {program}: {e}"))?;
    let stdin = child.stdin.take();
    // Writing its input is inside the time too: a program that neither reads nor ends
    // would hold a large change's write forever.
    let ran = tokio::time::timeout(timeout, async {
        if let Some(mut stdin) = stdin {
            // A program that does not read its input has not failed by that alone.
            let _ = stdin.write_all(json.as_bytes()).await;
            let _ = stdin.write_all(b"\n").await;
        }
        child.wait().await
    })
    .await;
    let status = match ran {
        Ok(status) => status.map_err(|e| format!("{program}: {e}"))?,
        Err(_) => {
            let _ = child.start_kill();
            let _ = child.wait().await;
            return Err(format!(
                "{program} did not finish within {} (--exec-timeout) and was stopped",
                humantime(timeout)
            ));
        }
    };
    if status.success() {
        Ok(())
    } else {
        Err(format!("{program} failed ({status})"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::ApiError;

    #[test]
    fn every_reads_the_time_grammars_lengths() {
        assert_eq!(parse_every("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_every("1m"), Ok(Duration::from_secs(60)));
        assert_eq!(parse_every("2h"), Ok(Duration::from_secs(7200)));
        assert_eq!(parse_every("1h30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_every("1d"), Ok(Duration::from_secs(86_400)));
        assert_eq!(parse_every("2MIN"), Ok(Duration::from_secs(120)));
        assert!(parse_every("1s").unwrap_err().contains("at least 5s"));
        for bad in ["soon", "5", "-1m", "+1m", "1y", ""] {
            assert!(parse_every(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_rate_limit_waits_as_asked_and_an_outage_backs_off() {
        let every = Duration::from_secs(60);
        let mut limited = ApiError::new(ErrorKind::RateLimited, "slow down");
        limited.retry_after = Some(Duration::from_secs(120));
        let e = MirrorError::Api(limited);
        assert_eq!(backoff(&e, 0, every), Some(Duration::from_secs(120)));
        let down = MirrorError::Api(ApiError::new(ErrorKind::Server, "502"));
        assert_eq!(backoff(&down, 0, every), Some(every));
        assert_eq!(backoff(&down, 2, every), Some(every * 4));
        assert_eq!(backoff(&down, 9, every), Some(MAX_BACKOFF));
        let refused = MirrorError::Api(ApiError::new(ErrorKind::Unauthorized, "no"));
        assert_eq!(backoff(&refused, 0, every), None);
    }
}
