//! `crmdash deals summary`: the pipeline's numbers (`insights::pipeline`) for the deals a filter
//! matches, read page by page (per_page=100, oldest first) up to a stated cap, or with
//! `--source mirror` from the local mirror's complete copy (no cap, no request).

use std::io::{BufWriter, IsTerminal, Write};

use chrono::NaiveDate;
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use rust_decimal::Decimal;
use serde_json::{Value, json};

use crate::api::{Client, DealQuery, DealSort, ListQuery, MAX_PER_PAGE, Paging, SortDirection};
use crate::cli::context::Ctx;
use crate::cli::exit::CliError;
use crate::cli::format;
pub use crate::insights::pipeline::Coverage;
use crate::insights::pipeline::{
    Bucket, MonthBy, PageStep, PageWalk, PipelineSummary, SummaryOptions, format_amount,
};
use crate::output::{Format, OutputError, display_width, sanitize_cell};
use crate::timeparse::Zone;

/// Where the deals are read from (`--source`, shared with the lists).
pub use crate::cli::source::Source as SummarySource;

/// What one row of the summary is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SummaryBy {
    /// One row per status and currency: count and total.
    Status,
    /// One row per currency: count and total across statuses.
    Currency,
    /// Won and lost per month and currency, for the last `--months` months.
    Month,
}

/// `crmdash deals summary`.
#[derive(Debug, Clone, Args)]
#[command(after_help = EXAMPLES)]
pub struct DealSummaryArgs {
    /// Only deals whose name matches (the list's `name` filter).
    #[arg(long, value_name = "S")]
    pub name: Option<String>,
    /// Only deals with this status (the list's `status` filter).
    #[arg(long, value_name = "S")]
    pub status: Option<String>,
    /// Rows by status (and currency), by currency, or won/lost by month.
    #[arg(long, value_enum, default_value = "status", value_name = "BY")]
    pub by: SummaryBy,
    /// The date that puts a won or lost deal into a month: `auto` (the first of
    /// expected_close_date, close_date, closed_at, expected_close the deal carries, else
    /// updated_at), `updated_at`, or any field the service sends (deals without it fall back
    /// to updated_at).
    #[arg(long, default_value = "auto", value_name = "FIELD")]
    pub month_by: String,
    /// How many months `--by month` covers, ending with the current one.
    #[arg(long, default_value_t = 12, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=120))]
    pub months: u32,
    /// The currency of deals that carry none [default: shown as "(none)"].
    #[arg(long, value_name = "CODE")]
    pub default_currency: Option<String>,
    /// Read at most this many pages of 100 deals; past it the figures say they are partial.
    #[arg(long, default_value_t = 50, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub max_pages: u32,
    /// Read the deals from the service, or from the local mirror's complete copy (no page
    /// cap, no request; says when it was synced).
    #[arg(long, value_enum, default_value = "api", value_name = "SOURCE")]
    pub source: SummarySource,
    /// Output format [default: table on a terminal, json otherwise].
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<Format>,
}

const EXAMPLES: &str = "\
Examples:
  crmdash deals summary
  crmdash deals summary --status won --by currency --format csv
  crmdash deals summary --by month --month-by expected_close_date --months 6
  crmdash deals summary --source mirror --status open";

/// Runs the command.
pub async fn run(ctx: &Ctx, args: &DealSummaryArgs) -> Result<(), CliError> {
    let zone: Zone = ctx.settings.display_zone().parse().unwrap_or_default();
    let opts = SummaryOptions {
        default_currency: args.default_currency.clone(),
        zone,
        month_by: MonthBy::parse(&args.month_by),
        today: today_in(zone),
        months: args.months,
    };
    let query = DealQuery {
        name: args.name.clone(),
        status: args.status.clone(),
        sort_by: Some(DealSort::CreatedAt),
        sort_direction: Some(SortDirection::Asc),
        include: Vec::new(),
        paging: Paging::default(),
    };
    query.to_pairs()?;
    let (summary, coverage) = match args.source {
        SummarySource::Api => {
            let client = ctx.client().await?;
            let progress = Progress::new(ctx.tty.stderr);
            let read = summarize(client, query, &opts, args.max_pages, |pages, last| {
                progress.update(pages, last)
            })
            .await;
            progress.finish();
            let (s, c) = read?;
            (s, c)
        }
        SummarySource::Mirror => summarize_mirror(&crate::cli::source::open(ctx)?, query, &opts)?,
    };
    if coverage.partial && ctx.tty.stderr {
        crmdash_domain::say!(
            "note: read the first {} pages only (--max-pages): the figures are partial",
            coverage.pages
        );
    }
    let fmt = format::resolve(args.format, ctx.tty);
    let mut out = BufWriter::new(crate::output::stdout());
    let result = write(&summary, &coverage, args.by, fmt, &opts, &mut out)
        .and_then(|()| out.flush().map_err(OutputError::from));
    format::finish(result)
}

fn today_in(zone: Zone) -> NaiveDate {
    zone.from_utc(chrono::Utc::now()).date_naive()
}

/// Reads the query's deals page by page into a summary, at most `max_pages` pages.
/// `on_page(pages_read, last_page)` after each page.
pub async fn summarize(
    client: &Client,
    mut query: DealQuery,
    opts: &SummaryOptions,
    max_pages: u32,
    mut on_page: impl FnMut(u32, Option<u64>),
) -> Result<(PipelineSummary, Coverage), CliError> {
    let mut summary = PipelineSummary::new(opts);
    let mut walk = PageWalk::new(max_pages);
    loop {
        let page_no = walk.next_page();
        query.paging = Paging {
            page: Some(page_no),
            per_page: Some(MAX_PER_PAGE),
        };
        let page = client.list(&query).await?;
        let first = page.data.first().map(|d| d.id.as_str());
        let PageStep::Take { more } = walk.page(first, page.data.len(), page.meta) else {
            break;
        };
        for deal in &page.data {
            summary.add(deal, opts);
        }
        on_page(page_no, page.meta.and_then(|m| m.last_page));
        if !more {
            break;
        }
    }
    Ok((summary, walk.coverage))
}

/// Reads every live deal the query matches from the local mirror into a summary, in keyset
/// batches inside one read snapshot. The mirror must hold a complete copy of the deals (a
/// full sync finished, none under way: else exit 10); the coverage says when they were last
/// synced, and so does a line on stderr.
pub fn summarize_mirror(
    src: &crate::cli::source::MirrorSource,
    mut query: DealQuery,
    opts: &SummaryOptions,
) -> Result<(PipelineSummary, Coverage), CliError> {
    use crate::resource::Resource;
    const BATCH: usize = 1000;
    // Every include asked for: none is taken out of the stored records, none is read.
    query.include = crate::api::DealInclude::ALL.to_vec();
    src.mirror
        .in_snapshot(|m| {
            let synced = src.complete(m, Resource::Deals)?;
            crmdash_domain::say!("{}", src.provenance(synced));
            let mut summary = PipelineSummary::new(opts);
            let mut coverage = Coverage {
                synced_at: Some(synced),
                ..Coverage::default()
            };
            let deals = m
                .each_seek(&query, BATCH, |batch| {
                    coverage.pages += 1;
                    for deal in &batch {
                        summary.add(deal, opts);
                    }
                    Ok::<(), crate::mirror::MirrorError>(())
                })
                .map_err(crate::cli::cache::read_error)?;
            coverage.total = Some(deals);
            Ok((summary, coverage))
        })
        .map_err(crate::cli::cache::read_error)?
}

/// Writes the summary in the chosen format.
pub fn write(
    s: &PipelineSummary,
    cov: &Coverage,
    by: SummaryBy,
    fmt: Format,
    opts: &SummaryOptions,
    w: &mut impl Write,
) -> Result<(), OutputError> {
    let (header, rows) = rows(s, by);
    match fmt {
        Format::Json | Format::Jsonl => {
            let objects = rows.iter().map(|r| {
                let m: serde_json::Map<String, Value> = header
                    .iter()
                    .zip(r)
                    .map(|(h, c)| (h.to_string(), c.json()))
                    .collect();
                Value::Object(m)
            });
            if fmt == Format::Jsonl {
                // One row per line, nothing around it: for `jq -c` and line tools.
                for o in objects {
                    serde_json::to_writer(&mut *w, &o).map_err(std::io::Error::from)?;
                    writeln!(w)?;
                }
                return Ok(());
            }
            let doc = json!({
                "by": by_name(by),
                "deals": s.deals,
                "pages": cov.pages,
                "total": cov.total,
                "partial": cov.partial,
                "month_by": opts.month_by.name(),
                "month_fallbacks": s.month_fallbacks,
                "month_fields": s.month_fields,
                "source": if cov.synced_at.is_some() { "mirror" } else { "api" },
                "synced_at": cov.synced_at.map(|t| t.to_rfc3339()),
                "currencies": s.currencies,
                "rows": objects.collect::<Vec<_>>(),
            });
            serde_json::to_writer_pretty(&mut *w, &doc).map_err(std::io::Error::from)?;
            writeln!(w)?;
        }
        Format::Csv => {
            let mut c = crate::output::csv_writer_lf(&mut *w);
            c.write_record(&header)?;
            for r in &rows {
                c.write_record(r.iter().map(|x| x.plain()))?;
            }
            c.flush()?;
        }
        Format::Table => {
            write_table(&header, &rows, w)?;
            if rows.is_empty() {
                writeln!(w, "(no deal in this summary)")?;
            }
            let mut foot = format!(
                "{} deal{} in {} currenc{}",
                s.deals,
                if s.deals == 1 { "" } else { "s" },
                s.currencies.len(),
                if s.currencies.len() == 1 { "y" } else { "ies" },
            );
            if by == SummaryBy::Month {
                foot.push_str(&format!("; months by {}", s.month_basis()));
                if s.month_fallbacks > 0 {
                    foot.push_str(&format!(
                        " ({} without it by updated_at)",
                        s.month_fallbacks
                    ));
                }
            }
            if cov.partial {
                foot.push_str(&format!(
                    "; PARTIAL: first {} pages of {}",
                    cov.pages,
                    cov.total
                        .map_or("more".to_string(), |t| format!("{t} deals"))
                ));
            }
            if let Some(t) = cov.synced_at {
                foot.push_str(&format!(
                    "; from the local mirror, synced {}",
                    crmdash_api::clock::get().format_labelled(t)
                ));
            }
            writeln!(w, "{foot}")?;
        }
    }
    Ok(())
}

fn by_name(by: SummaryBy) -> &'static str {
    match by {
        SummaryBy::Status => "status",
        SummaryBy::Currency => "currency",
        SummaryBy::Month => "month",
    }
}

/// One cell: text, a count, an amount, a plain number (days, a rate) or nothing.
pub(crate) enum Cell {
    Text(String),
    Count(u64),
    Amount(Decimal),
    /// A figure that is not money (days, a rate): as it is, a JSON number.
    Number(Decimal),
    /// No figure (JSON null, an empty cell).
    Empty,
}

impl Cell {
    pub(crate) fn plain(&self) -> String {
        match self {
            Cell::Text(t) => t.clone(),
            Cell::Count(n) => n.to_string(),
            Cell::Amount(d) => format_amount(*d, false),
            Cell::Number(d) => d.to_string(),
            Cell::Empty => String::new(),
        }
    }

    pub(crate) fn shown(&self) -> String {
        match self {
            Cell::Amount(d) => format_amount(*d, true),
            Cell::Empty => "—".to_string(),
            other => other.plain(),
        }
    }

    pub(crate) fn json(&self) -> Value {
        match self {
            Cell::Text(t) => Value::String(t.clone()),
            Cell::Count(n) => json!(n),
            // Amounts as strings: exact, never a float.
            Cell::Amount(d) => Value::String(format_amount(*d, false)),
            Cell::Number(d) => d
                .to_string()
                .parse::<serde_json::Number>()
                .map_or(Value::Null, Value::Number),
            Cell::Empty => Value::Null,
        }
    }

    pub(crate) fn right_aligned(&self) -> bool {
        !matches!(self, Cell::Text(_))
    }
}

fn bucket_cells(b: &Bucket) -> [Cell; 3] {
    [
        Cell::Count(b.count),
        Cell::Amount(b.total),
        Cell::Count(b.without_value),
    ]
}

/// The fixed columns of each shape and its rows.
fn rows(s: &PipelineSummary, by: SummaryBy) -> (Vec<&'static str>, Vec<Vec<Cell>>) {
    match by {
        SummaryBy::Status => (
            vec!["status", "currency", "count", "total", "without_value"],
            s.rows()
                .into_iter()
                .map(|(st, cur, b)| {
                    let mut r = vec![Cell::Text(st.into()), Cell::Text(cur.into())];
                    r.extend(bucket_cells(b));
                    r
                })
                .collect(),
        ),
        SummaryBy::Currency => {
            let mut per: std::collections::BTreeMap<&str, Bucket> = Default::default();
            for ((_, cur), b) in &s.by_status {
                let e = per.entry(cur.as_str()).or_default();
                e.count += b.count;
                e.total += b.total;
                e.without_value += b.without_value;
            }
            (
                vec!["currency", "count", "total", "without_value"],
                per.into_iter()
                    .map(|(cur, b)| {
                        let mut r = vec![Cell::Text(cur.into())];
                        r.extend(bucket_cells(&b));
                        r
                    })
                    .collect(),
            )
        }
        SummaryBy::Month => (
            vec![
                "month",
                "currency",
                "won_count",
                "won_total",
                "lost_count",
                "lost_total",
            ],
            s.by_month
                .iter()
                .map(|((m, cur), wl)| {
                    vec![
                        Cell::Text(m.format("%Y-%m").to_string()),
                        Cell::Text(cur.clone()),
                        Cell::Count(wl.won.count),
                        Cell::Amount(wl.won.total),
                        Cell::Count(wl.lost.count),
                        Cell::Amount(wl.lost.total),
                    ]
                })
                .collect(),
        ),
    }
}

/// Columns aligned to their widest cell (numbers right), the header in capitals: the table
/// `deals summary` and `deals report` print.
pub(crate) fn write_table(
    header: &[&str],
    rows: &[Vec<Cell>],
    w: &mut impl Write,
) -> std::io::Result<()> {
    let shown: Vec<Vec<String>> = rows
        .iter()
        .map(|r| r.iter().map(|c| sanitize_cell(&c.shown())).collect())
        .collect();
    let widths: Vec<usize> = (0..header.len())
        .map(|i| {
            shown
                .iter()
                .map(|r| display_width(&r[i]))
                .chain([header[i].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: Vec<(String, bool)>| {
        cells
            .into_iter()
            .zip(&widths)
            .map(|((c, right), width)| {
                let pad = " ".repeat(width.saturating_sub(display_width(&c)));
                if right {
                    format!("{pad}{c}")
                } else {
                    format!("{c}{pad}")
                }
            })
            .collect::<Vec<_>>()
            .join("  ")
            .trim_end()
            .to_string()
    };
    let right: Vec<bool> = rows
        .first()
        .map(|r| r.iter().map(Cell::right_aligned).collect())
        .unwrap_or_else(|| vec![false; header.len()]);
    writeln!(
        w,
        "{}",
        line(
            header
                .iter()
                .zip(&right)
                .map(|(h, r)| (h.to_uppercase().replace('_', " "), *r))
                .collect()
        )
    )?;
    for r in shown {
        writeln!(
            w,
            "{}",
            line(r.into_iter().zip(right.iter().copied()).collect())
        )?;
    }
    Ok(())
}

/// A progress line on stderr while pages are read, only on a terminal.
struct Progress(Option<ProgressBar>);

impl Progress {
    fn new(stderr_is_terminal: bool) -> Self {
        if !stderr_is_terminal || !std::io::stderr().is_terminal() {
            return Progress(None);
        }
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template("{spinner} reading deals: {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        Progress(Some(bar))
    }

    fn update(&self, pages: u32, last: Option<u64>) {
        if let Some(bar) = &self.0 {
            bar.set_message(match last {
                Some(l) => format!("page {pages} of {l}"),
                None => format!("page {pages}"),
            });
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}
