//! What every API command runs with: the client (observed for `-v`), the settings, and whether
//! stdin/stdout/stderr are terminals. `--demo` starts an in-process sandbox for the command.

use std::io::IsTerminal;

use secrecy::SecretString;
use tokio::sync::OnceCell;

use crate::api::Client;
use crate::cli::exit::CliError;
use crate::cli::verbose;
use crate::config::Settings;
use crate::sandbox::{Sandbox, SandboxConfig, SandboxHandle};

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

/// A command's surroundings. The client is built on first use, so every check a command makes
/// on its arguments comes before the token is looked up or a demo sandbox is started.
pub struct Ctx {
    pub settings: Settings,
    pub tty: Ttys,
    global: GlobalOpts,
    /// The client, and the `--demo` sandbox it talks to (stopped when the context is dropped).
    client: OnceCell<(Client, Option<SandboxHandle>)>,
}

impl Ctx {
    pub fn new(global: &GlobalOpts, settings: Settings) -> Ctx {
        Ctx {
            settings,
            tty: Ttys::detect(),
            global: global.clone(),
            client: OnceCell::new(),
        }
    }

    /// The profile in use (flag or env, the config's default, else `default`).
    pub fn profile_name(&self) -> String {
        if self.global.demo {
            return "demo".to_string();
        }
        self.global
            .profile
            .clone()
            .or_else(|| self.settings.default_profile.clone())
            .unwrap_or_else(|| "default".to_string())
    }

    /// The client: for `--demo` against a fresh in-process sandbox, else against the resolved
    /// base URL with the resolved token.
    pub async fn client(&self) -> Result<&Client, CliError> {
        let (client, _) = self
            .client
            .get_or_try_init(|| async {
                let (client, sandbox) = if self.global.demo {
                    let sb = Sandbox::start(SandboxConfig::default())
                        .await
                        .map_err(|e| {
                            CliError::other(format!("cannot start the demo sandbox: {e}"))
                        })?;
                    let client = Client::new(&sb.base_url(), SecretString::from(sb.token()))?;
                    (client, Some(sb))
                } else {
                    let (base_url, token) =
                        super::setup::resolve_endpoint(&self.global, &self.settings).await?;
                    (Client::new(&base_url, token)?, None)
                };
                let client = match verbose::observer(self.global.verbose) {
                    Some(o) => client.with_observer(o),
                    None => client,
                };
                Ok::<_, CliError>((client, sandbox))
            })
            .await?;
        Ok(client)
    }
}
