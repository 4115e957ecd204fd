//! `crmdash changes`: what the syncs saw change, read from the local mirror (no network unless
//! `--sync`). `--since last` reads from a named cursor that only `--mark` moves, and only after
//! everything was written: a cron job sees each change exactly once, even across a run that
//! failed half way.

use std::io::{BufWriter, Write};

use chrono::{DateTime, Utc};

use crate::cli::cache::{self, cli_error, read_error};
use crate::cli::context::{Ctx, Ttys};
use crate::cli::exit::CliError;
use crate::cli::format::{resolve, table_width};
use crate::cli::shape::{ShapeArgs, Shaper};
use crate::mirror::sync::{self as mirror_sync, SyncOptions};
use crate::mirror::{
    ChangeKind, ChangeQuery, Mirror, MirrorError, MirrorLocation, write_json_line,
};
use crate::output::Format;
use crate::resource::Resource;
use crate::timeparse::{self, Zone};

mod print;

use print::Stop;

/// The cursor `--since last` reads when `--cursor` names none.
pub const DEFAULT_CURSOR: &str = "default";

#[derive(Debug, Clone, clap::Args)]
pub struct ChangesArgs {
    /// From when: a duration back from now (`1d`, `12h`, `2w`, `30m`), a time (`2026-11-20`,
    /// `yesterday`, RFC 3339), or `last`: after the cursor (see --cursor, --mark). Default:
    /// every change kept ([cache] history_days).
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// The cursor `--since last` reads and `--mark` moves (default: `default`; one set per
    /// profile, kept in its mirror).
    #[arg(long, value_name = "NAME")]
    pub cursor: Option<String>,
    /// With `--since last`: move the cursor past what was printed, once all of it was written.
    #[arg(long)]
    pub mark: bool,
    /// Only this resource (repeatable).
    #[arg(long = "type", value_enum, value_name = "RESOURCE")]
    pub types: Vec<Resource>,
    /// Only changes of this field (a dotted path; `consent` covers `consent.email`).
    #[arg(long, value_name = "FIELD")]
    pub field: Option<String>,
    /// Only changes of this record.
    #[arg(long, value_name = "ID")]
    pub id: Option<String>,
    /// Only this kind of change (repeatable).
    #[arg(long, value_enum, value_name = "KIND")]
    pub kind: Vec<ChangeKind>,
    /// table, json, jsonl or csv (default: table on a terminal, JSON otherwise).
    #[arg(long, value_enum)]
    pub format: Option<ChangesFormat>,
    /// Sync the mirror first (an incremental sync, or a full one when due).
    #[arg(long)]
    pub sync: bool,
    #[command(flatten)]
    pub shape: ShapeArgs,
}

/// What `changes` prints in each format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ChangesFormat {
    /// One change a line: when, type, id, name, what changed
    Table,
    /// An array of {seq, at, resource, id, kind, fields: [{field, old, new}]}
    Json,
    /// One such object a line
    Jsonl,
    /// The header seq,at,resource,id,kind,field,old,new; one row per changed field
    Csv,
}

pub const EXAMPLES: &str = "Examples:
  crmdash changes --since 1d
  crmdash changes --since 2026-11-20 --type deals --field status
  crmdash changes --since last --mark --format jsonl
  crmdash changes --id deal_000042
  crmdash changes --sync --since 7d --format csv
  crmdash changes --since 1d --jq '.[] | select(.kind == \"created\") | .id'

Changes are what syncs saw: run `crmdash sync` (or pass --sync) to record new ones. The first
sync of a resource is a baseline and records none.

What is printed:
  table  one change a line: when (local time), type, id, name, then `created`, `gone`, or
         each changed field `status open → won` joined by ` · `.
  json   an array of {\"seq\", \"at\", \"resource\", \"id\", \"kind\", \"fields\": [{\"field\",
         \"old\", \"new\"}]}; at is RFC 3339 in UTC, kind created, updated, gone or back, old
         and new the values as the service sent them (null when absent).
  jsonl  one such object a line.
  csv    the header seq,at,resource,id,kind,field,old,new, then one row per changed field
         (one row with empty field, old and new for created and gone); old and new are
         JSON for anything but text.
--jq and --template read the json array.";

/// Where `--since` starts reading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Since {
    All,
    At(DateTime<Utc>),
    Cursor,
}

/// Reads `--since`: `last`, a bare duration back from now (`1d`), or a time in the grammar.
pub fn parse_since(text: &str, zone: &Zone, now: DateTime<Utc>) -> Result<Since, String> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("last") {
        return Ok(Since::Cursor);
    }
    let bare_duration = t.starts_with(|c: char| c.is_ascii_digit())
        && t.ends_with(|c: char| "smhdwSMHDW".contains(c))
        && t.chars().all(|c| c.is_ascii_alphanumeric());
    let input = if bare_duration {
        format!("-{t}")
    } else {
        t.to_string()
    };
    timeparse::parse_instant(&input, zone, now)
        .map(Since::At)
        .map_err(|e| format!("--since: {e} (or a duration back from now like 1d, or `last`)"))
}

pub async fn run(ctx: &Ctx, args: &ChangesArgs) -> Result<(), CliError> {
    let since = match &args.since {
        Some(s) => {
            parse_since(s, &crate::cli::times::local_zone(), Utc::now()).map_err(CliError::Usage)?
        }
        None => Since::All,
    };
    if since != Since::Cursor && (args.mark || args.cursor.is_some()) {
        return Err(CliError::Usage(
            "--mark and --cursor go with --since last".to_string(),
        ));
    }
    let shaper = args.shape.compile(&[("--format", args.format.is_some())])?;
    let settings = &ctx.settings;
    if !settings.cache.enabled {
        return Err(cli_error(MirrorError::Disabled));
    }
    let loc = if args.sync {
        sync_quietly(ctx).await?
    } else {
        cache::location(ctx.globals(), settings)?
    };
    let mut mirror = open(&loc, ctx.demo())?;
    mirror.map_for_scan().map_err(read_error)?;
    let cursor = args.cursor.as_deref().unwrap_or(DEFAULT_CURSOR);
    let mut q = ChangeQuery {
        resources: args.types.clone(),
        kinds: args.kind.clone(),
        field: args.field.clone(),
        id: args.id.clone(),
        ..ChangeQuery::default()
    };
    match since {
        Since::All => {}
        Since::At(t) => q.since = Some(t),
        Since::Cursor => {
            q.after_seq = Some(
                mirror
                    .cursor(cursor)
                    .map_err(read_error)?
                    .map_or(0, |c| c.seq),
            );
        }
    }
    // The cursor moves to what existed when reading started, filtered out or not: those
    // changes were passed over on purpose, not missed.
    let last = mirror.last_change_seq().map_err(read_error)?;
    let mut out = BufWriter::with_capacity(1 << 16, crate::output::stdout());
    let written = match shaper {
        Some(shaper) => write_shaped(&mut mirror, &q, &shaper, &mut out)?.map_err(Stop::Write),
        None => match resolve(args.format.map(Format::from), Ttys::detect()) {
            Format::Jsonl => print::write_jsonl(&mut mirror, &q, &mut out),
            Format::Table => print::write_table(&mirror, &q, usize::from(table_width()), &mut out),
            Format::Json => print::write_json(&mut mirror, &q, &mut out),
            _ => print::write_csv(&mut mirror, &q, &mut out),
        },
    }
    .and_then(|()| out.flush().map_err(Stop::Write));
    match written {
        Ok(()) => {
            if args.mark {
                let upto = q.after_seq.unwrap_or(0).max(last);
                mirror
                    .set_cursor(cursor, upto, Utc::now())
                    .map_err(cli_error)?;
            }
            Ok(())
        }
        Err(Stop::Read(e)) => Err(read_error(e)),
        // The reader went away: not everything was delivered, so the cursor stays.
        Err(Stop::Write(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(Stop::Write(e)) => Err(CliError::other(format!("cannot write the output: {e}"))),
    }
}

/// `--jq`/`--template` over the json array. The shaped output is gathered first, so a reader
/// that went away half way is noticed (and `--mark` does not move the cursor).
fn write_shaped(
    mirror: &mut Mirror,
    q: &ChangeQuery,
    shaper: &Shaper,
    out: &mut impl Write,
) -> Result<std::io::Result<()>, CliError> {
    let mut array = String::from("[");
    mirror
        .each_change_ahead(q, |c| {
            if array.len() > 1 {
                array.push(',');
            }
            write_json_line(c, &mut array);
            array.pop();
            Ok::<_, MirrorError>(())
        })
        .map_err(read_error)?;
    array.push(']');
    let mut shaped = Vec::new();
    shaper.emit(&array, &mut shaped)?;
    Ok(out.write_all(&shaped))
}

impl From<ChangesFormat> for Format {
    fn from(f: ChangesFormat) -> Format {
        match f {
            ChangesFormat::Table => Format::Table,
            ChangesFormat::Json => Format::Json,
            ChangesFormat::Jsonl => Format::Jsonl,
            ChangesFormat::Csv => Format::Csv,
        }
    }
}

/// The profile's mirror, said clearly when there is none yet.
pub fn open(loc: &MirrorLocation, demo: bool) -> Result<Mirror, CliError> {
    let opened = Mirror::open_existing(&loc.db_path())
        .map_err(read_error)?
        .ok_or_else(|| {
            if demo {
                return CliError::other(
                    "a --demo run starts with no local mirror: add --sync (the first sync is a baseline, so a demo shows changes from its second sync on; try `crmdash --demo` and :changes)",
                );
            }
            cli_error(MirrorError::NotSynced {
                profile: loc.profile.clone(),
            })
        })?;
    Ok(opened.mirror)
}

/// What a sync of the profile's mirror needs: its client, where the mirror is, the options
/// `[cache]` asks for.
pub async fn sync_setup(
    ctx: &Ctx,
) -> Result<(&crate::api::Client, MirrorLocation, SyncOptions), CliError> {
    let settings = &ctx.settings;
    let client = ctx.client().await?;
    let location = if ctx.demo() {
        MirrorLocation::demo(&settings.cache)
    } else {
        MirrorLocation::for_settings(
            &settings.cache,
            ctx.profile().await?,
            client.base_url().as_str(),
        )
    }
    .map_err(cli_error)?;
    let opts = SyncOptions::from_settings(&settings.cache, false, Vec::new());
    Ok((client, location, opts))
}

/// Syncs the profile's mirror without printing anything (the output is the changes).
pub(crate) async fn sync_quietly(ctx: &Ctx) -> Result<MirrorLocation, CliError> {
    let (client, location, opts) = sync_setup(ctx).await?;
    mirror_sync::sync(client, &location, &opts, &|_| {})
        .await
        .map_err(cli_error)?;
    Ok(location)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_reads_durations_dates_and_last() {
        let now = DateTime::parse_from_rfc3339("2026-11-25T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let utc: Zone = "UTC".parse().unwrap();
        assert_eq!(parse_since("last", &utc, now), Ok(Since::Cursor));
        assert_eq!(
            parse_since("1d", &utc, now),
            Ok(Since::At(now - chrono::Duration::days(1)))
        );
        assert_eq!(
            parse_since("12h", &utc, now),
            Ok(Since::At(now - chrono::Duration::hours(12)))
        );
        assert_eq!(
            parse_since("2026-11-20", &utc, now),
            Ok(Since::At(
                DateTime::parse_from_rfc3339("2026-11-20T00:00:00Z")
                    .unwrap()
                    .with_timezone(&Utc)
            ))
        );
        assert!(parse_since("lately", &utc, now).is_err());
    }
}
