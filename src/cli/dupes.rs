//! `crmdash contacts dupes`: near duplicate contacts in the local mirror (no network), as
//! clusters best first, each with its members and the reasons that link them.

use std::io::{BufWriter, Write};

use chrono::{DateTime, Utc};
use serde_json::json;

use crate::api::Contact;
use crate::cli::Globals;
use crate::cli::cache::{self, cli_error, read_error};
use crate::cli::context::Ttys;
use crate::cli::exit::CliError;
use crate::cli::format::{resolve, table_width};
use crate::cli::times;
use crate::config::Settings;
use crate::insights::dupes::normalise::{email_key, fold_name, region};
use crate::insights::dupes::{self, Cluster, Found, Person};
use crate::mirror::{Mirror, MirrorError};
use crate::output::{Format, OutputError, sanitize_cell, truncate_to_width};

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

/// What one run found, ready to print.
struct Report {
    people: Vec<Person>,
    clusters: Vec<Cluster>,
    found: Found,
    min_score: f64,
    synced: Option<DateTime<Utc>>,
}

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
    let mirror = opened.mirror;
    let mut people = Vec::new();
    let mut changed = Vec::new();
    mirror
        .each_live::<Contact>(|c| {
            let recent = since.is_some_and(|t| {
                [&c.created_at, &c.updated_at]
                    .into_iter()
                    .flatten()
                    .filter_map(crate::api::Timestamp::instant)
                    .any(|at| at > t)
            });
            changed.push(recent);
            people.push(Person::from_contact(&c));
        })
        .map_err(read_error)?;
    let status = mirror.status().map_err(read_error)?;
    let synced = status.resources.iter().filter_map(|r| r.last_sync_at).min();
    let found = dupes::find(
        &people,
        region(settings.ui.region.as_deref()),
        &settings.dupes,
        min_score,
    );
    let wanted_email = args.email.as_deref().and_then(email_key);
    let wanted_name = args.name.as_deref().map(|n| fold_name(n).join(" "));
    let keep = |i: usize| {
        let p = &people[i];
        (since.is_none() || changed[i])
            && wanted_email
                .as_ref()
                .is_none_or(|w| p.email.as_deref().and_then(email_key).as_ref() == Some(w))
            && wanted_name
                .as_ref()
                .is_none_or(|w| fold_name(&p.name).join(" ").contains(w.as_str()))
    };
    let clusters: Vec<Cluster> = dupes::clusters(&people, &found.pairs, min_score)
        .into_iter()
        .filter(|c| c.members.iter().any(|&i| keep(i)))
        .collect();
    let report = Report {
        people,
        clusters,
        found,
        min_score,
        synced,
    };
    let fmt = resolve(args.format, Ttys::detect());
    let mut out = BufWriter::new(std::io::stdout().lock());
    let written = match fmt {
        Format::Table => {
            if let Some(t) = report.synced {
                eprintln!("(local mirror, synced {})", cache::age(Utc::now() - t));
            }
            write_table(&report, &mut out)
        }
        Format::Json => write_json(&report, &mut out),
        Format::Jsonl => write_jsonl(&report, &mut out),
        Format::Csv => write_csv(&report, &mut out),
    };
    crate::cli::format::finish(
        written
            .and_then(|()| out.flush())
            .map_err(OutputError::from),
    )
}

fn summary(r: &Report) -> String {
    let members: usize = r.clusters.iter().map(|c| c.members.len()).sum();
    let crowded = if r.found.crowded_keys > 0 {
        format!(
            "; {} email, phone or name+account key(s) shared by more than {} contacts not compared",
            r.found.crowded_keys,
            dupes::MAX_BLOCK
        )
    } else {
        String::new()
    };
    format!(
        "{} cluster(s) of {members} contacts at score {:.2} or more, among {} contacts ({} candidate pairs compared){crowded}",
        r.clusters.len(),
        r.min_score,
        r.people.len(),
        r.found.compared
    )
}

fn write_table(r: &Report, out: &mut impl Write) -> std::io::Result<()> {
    let width = usize::from(table_width());
    for (n, c) in r.clusters.iter().enumerate() {
        writeln!(
            out,
            "{}. score {:.2}, {} contacts",
            n + 1,
            c.score,
            c.members.len()
        )?;
        let id_w = c
            .members
            .iter()
            .map(|&i| r.people[i].id.chars().count())
            .max()
            .unwrap_or(0);
        for &i in &c.members {
            let p = &r.people[i];
            let mut facts = vec![sanitize_cell(&p.name)];
            facts.extend(p.email.iter().map(|e| format!("<{}>", sanitize_cell(e))));
            facts.extend(p.phone.iter().map(|t| sanitize_cell(t)));
            if !p.accounts.is_empty() {
                facts.push(format!("account {}", p.accounts.join(", ")));
            }
            let line = format!("   {:<id_w$}  {}", sanitize_cell(&p.id), facts.join("  "));
            writeln!(out, "{}", truncate_to_width(line.trim_end(), width))?;
        }
        for p in &c.pairs {
            let line = format!(
                "   {} ~ {} {:.2}: {}",
                r.people[p.a].id,
                r.people[p.b].id,
                p.score,
                p.reasons.join(", ")
            );
            writeln!(out, "{}", truncate_to_width(&sanitize_cell(&line), width))?;
        }
    }
    if r.clusters.is_empty() {
        writeln!(out, "No near duplicates.")?;
    }
    writeln!(out, "{}", summary(r))
}

fn member_json(p: &Person) -> serde_json::Value {
    json!({
        "id": p.id,
        "name": p.name,
        "email": p.email,
        "phone": p.phone,
        "account_ids": p.accounts,
    })
}

fn cluster_json(r: &Report, n: usize, c: &Cluster) -> serde_json::Value {
    json!({
        "cluster": n + 1,
        "score": round(c.score),
        "members": c.members.iter().map(|&i| member_json(&r.people[i])).collect::<Vec<_>>(),
        "pairs": c.pairs.iter().map(|p| json!({
            "a": r.people[p.a].id,
            "b": r.people[p.b].id,
            "score": round(p.score),
            "reasons": p.reasons,
        })).collect::<Vec<_>>(),
    })
}

/// Scores to three places: `0.97`, not `0.9700000000000001`.
fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// One JSON document, written a cluster at a time (100,000 contacts can make thousands of
/// clusters: they are never all held as one JSON value).
fn write_json(r: &Report, out: &mut impl Write) -> std::io::Result<()> {
    let head = json!({
        "synced_at": r.synced.map(|t| t.to_rfc3339()),
        "min_score": r.min_score,
        "contacts": r.people.len(),
        "compared": r.found.compared,
    });
    let head = serde_json::to_string_pretty(&head)?;
    // The head's closing brace gives way to the clusters.
    let open = head.trim_end().trim_end_matches('}').trim_end();
    write!(out, "{open},\n  \"clusters\": [")?;
    for (n, c) in r.clusters.iter().enumerate() {
        let sep = if n == 0 { "\n" } else { ",\n" };
        write!(out, "{sep}    ")?;
        serde_json::to_writer(&mut *out, &cluster_json(r, n, c))?;
    }
    let close = if r.clusters.is_empty() { "]" } else { "\n  ]" };
    writeln!(out, "{close}\n}}")
}

fn write_jsonl(r: &Report, out: &mut impl Write) -> std::io::Result<()> {
    for (n, c) in r.clusters.iter().enumerate() {
        serde_json::to_writer(&mut *out, &cluster_json(r, n, c))?;
        writeln!(out)?;
    }
    Ok(())
}

/// A contact a row, with its cluster's number and score and the reasons of its best pair.
fn write_csv(r: &Report, out: &mut impl Write) -> std::io::Result<()> {
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_writer(out);
    w.write_record([
        "cluster",
        "score",
        "id",
        "name",
        "email",
        "phone",
        "account_ids",
        "reasons",
    ])?;
    for (n, c) in r.clusters.iter().enumerate() {
        for &i in &c.members {
            let p = &r.people[i];
            let reasons = c
                .pairs
                .iter()
                .find(|pair| pair.a == i || pair.b == i)
                .map(|pair| pair.reasons.join("; "))
                .unwrap_or_default();
            w.write_record([
                (n + 1).to_string(),
                format!("{:.2}", c.score),
                p.id.clone(),
                p.name.clone(),
                p.email.clone().unwrap_or_default(),
                p.phone.clone().unwrap_or_default(),
                p.accounts.join(" "),
                reasons,
            ])?;
        }
    }
    w.flush()
}
