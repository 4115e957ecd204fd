//! The `list` commands of all three resources: one generic runner driven by the query type,
//! plus the paging options they share and the filters of deals and projects.

use clap::Args;

use crate::api::{
    ApiError, ApiRecord, DealInclude, DealQuery, DealSort, ListQuery, MAX_PER_PAGE, Paging,
    ProjectInclude, ProjectQuery, ProjectSort, SortDirection,
};
use crate::cli::context::Ctx;
use crate::cli::exit::CliError;
use crate::cli::format;
use crate::cli::list_mirror::MirrorList;
use crate::cli::paging;
use crate::cli::shape::Shaper;
use crate::cli::source::Source;
use crate::output::{ColumnSet, Columns, Format, OutputError};

/// `--page`, `--per-page`, `--all`, `--format`: shared by every list.
#[derive(Debug, Clone, Args)]
pub struct PageArgs {
    /// Page number, 1 or more.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub page: Option<i64>,
    /// Records per page, 1 to 100.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub per_page: Option<i64>,
    /// Fetch every page (per_page=100) and print them together.
    #[arg(long, conflicts_with_all = ["page", "per_page"])]
    pub all: bool,
    /// Output format [default: table on a terminal, json otherwise]; jsonl is one record
    /// per line.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<Format>,
    /// CSV or table columns, in this order: fixed columns by name (the table's `updated`,
    /// `assignee`... for updated_at, assigned_user...), any other name a further field of the
    /// records [default: the resource's fixed columns].
    #[arg(long, value_delimiter = ',', value_name = "COL,...")]
    pub columns: Option<Vec<String>>,
    /// A saved view (views.toml beside the config file, `:save` in the dashboard) filling
    /// in the filters, sort, includes and page size not given as options.
    #[arg(long, value_name = "NAME", add = crate::cli::complete_names::views())]
    pub view: Option<String>,
    /// The `--view`'s columns (CLI names): used by csv and table output when `--columns`
    /// is not given; json and jsonl print whole records as always.
    #[arg(skip)]
    pub view_columns: Option<Vec<String>>,
    /// `--jq` and `--template` read one array: the records (of every page with --all) as
    /// the server sent them.
    #[command(flatten)]
    pub shape: crate::cli::shape::ShapeArgs,
    /// Read the records from the service, or from the local mirror's complete copy
    /// (`crmdash sync`): the same output, no request; a line on stderr says when it was synced.
    #[arg(long, value_enum, default_value = "api", value_name = "SOURCE")]
    pub source: Source,
}

impl PageArgs {
    /// Checks page >= 1 and per_page in 1..=100 (exit 5, nothing sent).
    pub fn paging(&self) -> Result<Paging, CliError> {
        let page = match self.page {
            Some(p) if p < 1 || p > u32::MAX as i64 => {
                return Err(CliError::field(
                    "page",
                    format!("--page must be 1 or more (got {p})"),
                ));
            }
            p => p.map(|p| p as u32),
        };
        let per_page = match self.per_page {
            Some(pp) if !(1..=MAX_PER_PAGE as i64).contains(&pp) => {
                return Err(CliError::field(
                    "per_page",
                    format!("--per-page must be between 1 and {MAX_PER_PAGE} (got {pp})"),
                ));
            }
            pp => pp.map(|pp| pp as u32),
        };
        Ok(Paging { page, per_page })
    }
}

/// Fetches (one page or all; with `--source mirror` reads them from the mirror) and prints
/// the records page by page: one page in memory at a
/// time, each written (and flushed) before the next is asked for. A reader that goes away
/// (`| head -1`) ends the walk at once, quietly.
pub async fn run<Q>(ctx: &Ctx, mut query: Q, args: &PageArgs) -> Result<(), CliError>
where
    Q: MirrorList,
    Q::Item: format::Printable,
{
    query.set_paging(args.paging()?);
    // Refuse a bad query before the first request, whatever page it would be on.
    query.to_pairs()?;
    if args.source == Source::Mirror {
        return crate::cli::list_mirror::run(ctx, query, args);
    }
    let shaper = args.shape.compile(&[
        ("--format", args.format.is_some()),
        ("--columns", args.columns.is_some()),
    ])?;
    if let Some(shaper) = shaper {
        return shaped(ctx, &query, args, &shaper).await;
    }
    let fmt = format::resolve(args.format, ctx.tty);
    let columns = args.column_set::<Q::Item>(fmt)?;
    let client = ctx.client().await?;
    let mut out = format::list_writer::<Q::Item>(fmt, columns);
    let walked = paging::each_page(client, &query, args.all, |records| {
        out.page(&records).map_err(Stop::Output)
    })
    .await;
    match walked.and_then(|one| out.finish().map(|_| one).map_err(Stop::Output)) {
        Ok(one) => {
            // Only a person at a terminal is told: a script asks for the page it wants, and
            // one paging until an empty page meets the end by design.
            if ctx.tty.stderr
                && let Some(note) =
                    one.and_then(|one| paging::partial_note(Q::RESOURCE.noun(), &one))
            {
                crmdash_domain::say!("{note}");
            }
            Ok(())
        }
        Err(Stop::Api(e)) => Err(e.into()),
        Err(Stop::Output(e)) => format::finish(Err(e)),
    }
}

/// A list through `--jq` or `--template`: the records gathered (every page with `--all`),
/// then printed as one array of the server's JSON.
async fn shaped<Q>(ctx: &Ctx, query: &Q, args: &PageArgs, shaper: &Shaper) -> Result<(), CliError>
where
    Q: ListQuery,
{
    let client = ctx.client().await?;
    let mut raws: Vec<String> = Vec::new();
    paging::each_page(client, query, args.all, |records| {
        raws.extend(records.iter().map(|r| r.raw().get().to_string()));
        Ok::<(), ApiError>(())
    })
    .await?;
    let mut out = crate::output::stdout();
    shaper.emit_records(raws.iter().map(String::as_str), &mut out)
}

/// Why a list stopped early.
enum Stop {
    Api(ApiError),
    Output(OutputError),
}

impl From<ApiError> for Stop {
    fn from(e: ApiError) -> Self {
        Stop::Api(e)
    }
}

impl PageArgs {
    /// `--columns` for CSV and table output (exit 2 with json or jsonl, exit 5 for a bad list).
    pub fn column_set<T: Columns>(&self, fmt: Format) -> Result<Option<ColumnSet>, CliError> {
        let whole = matches!(fmt, Format::Json | Format::Jsonl);
        let Some(asked) = &self.columns else {
            return match &self.view_columns {
                Some(cols) if !whole => ColumnSet::select::<T>(cols)
                    .map(Some)
                    .map_err(|m| CliError::field("columns", m)),
                _ => Ok(None),
            };
        };
        if whole {
            return Err(CliError::Usage(format!(
                "--columns applies to --format csv and table; {fmt} prints whole records"
            )));
        }
        ColumnSet::select::<T>(asked)
            .map(Some)
            .map_err(|m| CliError::field("columns", m))
    }
}

/// The options of a list filtered by name and status (deals, projects), with that
/// resource's sort keys, includes and examples.
macro_rules! name_status_args {
    ($(#[$doc:meta])* $name:ident, $query:ident, $sort:ty, $include:ty, $examples:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Args)]
        #[command(after_help = $examples)]
        pub struct $name {
            /// Filter by name.
            #[arg(long, value_name = "S")]
            pub name: Option<String>,
            /// Filter by status.
            #[arg(long, value_name = "S")]
            pub status: Option<String>,
            /// Sort key.
            #[arg(long, value_enum, value_name = "KEY")]
            pub sort_by: Option<$sort>,
            /// Sort direction.
            #[arg(long, value_enum, value_name = "DIR")]
            pub sort_direction: Option<SortDirection>,
            /// Related records to include, comma separated.
            #[arg(long, value_enum, value_delimiter = ',', value_name = "REL,...")]
            pub include: Vec<$include>,
            #[command(flatten)]
            pub paging: PageArgs,
        }

        impl $name {
            /// These options with `--view`'s filled in where left out.
            pub fn with_view(&self) -> Result<Self, CliError> {
                let Some(name) = &self.paging.view else {
                    return Ok(self.clone());
                };
                let q = crate::cli::view::load(name, <$query as crate::api::ListQuery>::RESOURCE)?;
                let (sort_by, sort_direction) =
                    crate::cli::view::sort(self.sort_by, self.sort_direction, &q);
                Ok($name {
                    name: crate::cli::view::filter(&self.name, &q, "name"),
                    status: crate::cli::view::filter(&self.status, &q, "status"),
                    sort_by,
                    sort_direction,
                    include: crate::cli::view::includes(&self.include, &q),
                    paging: crate::cli::view::paging(&self.paging, &q),
                })
            }

            pub fn query(&self) -> $query {
                $query {
                    name: self.name.clone(),
                    status: self.status.clone(),
                    sort_by: self.sort_by,
                    sort_direction: self.sort_direction,
                    include: self.include.clone(),
                    paging: Paging::default(),
                }
            }
        }
    };
}

name_status_args!(
    /// `crmdash deals list`.
    DealListArgs,
    DealQuery,
    DealSort,
    DealInclude,
    DEALS_EXAMPLES
);

const DEALS_EXAMPLES: &str = "\
Examples:
  crmdash deals list --status won --sort-by value --sort-direction desc
  crmdash deals list --include account,assigned_user --all --format csv > deals.csv";

name_status_args!(
    /// `crmdash projects list`.
    ProjectListArgs,
    ProjectQuery,
    ProjectSort,
    ProjectInclude,
    PROJECTS_EXAMPLES
);

const PROJECTS_EXAMPLES: &str = "\
Examples:
  crmdash projects list --status active --sort-by end_date
  crmdash projects list --include owner,members --per-page 50 --page 2 --format json";
