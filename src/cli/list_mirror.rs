//! `contacts|deals|projects list --source mirror`: the list answered from the local mirror's
//! complete copy, stdout exactly what `--source api` prints for the same options (the same
//! records, includes not asked for left out, in the same order and formats), one line on
//! stderr saying which mirror and when it was synced. `--all` streams in keyset batches of
//! 100 (one batch in memory), all of it inside one read snapshot.

use chrono::Timelike;

use crate::api::{ApiRecord, ContactQuery, DealQuery, ProjectQuery};
use crate::cli::context::Ctx;
use crate::cli::exit::CliError;
use crate::cli::format;
use crate::cli::list::PageArgs;
use crate::cli::paging;
use crate::cli::source::{self, MirrorSource};
use crate::mirror::{Mirror, MirrorError, MirrorQuery};
use crate::output::OutputError;

/// Records per batch of `--all`: the service's largest page, so every format (a table's
/// widths too) lays out the batches as it lays out the service's pages.
const BATCH: usize = crate::api::MAX_PER_PAGE as usize;

/// What a list query needs to be answered from the mirror exactly as the service answers it.
pub trait MirrorList: MirrorQuery {
    /// The query as the service receives it (`to_pairs`): times to the whole second.
    fn into_sent(self) -> Self {
        self
    }

    /// The filters given that compare a time: option name and mirror column.
    fn time_filters(&self) -> Vec<(&'static str, &'static str)> {
        Vec::new()
    }
}

impl MirrorList for ContactQuery {
    fn into_sent(mut self) -> Self {
        let whole = |t: Option<chrono::DateTime<chrono::Utc>>| t.and_then(|t| t.with_nanosecond(0));
        self.created_after = whole(self.created_after);
        self.updated_after = whole(self.updated_after);
        self
    }

    fn time_filters(&self) -> Vec<(&'static str, &'static str)> {
        let mut v = Vec::new();
        if self.created_after.is_some() {
            v.push(("--created-after", "created_us"));
        }
        if self.updated_after.is_some() {
            v.push(("--updated-after", "updated_us"));
        }
        v
    }
}

impl MirrorList for DealQuery {}
impl MirrorList for ProjectQuery {}

/// Why a list from the mirror stopped.
enum Stop {
    Mirror(MirrorError),
    Output(OutputError),
    Cli(CliError),
}

impl From<MirrorError> for Stop {
    fn from(e: MirrorError) -> Self {
        Stop::Mirror(e)
    }
}

impl From<CliError> for Stop {
    fn from(e: CliError) -> Self {
        Stop::Cli(e)
    }
}

/// Runs the list from the mirror. The query's paging is set and checked by the caller.
pub fn run<Q>(ctx: &Ctx, query: Q, args: &PageArgs) -> Result<(), CliError>
where
    Q: MirrorList,
    Q::Item: format::Printable,
{
    let query = query.into_sent();
    let shaper = args.shape.compile(&[
        ("--format", args.format.is_some()),
        ("--columns", args.columns.is_some()),
    ])?;
    let fmt = format::resolve(args.format, ctx.tty);
    let columns = match shaper {
        Some(_) => None,
        None => args.column_set::<Q::Item>(fmt)?,
    };
    let src = source::open(ctx)?;
    let read = src.mirror.in_snapshot(|m| -> Result<(), Stop> {
        let synced = src.complete(m, Q::RESOURCE)?;
        refuse_unreadable(&src, m, &query)?;
        crmdash_domain::say!("{}", src.provenance(synced));
        if let Some(shaper) = &shaper {
            let mut raws: Vec<String> = Vec::new();
            let mut keep = |records: Vec<Q::Item>| {
                raws.extend(records.iter().map(|r| r.raw().get().to_string()));
            };
            if args.all {
                m.each_seek(&query, BATCH, |records| {
                    keep(records);
                    Ok::<(), MirrorError>(())
                })?;
            } else {
                keep(m.page_as_sent(&query)?.page.data);
            }
            let mut out = crate::output::stdout();
            return shaper
                .emit_records(raws.iter().map(String::as_str), &mut out)
                .map_err(Stop::Cli);
        }
        let mut out = format::list_writer::<Q::Item>(fmt, columns);
        if args.all {
            m.each_seek(&query, BATCH, |records| {
                out.page(&records).map_err(Stop::Output)
            })?;
            out.finish().map_err(Stop::Output)?;
            return Ok(());
        }
        let page = m.page_as_sent(&query)?.page;
        let one = paging::OnePage {
            asked: crate::api::ListQuery::paging(&query),
            shown: page.data.len(),
            meta: page.meta,
        };
        out.page(&page.data).map_err(Stop::Output)?;
        out.finish().map_err(Stop::Output)?;
        if ctx.tty.stderr
            && let Some(note) = paging::partial_note(Q::RESOURCE.noun(), &one)
        {
            crmdash_domain::say!("{note}");
        }
        Ok(())
    });
    match read.map_err(Stop::Mirror).and_then(|r| r) {
        Ok(()) => Ok(()),
        Err(Stop::Mirror(e)) => Err(crate::cli::cache::read_error(e)),
        Err(Stop::Cli(e)) => Err(e),
        Err(Stop::Output(e)) => format::finish(Err(e)),
    }
}

/// A time filter on a resource some of whose mirrored records carry no time the mirror
/// could read: the service may read those times, the mirror cannot tell, so the filter is
/// refused (exit 5) rather than answered approximately.
fn refuse_unreadable<Q: MirrorList>(src: &MirrorSource, m: &Mirror, q: &Q) -> Result<(), Stop> {
    for (option, column) in q.time_filters() {
        let n = m.without_value(Q::RESOURCE, column)?;
        if n > 0 {
            let noun = Q::RESOURCE.noun();
            return Err(Stop::Cli(CliError::field(
                option.trim_start_matches('-').replace('-', "_").as_str(),
                format!(
                    "{option} cannot be answered exactly from the mirror of profile {}: {n} of its {noun} have no readable {} (use --source api)",
                    src.profile,
                    column.trim_end_matches("_us").to_string() + "_at",
                ),
            )));
        }
    }
    Ok(())
}
