//! What every API command runs with: the settings, whether stdin/stdout/stderr are terminals,
//! and the client (observed for `-v`), built on first use. `--demo` starts an in-process
//! sandbox for the command and stops it afterwards.

use std::io::IsTerminal;

use secrecy::SecretString;
use tokio::sync::OnceCell;

use crate::api::Client;
use crate::cli::Globals;
use crate::cli::exit::CliError;
use crate::cli::{setup, verbose};
use crate::config::Settings;
use crate::sandbox::{Sandbox, SandboxConfig, SandboxHandle};

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

/// The client of a run, the profile it belongs to, and the `--demo` sandbox it talks to.
struct Connection {
    client: Client,
    profile: String,
    sandbox: Option<SandboxHandle>,
}

/// A command's surroundings. The client is built on first use, so every check a command makes
/// on its arguments comes before the token is looked up or a demo sandbox is started.
pub struct Ctx {
    pub settings: Settings,
    pub tty: Ttys,
    globals: Globals,
    connection: OnceCell<Connection>,
}

impl Ctx {
    /// Whether this run talks to a `--demo` sandbox.
    pub fn demo(&self) -> bool {
        self.globals.demo
    }

    pub fn new(globals: &Globals, settings: Settings) -> Ctx {
        Ctx {
            settings,
            tty: Ttys::detect(),
            globals: globals.clone(),
            connection: OnceCell::new(),
        }
    }

    /// The client: for `--demo` against a fresh in-process sandbox, else against the resolved
    /// base URL with the resolved token.
    pub async fn client(&self) -> Result<&Client, CliError> {
        Ok(&self.connection().await?.client)
    }

    /// The global flags of the run.
    pub fn globals(&self) -> &Globals {
        &self.globals
    }

    /// The `-v` level of the run (for commands that observe their client's requests).
    pub fn verbosity(&self) -> u8 {
        self.globals.verbose
    }

    /// The profile's safety flags allow this run to write (`crate::safety`): checked before a
    /// write command reads its input, asks, or sends. `yes`: the command's `--yes`.
    pub fn check_write(&self, yes: bool) -> Result<(), CliError> {
        if self.globals.demo {
            return Ok(());
        }
        let flag = self.globals.flag_profile.as_deref();
        let resolved = crate::config::resolve(
            &self.settings,
            flag,
            self.globals.flag_base_url.as_deref(),
            &self.globals.env,
        );
        // The service's flags when the base URL is known now; else the profile's (a missing
        // base URL fails later, when the client is built).
        let service = match resolved {
            Ok(r) => self.service_flags(&r.profile, &r.base_url),
            Err(_) => {
                let (profile, _) =
                    crate::config::resolve_profile(&self.settings, flag, &self.globals.env)?;
                self.service_flags(&profile, "")
            }
        };
        let asker = crate::safety::Asker::Cli {
            flag_profile: flag,
            yes,
        };
        crate::safety::check_write(&service.guard, service.flags, asker)?;
        Ok(())
    }

    /// The write journal of this run (`crate::journal`): a `--demo` run's own.
    pub fn journal_path(&self) -> Option<std::path::PathBuf> {
        crate::journal::path(self.globals.demo)
    }

    /// A journal entry of a write of this run's profile and service, sent now by the CLI.
    pub async fn write_record(
        &self,
        kind: crate::journal::WriteKind,
        sent: serde_json::Value,
        answer: crate::journal::Answer,
    ) -> Result<crate::journal::WriteRecord, CliError> {
        let conn = self.connection().await?;
        Ok(crate::journal::WriteRecord::new(
            kind,
            crate::journal::Who::Cli,
            &conn.profile,
            conn.client.base_url().as_str(),
            sent,
            answer,
        ))
    }

    /// The gate this run's writes pass (`crate::writes`): the flags of the service the client
    /// reaches (the strictest of every profile pointing at it), this command's `--profile` and
    /// `--yes`, and the run's write journal.
    pub async fn gatekeeper(&self, yes: bool) -> Result<crate::writes::Gatekeeper, CliError> {
        let conn = self.connection().await?;
        let service = self.service_flags(&conn.profile, conn.client.base_url().as_str());
        Ok(crate::writes::Gatekeeper {
            flags: service.flags,
            guard: service.guard,
            requester: crate::writes::Requester::Cli {
                flag_profile: self.globals.flag_profile.clone(),
                yes,
            },
            journal: crate::journal::JournalFile {
                path: self.journal_path(),
            },
        })
    }

    /// The flags a write of `profile` to `base_url` gets (`crate::safety::service_flags`; an
    /// unknown base URL: the profile's own); none for `--demo`, whose sandbox is no one's.
    fn service_flags(&self, profile: &str, base_url: &str) -> crate::safety::ServiceFlags {
        if self.globals.demo {
            return crate::safety::ServiceFlags {
                flags: crate::safety::ProfileSafety::default(),
                guard: profile.to_string(),
            };
        }
        crate::safety::service_flags(&self.settings, profile, base_url)
    }

    /// A write of `kind` by this run, as the journal records it before it is sent.
    pub async fn intent(
        &self,
        kind: crate::journal::WriteKind,
        sent: serde_json::Value,
    ) -> Result<crate::gate::WriteIntent, CliError> {
        let conn = self.connection().await?;
        Ok(crate::gate::WriteIntent {
            kind,
            who: crate::journal::Who::Cli,
            profile: conn.profile.clone(),
            base_url: conn.client.base_url().to_string(),
            target: None,
            sent,
            key: None,
            run: None,
            reserved_id: None,
        })
    }

    /// Lets one write of this run through the gate (see [`Ctx::gatekeeper`]).
    pub async fn admit(
        &self,
        yes: bool,
        intent: &crate::gate::WriteIntent,
    ) -> Result<crate::gate::WriteTicket, CliError> {
        Ok(self.gatekeeper(yes).await?.admit(intent)?)
    }

    /// The `--demo` sandbox this run talks to (none otherwise).
    pub async fn demo_sandbox(&self) -> Result<Option<&SandboxHandle>, CliError> {
        Ok(self.connection().await?.sandbox.as_ref())
    }

    /// The profile the client belongs to (`demo` for `--demo`).
    pub async fn profile(&self) -> Result<&str, CliError> {
        Ok(&self.connection().await?.profile)
    }

    async fn connection(&self) -> Result<&Connection, CliError> {
        self.connection
            .get_or_try_init(|| async {
                let options = self.settings.client_options();
                let mut conn = if self.globals.demo {
                    let sb = Sandbox::start(SandboxConfig::default())
                        .await
                        .map_err(|e| {
                            CliError::other(format!("cannot start the demo sandbox: {e}"))
                        })?;
                    let token = SecretString::from(sb.token());
                    Connection {
                        client: Client::with_options(&sb.base_url(), token, options)?,
                        profile: "demo".to_string(),
                        sandbox: Some(sb),
                    }
                } else {
                    let ep = setup::resolve_endpoint(&self.globals, &self.settings).await?;
                    Connection {
                        client: Client::with_options(&ep.base_url, ep.token, options)?,
                        profile: ep.profile,
                        sandbox: None,
                    }
                };
                if let Some(o) = verbose::observer(self.globals.verbose) {
                    conn.client = conn.client.with_observer(o);
                }
                Ok::<_, CliError>(conn)
            })
            .await
    }
}
