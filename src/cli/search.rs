//! `crmdash search TEXT`: searches the profile's local mirror (no network), results grouped by
//! resource, as a table, JSON (with each record as the server sent it) or CSV.

use std::io::{BufWriter, Write};

use chrono::Utc;
use serde_json::value::RawValue;

use crate::cli::Globals;
use crate::cli::cache::{self, cli_error, read_error};
use crate::cli::context::Ttys;
use crate::cli::exit::CliError;
use crate::cli::format::{resolve, table_width};
use crate::config::Settings;
use crate::mirror::{Mirror, MirrorError, SearchHit, SearchQuery, SearchResults};
use crate::output::OutputError;
use crate::output::{Format, display_width, pad, sanitize_cell, truncate_to_width};
use crate::resource::Resource;

#[derive(Debug, Clone, clap::Args)]
pub struct SearchArgs {
    /// Words to find (each as a word prefix, accents ignored), or part of a phone number.
    #[arg(value_name = "TEXT")]
    pub text: String,
    /// Only this resource (repeatable).
    #[arg(long = "type", value_enum, value_name = "RESOURCE")]
    pub types: Vec<Resource>,
    /// table, json, jsonl or csv (default: table on a terminal, JSON otherwise); what each
    /// prints is below.
    #[arg(long, value_enum)]
    pub format: Option<SearchFormat>,
    /// At most this many results per resource.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub limit: u32,
    /// `--jq` and `--template` read one array: the record of every hit, as the server sent it.
    #[command(flatten)]
    pub shape: crate::cli::shape::ShapeArgs,
}

/// What `search` prints in each format (its own: search prints hits, not records).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SearchFormat {
    /// Per resource a heading line, then one hit a line: id, label, why, detail
    Table,
    /// One object {query, synced_at, groups}: each group its resource's hits, each hit with its record
    Json,
    /// One hit a line: {type, id, label, detail, near, why, record}
    Jsonl,
    /// The header type,id,label,detail,near,why, then one hit a row
    Csv,
}

impl From<SearchFormat> for Format {
    fn from(f: SearchFormat) -> Format {
        match f {
            SearchFormat::Table => Format::Table,
            SearchFormat::Json => Format::Json,
            SearchFormat::Jsonl => Format::Jsonl,
            SearchFormat::Csv => Format::Csv,
        }
    }
}

pub const EXAMPLES: &str = "Examples:
  crmdash search muller
  crmdash search 'becker gmbh' --type deals
  crmdash search 1234567 --format json

Searches the local mirror: run `crmdash sync` first, and again to refresh it.

What is printed (every hit says why it matched: `name`, `email: j.kang@gmail.com`,
`assignee: Jörg Müller`, several reasons joined by `; `, `name (near match)`):
  table  per resource a line `Deals (2)` (`, more not shown` past --limit), then one hit
         a line: id, label, why, detail; `~` ends a near match. Before it, stderr says
         when the mirror was synced. `No matches.` when nothing matched.
  json   one object: {\"query\", \"synced_at\", \"groups\": [{\"resource\", \"more\",
         \"hits\": [{\"id\", \"label\", \"detail\", \"near\", \"why\", \"record\"}]}]};
         synced_at is the oldest last sync (RFC 3339, null before any), record the record
         as the server sent it; a resource searched with no hits has an empty group.
  jsonl  one hit a line: {\"type\", \"id\", \"label\", \"detail\", \"near\", \"why\", \"record\"}
         (type is contact, deal or project).
  csv    the header type,id,label,detail,near,why, then one hit a row (near is true or
         false).";

pub fn run(g: &Globals, settings: &Settings, args: &SearchArgs) -> Result<(), CliError> {
    if args.text.trim().is_empty() {
        return Err(CliError::Usage("give some text to search for".to_string()));
    }
    let shaper = args.shape.compile(&[("--format", args.format.is_some())])?;
    let loc = cache::location(g, settings)?;
    let opened = Mirror::open_existing(&loc.db_path())
        .map_err(read_error)?
        .ok_or_else(|| {
            if g.demo {
                return CliError::other(
                    "a --demo run starts with no local mirror (each demo's lives only as long as the run): search the demo in the dashboard, `crmdash --demo` then Ctrl-F",
                );
            }
            cli_error(MirrorError::NotSynced {
                profile: loc.profile.clone(),
            })
        })?;
    let mirror = opened.mirror;
    let results = mirror
        .search(&SearchQuery {
            text: args.text.clone(),
            resources: args.types.clone(),
            limit: args.limit as usize,
        })
        .map_err(read_error)?;
    // When it was synced: the sync state's few rows (not `status()`, which sizes the file).
    let mut synced = None;
    for r in Resource::ALL {
        let at = mirror.sync_state(r).map_err(read_error)?.last_sync_at;
        synced = match (synced, at) {
            (Some(a), Some(b)) => Some(std::cmp::min(a, b)),
            (a, b) => a.or(b),
        };
    }
    // A first sync writes records before their search entries (built at its end): until a
    // sync finishes the job, say which resources search cannot see yet.
    for r in &results.unsearchable {
        crmdash_domain::say!(
            "(local mirror: {r} are not searchable yet, their first sync did not finish; `crmdash sync` completes it)"
        );
    }
    let mut out = BufWriter::new(crate::output::stdout());
    if let Some(shaper) = shaper {
        let records = results.groups.iter().flat_map(|g| &g.hits);
        return shaper.emit_records(records.map(|h| h.raw.as_str()), &mut out);
    }
    let fmt = resolve(args.format.map(Format::from), Ttys::detect());
    let written = match fmt {
        Format::Table => {
            if let Some(t) = synced {
                crmdash_domain::say!("(local mirror, synced {})", cache::age(Utc::now() - t));
            }
            write_table(&results, &mut out)
        }
        Format::Json => write_json(&args.text, &results, synced, &mut out),
        Format::Csv => write_csv(&results, &mut out),
        Format::Jsonl => write_jsonl(&results, &mut out),
    };
    crate::cli::format::finish(
        written
            .and_then(|()| out.flush())
            .map_err(OutputError::from),
    )
}

fn write_table(results: &SearchResults, out: &mut impl Write) -> std::io::Result<()> {
    if results.is_empty() {
        writeln!(out, "No matches.")?;
        return Ok(());
    }
    let width = usize::from(table_width());
    for g in results.groups.iter().filter(|g| !g.hits.is_empty()) {
        let more = if g.more { ", more not shown" } else { "" };
        writeln!(out, "{} ({}{more})", g.resource.title(), g.hits.len())?;
        // Columns measured in terminal cells (a CJK name takes two a character).
        let width_of = |text: fn(&SearchHit) -> &str, max: usize| {
            g.hits
                .iter()
                .map(|h| display_width(&sanitize_cell(text(h))))
                .max()
                .unwrap_or(0)
                .min(max)
        };
        let id_w = width_of(|h| &h.id, usize::MAX);
        let label_w = width_of(|h| &h.label, 40);
        let why_w = width_of(|h| &h.why, 40);
        let cell =
            |text: &str, w: usize| pad(&truncate_to_width(&sanitize_cell(text), w), w, false);
        for h in &g.hits {
            let near = if h.near { " ~" } else { "" };
            let line = format!(
                "  {}  {}  {}  {}{near}",
                cell(&h.id, id_w),
                cell(&h.label, label_w),
                cell(&h.why, why_w),
                sanitize_cell(&h.detail)
            );
            writeln!(out, "{}", truncate_to_width(line.trim_end(), width))?;
        }
    }
    Ok(())
}

fn write_json(
    text: &str,
    results: &SearchResults,
    synced: Option<chrono::DateTime<Utc>>,
    out: &mut impl Write,
) -> std::io::Result<()> {
    #[derive(serde::Serialize)]
    struct Hit<'a> {
        id: &'a str,
        label: &'a str,
        detail: &'a str,
        near: bool,
        why: &'a str,
        record: Option<&'a RawValue>,
    }
    #[derive(serde::Serialize)]
    struct Group<'a> {
        resource: Resource,
        more: bool,
        hits: Vec<Hit<'a>>,
    }
    #[derive(serde::Serialize)]
    struct Body<'a> {
        query: &'a str,
        synced_at: Option<String>,
        groups: Vec<Group<'a>>,
    }
    let raws: Vec<Vec<Option<Box<RawValue>>>> = results
        .groups
        .iter()
        .map(|g| {
            g.hits
                .iter()
                .map(|h| RawValue::from_string(h.raw.clone()).ok())
                .collect()
        })
        .collect();
    let body = Body {
        query: text,
        synced_at: synced.map(|t| t.to_rfc3339()),
        groups: results
            .groups
            .iter()
            .zip(&raws)
            .map(|(g, raws)| Group {
                resource: g.resource,
                more: g.more,
                hits: g
                    .hits
                    .iter()
                    .zip(raws)
                    .map(|(h, raw)| Hit {
                        id: &h.id,
                        label: &h.label,
                        detail: &h.detail,
                        near: h.near,
                        why: &h.why,
                        record: raw.as_deref(),
                    })
                    .collect(),
            })
            .collect(),
    };
    serde_json::to_writer_pretty(&mut *out, &body)?;
    writeln!(out)
}

/// One hit a line, its resource named in `type`, the record as the server sent it.
fn write_jsonl(results: &SearchResults, out: &mut impl Write) -> std::io::Result<()> {
    #[derive(serde::Serialize)]
    struct Line<'a> {
        #[serde(rename = "type")]
        kind: &'a str,
        id: &'a str,
        label: &'a str,
        detail: &'a str,
        near: bool,
        why: &'a str,
        record: Option<&'a RawValue>,
    }
    for g in &results.groups {
        for h in &g.hits {
            let raw = RawValue::from_string(h.raw.clone()).ok();
            let line = Line {
                kind: g.resource.singular(),
                id: &h.id,
                label: &h.label,
                detail: &h.detail,
                near: h.near,
                why: &h.why,
                record: raw.as_deref(),
            };
            serde_json::to_writer(&mut *out, &line)?;
            writeln!(out)?;
        }
    }
    Ok(())
}

fn write_csv(results: &SearchResults, out: &mut impl Write) -> std::io::Result<()> {
    let mut w = crate::output::csv_writer_lf(out);
    w.write_record(["type", "id", "label", "detail", "near", "why"])?;
    for g in &results.groups {
        for h in &g.hits {
            w.write_record([
                g.resource.singular(),
                &h.id,
                &h.label,
                &h.detail,
                if h.near { "true" } else { "false" },
                &h.why,
            ])?;
        }
    }
    w.flush()
}
