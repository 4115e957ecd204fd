//! `crmdash contacts dupes`: near duplicate contacts in the local mirror (no network), as
//! clusters best first, each with its members and the reasons that link them.

use std::io::{BufWriter, Write};

use chrono::Utc;

use crate::cli::Globals;
use crate::cli::cache::{self, cli_error, read_error};
use crate::cli::context::Ttys;
use crate::cli::exit::CliError;
use crate::cli::format::{resolve, table_width};
use crate::cli::times;
use crate::config::Settings;
use crate::insights::dupes::mirrored::{self, Finder, ScanOptions};
use crate::insights::dupes::output as dupes;
use crate::mirror::{Mirror, MirrorError};
use crate::output::{Format, OutputError};

#[derive(Debug, Clone, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct DupesArgs {
    /// Only clusters with a contact created or updated after this time (see `contacts list
    /// --help`, Times).
    #[arg(long, value_name = "T", allow_hyphen_values = true)]
    pub since: Option<String>,
    /// Only clusters with a contact of this email (compared as the finder does: case,
    /// Gmail's dots and +tags aside).
    #[arg(long, value_name = "E")]
    pub email: Option<String>,
    /// Only clusters with a contact whose name holds these words (accents and case aside).
    #[arg(long, value_name = "N")]
    pub name: Option<String>,
    /// Pairs scoring at least this (0 to 1) link contacts [default: `[dupes] threshold`,
    /// 0.85].
    #[arg(long, value_name = "S")]
    pub min_score: Option<f64>,
    /// table, json, jsonl (a cluster a line) or csv (a contact a row) [default: table on a
    /// terminal, json otherwise].
    #[arg(long, value_enum)]
    pub format: Option<Format>,
}

pub const EXAMPLES: &str = "Examples:
  crmdash contacts dupes
  crmdash contacts dupes --since -7d
  crmdash contacts dupes --name 'john smith' --min-score 0.9
  crmdash contacts dupes --format csv > dupes.csv

Looks in the local mirror: run `crmdash sync` first. Phone numbers without an international
prefix are read in the country of `[ui] region` in the config file (e.g. \"DE\").";

/// `--demo`: a sandbox with planted near duplicates, synced into the run's own mirror (thrown
/// away when the run ends), so the finder has something to find.
async fn demo_mirror(settings: &Settings) -> Result<(), CliError> {
    use crate::sandbox::{Sandbox, SandboxConfig};
    let sandbox = Sandbox::start(SandboxConfig {
        near_duplicates: true,
        ..SandboxConfig::default()
    })
    .await
    .map_err(|e| CliError::other(format!("cannot start the demo sandbox: {e}")))?;
    let client = crate::api::Client::new(
        &sandbox.base_url(),
        secrecy::SecretString::from(sandbox.token()),
    )?;
    let location = crate::mirror::MirrorLocation::demo(&settings.cache).map_err(cli_error)?;
    let synced = crate::mirror::sync::sync(
        &client,
        &location,
        &crate::mirror::SyncOptions {
            resources: vec![crate::resource::Resource::Contacts],
            ..crate::mirror::SyncOptions::default()
        },
        &|_| {},
    )
    .await;
    sandbox.shutdown().await;
    synced.map(|_| ()).map_err(cli_error)
}

pub async fn run(g: &Globals, settings: &Settings, args: &DupesArgs) -> Result<(), CliError> {
    if g.demo {
        demo_mirror(settings).await?;
    }
    tokio::task::block_in_place(|| find_and_print(g, settings, args))
}

fn find_and_print(g: &Globals, settings: &Settings, args: &DupesArgs) -> Result<(), CliError> {
    let min_score = args.min_score.unwrap_or(settings.dupes.threshold);
    if !(0.0..=1.0).contains(&min_score) {
        return Err(CliError::field(
            "min_score",
            format!("--min-score: {min_score} is not between 0 and 1"),
        ));
    }
    let since = times::opt_instant("since", &args.since, &times::local_zone())?;
    let loc = cache::location(g, settings)?;
    let opened = Mirror::open_existing(&loc.db_path())
        .map_err(read_error)?
        .ok_or_else(|| {
            cli_error(MirrorError::NotSynced {
                profile: loc.profile.clone(),
            })
        })?;
    let report = mirrored::scan(
        &opened.mirror,
        &Finder::of(settings),
        &ScanOptions {
            min_score: Some(min_score),
            since,
            email: args.email.clone(),
            name: args.name.clone(),
        },
    )
    .map_err(read_error)?;
    if !report.complete {
        crmdash_domain::say!(
            "(the local mirror's contacts are incomplete: no full sync has finished; clusters may be missing)"
        );
    }
    let fmt = resolve(args.format, Ttys::detect());
    let mut out = BufWriter::new(crate::output::stdout());
    let written = match fmt {
        Format::Table => {
            if let Some(t) = report.synced {
                crmdash_domain::say!("(local mirror, synced {})", cache::age(Utc::now() - t));
            }
            dupes::write_table(&report, usize::from(table_width()), &mut out)
        }
        Format::Json => dupes::write_json(&report, &mut out),
        Format::Jsonl => dupes::write_jsonl(&report, &mut out),
        Format::Csv => dupes::write_csv(&report, &mut out),
    };
    crate::cli::format::finish(
        written
            .and_then(|()| out.flush())
            .map_err(OutputError::from),
    )
}
