//! Command-line entry point: the clap `Cli` (global options and subcommands), then one of the
//! modes: the dashboard, an API command, login/logout/auth, completions, man pages or the
//! sandbox.

pub mod appointments;
pub mod auth;
pub mod cache;
pub mod changes;
pub mod commands;
pub mod complete_names;
pub mod completions;
pub mod contacts;
pub mod context;
pub mod dashboard;
pub mod demo_history;
pub mod doctor;
pub mod dupes;
pub mod exit;
pub mod format;
pub mod import;
pub mod list;
pub mod list_mirror;
pub mod man;
pub mod paging;
pub mod plan;
pub mod report;
pub mod request;
pub mod search;
pub mod setup;
pub mod shape;
pub mod source;
pub mod summary;
pub mod sync;
pub mod times;
pub mod verbose;
pub mod view;
pub mod watch;
pub mod write_log;

use std::process::ExitCode;

use clap::parser::ValueSource;
use clap::{ArgMatches, CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::config::EnvOverrides;

pub use exit::{CliError, EXIT_CODES_HELP, Exit, Failure, api_exit_code, exit_for_api};

use commands::ApiCommand;
use completions::CompletionsArgs;
use context::Ctx;

const GLOBAL: &str = "Global options";

/// `crmdash --version`: the package version, the commit and its date (see build.rs).
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("CRMDASH_COMMIT"),
    ", ",
    env!("CRMDASH_BUILD_DATE"),
    ")"
);

/// A terminal dashboard and scriptable CLI for a CRM service's Public HTTP API v1.
#[derive(Debug, Parser)]
#[command(name = "crmdash", version = VERSION, about, after_help = top_help())]
pub struct Cli {
    #[command(flatten)]
    pub globals: GlobalArgs,
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The global options: all the dashboard (no subcommand) takes.
#[derive(Debug, clap::Args)]
pub struct GlobalArgs {
    /// Service base URL (https://, or http:// to a loopback address only).
    #[arg(long, global = true, env = "CRMDASH_BASE_URL", value_name = "URL", help_heading = GLOBAL)]
    pub base_url: Option<String>,
    /// Profile: a saved base URL plus its token in the OS keyring.
    #[arg(long, global = true, env = "CRMDASH_PROFILE", value_name = "NAME", help_heading = GLOBAL,
          add = complete_names::profiles())]
    pub profile: Option<String>,
    /// Run against the embedded sandbox: no account, no setup.
    #[arg(long, global = true, help_heading = GLOBAL)]
    pub demo: bool,
    /// Print each request (method, URL, status, time) on stderr; -vv adds the headers, the token
    /// shown as ****.
    #[arg(short, long, global = true, action = clap::ArgAction::Count, help_heading = GLOBAL)]
    pub verbose: u8,
    /// Write CSV cells that start like a spreadsheet formula (=, +, -, @, tab, CR) as they are,
    /// without the leading ' that otherwise makes them text (lists, exports, reports).
    #[arg(long, global = true, help_heading = GLOBAL)]
    pub csv_raw: bool,
}

/// The dashboard's command line (no subcommand, no help or version asked), parsed against the
/// global options alone: the whole tree (every subcommand's arguments, their help) is some
/// 450 KB of code run and a heap of strings that the dashboard would keep resident for nothing.
/// `None` for anything else (a subcommand, `--help`, a mistake): the whole tree parses it then,
/// and says what it says.
fn dashboard_args(
    argv: impl IntoIterator<Item = std::ffi::OsString>,
) -> Option<(GlobalArgs, ArgMatches)> {
    use clap::Args;
    let cmd = GlobalArgs::augment_args(
        clap::Command::new("crmdash")
            .disable_help_flag(true)
            .disable_version_flag(true)
            .disable_help_subcommand(true),
    );
    let matches = cmd.try_get_matches_from(argv).ok()?;
    let globals = GlobalArgs::from_arg_matches(&matches).ok()?;
    Some((globals, matches))
}

const ENV_HELP: &str = "Environment:
  CRMDASH_TOKEN     API token; overrides the keyring (CI, containers). Never pass it as an argument.
  CRMDASH_CONFIG    config file path (default: ~/.config/crmdash/config.toml on Linux)
  CRMDASH_KEYRING   keyutils: use the Linux kernel keyring instead of the Secret Service
  CRMDASH_LOG       log level for the log file (error, warn, info, debug, trace)";

fn top_help() -> String {
    format!(
        "Examples:\n  \
         crmdash --demo                        the dashboard on the embedded sandbox\n  \
         crmdash login --base-url https://crm.example.com\n  \
         crmdash contacts list --all --format csv > contacts.csv\n  \
         crmdash deals list --status open --sort-by value --sort-direction desc\n  \
         crmdash appointments reschedule 8412 --start 'tomorrow 09:30' --yes\n\n\
         {ENV_HELP}\n\n{EXIT_CODES_HELP}"
    )
}

#[derive(Debug, Subcommand)]
pub enum Command {
    #[command(flatten)]
    Api(ApiCommand),
    /// Store an API token for a profile in the OS keyring (checked against the service first).
    #[command(after_help = "Examples:
  crmdash login --base-url https://crm.example.com
  printf '%s\\n' \"$TOKEN\" | crmdash login --profile ci --base-url https://crm.example.com --token-stdin")]
    Login(auth::LoginArgs),
    /// Delete a profile's token from the OS keyring.
    #[command(after_help = "Example:\n  crmdash logout --profile staging")]
    Logout,
    /// Credentials and profiles.
    #[command(
        subcommand,
        after_help = "Example:\n  crmdash auth status --profile work"
    )]
    Auth(AuthCommand),
    /// Bring the local mirror (contacts, deals, projects on disk) up to date.
    #[command(after_help = sync::EXAMPLES)]
    Sync(sync::SyncArgs),
    /// Search the local mirror: names, emails, phones, accounts, statuses, custom fields.
    #[command(after_help = search::EXAMPLES)]
    Search(search::SearchArgs),
    /// What the syncs saw change: created, updated (field by field), gone, back.
    #[command(after_help = changes::EXAMPLES)]
    Changes(changes::ChangesArgs),
    /// Sync every --every and print each new change as a JSON line, or run a program per change.
    #[command(after_help = watch::EXAMPLES)]
    Watch(watch::WatchArgs),
    /// The local mirror's files.
    #[command(
        subcommand,
        after_help = "Example:\n  crmdash cache clear --profile work"
    )]
    Cache(cache::CacheCommand),
    /// Any request to the service's API v1 with the profile's base URL and token (like `gh api`).
    #[command(name = "api")]
    Request(request::ApiArgs),
    /// Check what a bug report needs: config, keyring, service, mirror, terminal.
    #[command(after_help = doctor::EXAMPLES)]
    Doctor,
    /// Print a shell completion script.
    Completions(CompletionsArgs),
    /// Write the man pages (one per command) into a directory.
    Man(man::ManArgs),
    /// Run the embedded sandbox (a local fake of the service) in the foreground.
    Sandbox(crate::sandbox::SandboxArgs),
}

#[derive(Debug, Subcommand)]
pub enum AuthCommand {
    /// Show the profile, base URL, where the token comes from, and whether the service accepts it.
    #[command(after_help = "Example:\n  crmdash auth status --profile work")]
    Status,
}

/// Global options after parsing, with flags and environment told apart (clap merges them).
#[derive(Debug, Clone, Default)]
pub struct Globals {
    pub flag_profile: Option<String>,
    pub flag_base_url: Option<String>,
    pub env: EnvOverrides,
    pub demo: bool,
    pub verbose: u8,
    /// `--csv-raw`: CSV formula cells written as they are.
    pub csv_raw: bool,
}

impl Globals {
    fn from_matches(cli: &GlobalArgs, m: &ArgMatches) -> Self {
        let split = |id: &str, v: &Option<String>| -> (Option<String>, Option<String>) {
            match m.value_source(id) {
                Some(ValueSource::EnvVariable) => (None, v.clone()),
                _ => (v.clone(), None),
            }
        };
        let (flag_profile, env_profile) = split("profile", &cli.profile);
        let (flag_base_url, env_base_url) = split("base_url", &cli.base_url);
        Globals {
            flag_profile,
            flag_base_url,
            env: EnvOverrides {
                profile: env_profile,
                base_url: env_base_url,
            },
            demo: cli.demo,
            verbose: cli.verbose,
            csv_raw: cli.csv_raw,
        }
    }
}

/// Parses arguments and runs the chosen mode.
/// A usage error (or help, or the version) through the terminal filter: an argument echoed
/// back in it (`invalid value '…'`) cannot act on the terminal.
fn print_clap(e: &clap::Error) {
    use std::io::Write as _;
    let text = e.render().to_string();
    if e.use_stderr() {
        let _ = write!(crate::output::stderr(), "{text}");
    } else {
        let _ = write!(crate::output::stdout(), "{text}");
    }
}

pub fn main() -> ExitCode {
    // `COMPLETE=bash crmdash ...`: the shell asks for completions; answered, then exit.
    complete_names::answer_if_asked();
    let (globals, command) = match dashboard_args(std::env::args_os()) {
        Some((args, matches)) => (Globals::from_matches(&args, &matches), None),
        None => {
            let matches = match Cli::command().try_get_matches() {
                Ok(m) => m,
                Err(e) => {
                    // Help and version print to stdout and exit 0; real usage errors exit 2.
                    print_clap(&e);
                    return ExitCode::from(if e.use_stderr() {
                        exit::USAGE
                    } else {
                        exit::OK
                    });
                }
            };
            let cli = match Cli::from_arg_matches(&matches) {
                Ok(c) => c,
                Err(e) => {
                    print_clap(&e);
                    return ExitCode::from(exit::USAGE);
                }
            };
            (Globals::from_matches(&cli.globals, &matches), cli.command)
        }
    };
    crate::output::set_csv_formulas(if globals.csv_raw {
        crate::output::CsvFormulas::Raw
    } else {
        crate::output::CsvFormulas::Neutralise
    });
    let Some(command) = command else {
        limit_malloc_arenas();
        let log_path = crate::logging::init("info");
        let mut ended = None;
        let result = run_local(async {
            ended = Some(dashboard::run(&globals, log_path).await?);
            Ok(())
        });
        crate::mirror::paths::discard_demo();
        return match (result, ended) {
            (Ok(()), Some(ended)) => {
                // Said after the terminal is restored, where the user can read it.
                if let Some(why) = &ended.state_not_saved {
                    crmdash_domain::say!("warning: {why}");
                }
                match ended.signal {
                    Some(sig) => ExitCode::from(128u8.saturating_add(sig as u8)),
                    None => Exit::Ok.into(),
                }
            }
            (Ok(()), None) => Exit::Ok.into(),
            (Err(e), _) => {
                e.report();
                e.exit().into()
            }
        };
    };
    let result = match command {
        Command::Completions(args) => {
            completions::write(args.shell, &mut Cli::command(), &mut std::io::stdout());
            Ok(())
        }
        Command::Man(args) => man::write_pages(Cli::command(), &args.dir).map(|pages| {
            use std::io::Write as _;
            // The paths are a courtesy: a reader that went away changes nothing written.
            let mut out = std::io::stdout().lock();
            for page in pages {
                let _ = writeln!(out, "{}", page.display());
            }
        }),
        Command::Sandbox(args) => run_async(async move {
            crate::sandbox::run_foreground(args)
                .await
                .map_err(|e| CliError::other(format!("{e:#}")))
        }),
        // Reading the feed from the mirror (no `--sync`) awaits nothing: a current-thread
        // runtime, without worker threads to start and wake, is all it needs.
        Command::Changes(args) if !args.sync => {
            crate::logging::init("info");
            run_local(async move {
                let ctx = Ctx::new(&globals, setup::load_settings());
                changes::run(&ctx, &args).await
            })
        }
        command => {
            crate::logging::init("info");
            run_async(async move {
                match command {
                    Command::Login(args) => Ok(auth::login(&globals, &args).await?),
                    Command::Logout => Ok(auth::logout(&globals).await?),
                    Command::Auth(AuthCommand::Status) => Ok(auth::status(&globals).await?),
                    Command::Sync(args) => {
                        let ctx = Ctx::new(&globals, setup::load_settings());
                        sync::run(&ctx, &args).await
                    }
                    Command::Search(args) => search::run(&globals, &setup::load_settings(), &args),
                    Command::Changes(args) => {
                        let ctx = Ctx::new(&globals, setup::load_settings());
                        changes::run(&ctx, &args).await
                    }
                    Command::Watch(args) => {
                        let ctx = Ctx::new(&globals, setup::load_settings());
                        watch::run(&ctx, &args).await
                    }
                    Command::Cache(cache::CacheCommand::Clear(args)) => {
                        cache::clear(&globals, &setup::load_settings(), &args)
                    }
                    Command::Api(cmd) => {
                        let ctx = Ctx::new(&globals, setup::load_settings());
                        commands::run(&ctx, &cmd).await
                    }
                    Command::Doctor => doctor::run(&globals).await,
                    Command::Request(args) => {
                        let ctx = Ctx::new(&globals, setup::load_settings());
                        request::run(&ctx, &args).await
                    }
                    Command::Completions(_) | Command::Man(_) | Command::Sandbox(_) => Ok(()),
                }
            })
        }
    };
    crate::mirror::paths::discard_demo();
    match result {
        Ok(()) => Exit::Ok.into(),
        Err(e) => {
            e.report();
            e.exit().into()
        }
    }
}

/// The dashboard's runtime: one thread. Its loop spends microseconds per key or answer, so a
/// second worker buys no throughput; it would cost a cross-thread wake-up per key (the
/// terminal's event thread wakes whichever worker is parked), a stack and a malloc arena.
/// Blocking work (formatting pages, file I/O) still goes to `spawn_blocking` threads.
fn run_local<F: std::future::Future<Output = Result<(), CliError>>>(
    fut: F,
) -> Result<(), CliError> {
    run_on(tokio::runtime::Builder::new_current_thread(), fut)
}

/// glibc gives every thread that allocates its own arena, each keeping its freed memory: with
/// the runtime, terminal and blocking-pool threads that is ~1 MB of resident heap for a
/// program that allocates little and rarely from two threads at once. One arena is plenty.
fn limit_malloc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator tunable; called before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}

/// Runs a command on a fresh runtime. A keyring call stuck on a prompt lives on its own
/// thread, so leaving does not wait for it.
fn run_async<F: std::future::Future<Output = Result<(), CliError>>>(
    fut: F,
) -> Result<(), CliError> {
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    builder.worker_threads(2);
    run_on(builder, fut)
}

/// Runs `fut` on a runtime from `builder`; leaving does not wait for blocking threads.
fn run_on<F: std::future::Future<Output = Result<(), CliError>>>(
    mut builder: tokio::runtime::Builder,
    fut: F,
) -> Result<(), CliError> {
    let rt = builder
        .enable_all()
        .build()
        .map_err(|e| CliError::other(format!("cannot start the async runtime: {e}")))?;
    let out = rt.block_on(fut);
    rt.shutdown_background();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clap_tree_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn every_command_has_an_example_in_its_help() {
        fn walk(cmd: &clap::Command, path: &str) {
            if cmd.get_name() == "help" {
                return;
            }
            let after = cmd
                .get_after_help()
                .map(|s| s.to_string())
                .unwrap_or_default();
            assert!(
                after.contains("Example"),
                "`{path}` has no example in its help"
            );
            for sub in cmd.get_subcommands() {
                walk(sub, &format!("{path} {}", sub.get_name()));
            }
        }
        walk(&Cli::command(), "crmdash");
    }

    #[test]
    fn global_options_parse_after_the_subcommand() {
        let cli = Cli::try_parse_from([
            "crmdash",
            "deals",
            "list",
            "--profile",
            "work",
            "--demo",
            "-vv",
        ])
        .unwrap();
        assert_eq!(cli.globals.profile.as_deref(), Some("work"));
        assert!(cli.globals.demo);
        assert_eq!(cli.globals.verbose, 2);
    }

    fn argv(words: &[&str]) -> Vec<std::ffi::OsString> {
        words.iter().map(Into::into).collect()
    }

    /// The dashboard's own parse (global options only) reads what the whole tree reads, and
    /// leaves everything else to it.
    #[test]
    fn the_dashboard_parses_its_options_without_the_whole_tree() {
        for words in [
            &["crmdash"][..],
            &["crmdash", "--demo"],
            &["crmdash", "--profile", "work", "-vv"],
            &["crmdash", "--base-url=http://127.0.0.1:9", "-v", "--demo"],
        ] {
            let (args, matches) = dashboard_args(argv(words))
                .unwrap_or_else(|| panic!("{words:?} is the dashboard's"));
            let light = Globals::from_matches(&args, &matches);
            let cli = Cli::try_parse_from(words).unwrap();
            assert!(cli.command.is_none());
            let full = Globals::from_matches(&cli.globals, &Cli::command().get_matches_from(words));
            assert_eq!(format!("{light:?}"), format!("{full:?}"), "{words:?}");
        }
        assert!(
            dashboard_args(argv(&["crmdash", "--profile", "work", "-vv"])).is_some_and(|(a, _)| a
                .profile
                .as_deref()
                == Some("work")
                && a.verbose == 2)
        );
        // Subcommands, help, version and mistakes go to the whole tree.
        for words in [
            &["crmdash", "deals", "list"][..],
            &["crmdash", "--demo", "sync"],
            &["crmdash", "--help"],
            &["crmdash", "-h"],
            &["crmdash", "--version"],
            &["crmdash", "-V"],
            &["crmdash", "help"],
            &["crmdash", "--profile"],
            &["crmdash", "--no-such-option"],
        ] {
            assert!(dashboard_args(argv(words)).is_none(), "{words:?}");
        }
    }
}
