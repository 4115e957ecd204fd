//! Command-line entry point: the clap `Cli` (global options and subcommands), exit codes, and
//! the one-line `error: ...` reporting every command shares.

pub mod auth;

use std::process::ExitCode;

use clap::parser::ValueSource;
use clap::{ArgMatches, CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::api::{ApiError, ErrorKind};
use crate::config::{ConfigError, EnvOverrides};
use crate::credentials::CredentialError;

/// Documented exit codes (README): scripts rely on them.
pub mod exit {
    pub const OK: u8 = 0;
    pub const OTHER: u8 = 1;
    pub const USAGE: u8 = 2;
    pub const UNAUTHORIZED: u8 = 3;
    pub const NOT_FOUND: u8 = 4;
    pub const REJECTED: u8 = 5;
    pub const NETWORK: u8 = 6;
}

/// A terminal dashboard and scriptable CLI for a CRM service's Public HTTP API v1.
#[derive(Debug, Parser)]
#[command(name = "crmdash", version, about, after_help = ENV_HELP)]
pub struct Cli {
    /// Service base URL (https://, or http:// to a loopback address only).
    #[arg(long, global = true, env = "CRMDASH_BASE_URL", value_name = "URL")]
    pub base_url: Option<String>,
    /// Profile: a saved base URL plus its token in the OS keyring.
    #[arg(long, global = true, env = "CRMDASH_PROFILE", value_name = "NAME")]
    pub profile: Option<String>,
    /// Run against the embedded sandbox: no account, no setup.
    #[arg(long, global = true)]
    pub demo: bool,
    /// Print each request (method, URL, status, time) on stderr; the token shows as ****.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    #[command(subcommand)]
    pub command: Option<Command>,
}

const ENV_HELP: &str = "Environment:
  CRMDASH_TOKEN     API token; overrides the keyring (CI, containers). Never pass it as an argument.
  CRMDASH_CONFIG    config file path (default: ~/.config/crmdash/config.toml on Linux)
  CRMDASH_KEYRING   keyutils: use the Linux kernel keyring instead of the Secret Service
  CRMDASH_LOG       log level for the log file (error, warn, info, debug, trace)

Exit codes: 0 ok, 1 other, 2 usage, 3 unauthorized/forbidden, 4 not found,
            5 rejected input, 6 network/server";

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Store an API token for a profile in the OS keyring (checked against the service first).
    #[command(after_help = "Examples:
  crmdash login --base-url https://crm.example.com
  printf '%s\\n' \"$TOKEN\" | crmdash login --profile ci --base-url https://crm.example.com --token-stdin")]
    Login(auth::LoginArgs),
    /// Delete a profile's token from the OS keyring.
    #[command(after_help = "Example:\n  crmdash logout --profile staging")]
    Logout,
    /// Credentials and profiles.
    #[command(subcommand)]
    Auth(AuthCommand),
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
}

impl Globals {
    fn from_matches(cli: &Cli, m: &ArgMatches) -> Self {
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
        }
    }
}

/// A failed command: the one line to print and the exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub code: u8,
    pub message: String,
}

impl Failure {
    pub fn new(code: u8, message: impl Into<String>) -> Self {
        Failure {
            code,
            message: message.into(),
        }
    }
}

/// Exit code of an API error class.
pub fn api_exit_code(e: &ApiError) -> u8 {
    match e.kind {
        ErrorKind::Unauthorized | ErrorKind::Forbidden => exit::UNAUTHORIZED,
        ErrorKind::NotFound => exit::NOT_FOUND,
        ErrorKind::InvalidRequest | ErrorKind::Validation | ErrorKind::Conflict => exit::REJECTED,
        ErrorKind::RateLimited
        | ErrorKind::Server
        | ErrorKind::Redirect
        | ErrorKind::Network
        | ErrorKind::Timeout
        | ErrorKind::BadResponse => exit::NETWORK,
        ErrorKind::Other => exit::OTHER,
    }
}

impl From<ApiError> for Failure {
    fn from(e: ApiError) -> Self {
        Failure::new(api_exit_code(&e), e.to_string())
    }
}

impl From<ConfigError> for Failure {
    fn from(e: ConfigError) -> Self {
        let code = match e {
            ConfigError::NoBaseUrl { .. } | ConfigError::BadProfileName { .. } => exit::USAGE,
            ConfigError::BadBaseUrl { .. } => exit::REJECTED,
            ConfigError::File { .. } => exit::OTHER,
        };
        Failure::new(code, e.to_string())
    }
}

impl From<CredentialError> for Failure {
    fn from(e: CredentialError) -> Self {
        let code = match e {
            CredentialError::NotLoggedIn { .. }
            | CredentialError::BaseUrlMismatch { .. }
            | CredentialError::NoSavedBaseUrl { .. } => exit::UNAUTHORIZED,
            CredentialError::EmptyToken | CredentialError::MalformedToken => exit::REJECTED,
            _ => exit::OTHER,
        };
        Failure::new(code, e.to_string())
    }
}

/// Parses arguments and runs the chosen mode.
pub fn main() -> ExitCode {
    let matches = match Cli::command().try_get_matches() {
        Ok(m) => m,
        Err(e) => {
            // Help and version print to stdout and exit 0; real usage errors exit 2.
            let _ = e.print();
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
            let _ = e.print();
            return ExitCode::from(exit::USAGE);
        }
    };
    let globals = Globals::from_matches(&cli, &matches);
    let Some(command) = cli.command else {
        eprintln!(
            "crmdash: the dashboard is not wired yet; for now use `crmdash login`, `crmdash auth status` or `crmdash logout` (see `crmdash --help`)"
        );
        return ExitCode::from(exit::OTHER);
    };
    crate::logging::init("info");
    let result = run_async(async move {
        match command {
            Command::Login(args) => auth::login(&globals, &args).await,
            Command::Logout => auth::logout(&globals).await,
            Command::Auth(AuthCommand::Status) => auth::status(&globals).await,
        }
    });
    match result {
        Ok(()) => ExitCode::from(exit::OK),
        Err(f) => {
            eprintln!("error: {}", f.message);
            ExitCode::from(f.code)
        }
    }
}

/// Runs a command on a fresh runtime. A keyring call stuck on a prompt lives on its own
/// thread, so leaving does not wait for it.
fn run_async<F: std::future::Future<Output = Result<(), Failure>>>(fut: F) -> Result<(), Failure> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Failure::new(exit::OTHER, format!("cannot start the async runtime: {e}")))?;
    let out = rt.block_on(fut);
    rt.shutdown_background();
    out
}
