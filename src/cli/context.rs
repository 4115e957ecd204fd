//! What every API command runs with: the client (observed for `-v`), the settings, and whether
//! stdin/stdout/stderr are terminals. `--demo` starts an in-process sandbox for the command.

use std::io::IsTerminal;

use secrecy::SecretString;

use crate::api::Client;
use crate::cli::exit::CliError;
use crate::cli::verbose;
use crate::config::Settings;
use crate::sandbox::{Sandbox, SandboxConfig};

/// The global options, as parsed.
#[derive(Debug, Clone, Default)]
pub struct GlobalOpts {
    pub base_url: Option<String>,
    pub profile: Option<String>,
    pub demo: bool,
    pub verbose: u8,
}

/// Which standard streams are terminals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ttys {
    pub stdin: bool,
    pub stdout: bool,
    pub stderr: bool,
}

impl Ttys {
    pub fn detect() -> Self {
        Ttys {
            stdin: std::io::stdin().is_terminal(),
            stdout: std::io::stdout().is_terminal(),
            stderr: std::io::stderr().is_terminal(),
        }
    }
}

/// A command's surroundings.
pub struct Ctx {
    pub client: Client,
    pub settings: Settings,
    pub tty: Ttys,
    /// Keeps the `--demo` sandbox running while the command runs; dropped after it.
    _sandbox: Option<Sandbox>,
}

impl Ctx {
    /// Resolves settings, base URL and token (or starts the demo sandbox) and builds the client.
    pub async fn build(global: &GlobalOpts) -> Result<Ctx, CliError> {
        let settings = super::setup::load_settings();
        let (client, sandbox) = if global.demo {
            let sb = Sandbox::start(SandboxConfig::default())
                .await
                .map_err(|e| CliError::other(format!("cannot start the demo sandbox: {e}")))?;
            let client = Client::new(&sb.base_url(), SecretString::from(sb.token().to_string()))?;
            (client, Some(sb))
        } else {
            let (base_url, token) = super::setup::resolve_endpoint(global, &settings).await?;
            (Client::new(&base_url, token)?, None)
        };
        let client = match verbose::observer(global.verbose) {
            Some(o) => client.with_observer(o),
            None => client,
        };
        Ok(Ctx {
            client,
            settings,
            tty: Ttys::detect(),
            _sandbox: sandbox,
        })
    }
}
