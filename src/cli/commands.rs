//! The API subcommands (contacts, deals, projects, appointments) and their dispatch.

use clap::Subcommand;

use crate::cli::appointments::{self, AppointmentsCommand};
use crate::cli::contacts::{self, ContactsCommand};
use crate::cli::context::Ctx;
use crate::cli::exit::CliError;
use crate::cli::import;
use crate::cli::list::{self, DealListArgs, ProjectListArgs};
use crate::cli::summary;

/// Commands that talk to the service.
#[derive(Debug, Clone, Subcommand)]
pub enum ApiCommand {
    /// Contacts: list, create, import from CSV.
    #[command(after_help = CONTACTS_EXAMPLES)]
    Contacts {
        #[command(subcommand)]
        command: ContactsCommand,
    },
    /// Deals: list, summary (totals by status, currency or month).
    #[command(after_help = DEALS_EXAMPLES)]
    Deals {
        #[command(subcommand)]
        command: DealsCommand,
    },
    /// Projects: list.
    #[command(after_help = PROJECTS_EXAMPLES)]
    Projects {
        #[command(subcommand)]
        command: ProjectsCommand,
    },
    /// Appointments: reschedule, and the log of reschedules sent.
    #[command(after_help = APPOINTMENTS_EXAMPLES)]
    Appointments {
        #[command(subcommand)]
        command: AppointmentsCommand,
    },
    /// The write journal: every create, reschedule, import row and bulk write sent from this
    /// machine (CLI and dashboard), oldest first, with the answer (times in UTC).
    #[command(after_help = crate::cli::write_log::EXAMPLES)]
    Log(crate::cli::write_log::LogArgs),
}

#[derive(Debug, Clone, Subcommand)]
pub enum DealsCommand {
    /// List deals (GET /public/v1/deals).
    List(DealListArgs),
    /// Count and total value by status and currency, or won and lost by month (exact, never
    /// summed across currencies).
    Summary(summary::DealSummaryArgs),
    /// The pipeline over time, from the local mirror's change feed: waterfall,
    /// time-in-status, velocity, forecast or stale (per currency, never summed across).
    Report(crate::cli::report::DealReportArgs),
}

#[derive(Debug, Clone, Subcommand)]
pub enum ProjectsCommand {
    /// List projects (GET /public/v1/projects).
    List(ProjectListArgs),
}

const CONTACTS_EXAMPLES: &str = "\
Examples:
  crmdash contacts list --email ada@example.com
  crmdash contacts create --first-name Ada --email ada@example.com
  crmdash contacts import people.csv --dry-run";

const DEALS_EXAMPLES: &str = "\
Examples:
  crmdash deals list --status open --sort-by value --sort-direction desc
  crmdash deals summary --by currency
  crmdash deals report waterfall --since 30d";

const PROJECTS_EXAMPLES: &str = "\
Examples:
  crmdash projects list --include owner --all --format csv";

const APPOINTMENTS_EXAMPLES: &str = "\
Examples:
  crmdash appointments reschedule 8412 --start 'tomorrow 09:30' --end 30m
  crmdash appointments log --format csv";

/// Runs one API command.
pub async fn run(ctx: &Ctx, command: &ApiCommand) -> Result<(), CliError> {
    match command {
        ApiCommand::Contacts { command } => match command {
            ContactsCommand::List(args) => {
                let args = args.with_view()?;
                list::run(ctx, args.query()?, &args.paging).await
            }
            ContactsCommand::Create(args) => contacts::create(ctx, args).await,
            ContactsCommand::Import(args) => import::run(ctx, args).await,
            ContactsCommand::Dupes(args) => {
                crate::cli::dupes::run(ctx.globals(), &ctx.settings, args).await
            }
        },
        ApiCommand::Deals { command } => match command {
            DealsCommand::List(args) => {
                let args = args.with_view()?;
                list::run(ctx, args.query(), &args.paging).await
            }
            DealsCommand::Summary(args) => summary::run(ctx, args).await,
            DealsCommand::Report(args) => crate::cli::report::run(ctx, args).await,
        },
        ApiCommand::Projects {
            command: ProjectsCommand::List(args),
        } => {
            let args = args.with_view()?;
            list::run(ctx, args.query(), &args.paging).await
        }
        ApiCommand::Appointments {
            command: AppointmentsCommand::Reschedule(args),
        } => appointments::reschedule(ctx, args).await,
        ApiCommand::Appointments {
            command: AppointmentsCommand::Log(args),
        } => appointments::show_log(ctx, args),
        ApiCommand::Log(args) => crate::cli::write_log::run(ctx, args),
    }
}
