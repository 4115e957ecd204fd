//! The write gate as a front end holds it: the flags of the service a write reaches, who asks,
//! and the write journal its intents go to. Every write path (the CLI's create, reschedule,
//! import and `api`, plans, the dashboard) admits each write here before sending it; the gate
//! itself is `crmdash_api::gate`.

use crmdash_api::gate::{self, Asker, GateError, ProfileSafety, WriteIntent, WriteTicket};

use crate::journal::JournalFile;

/// Who asks, owned (a front end keeps it for a whole run).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Requester {
    /// A CLI command: the profile named by `--profile` and whether `--yes` was given.
    Cli {
        flag_profile: Option<String>,
        yes: bool,
    },
    /// The dashboard, which sends a protected profile's write only after its name was typed.
    Dashboard,
}

/// The gate for one profile and service.
#[derive(Debug, Clone)]
pub struct Gatekeeper {
    pub flags: ProfileSafety,
    /// The profile the flags come from (`crate::safety::ServiceFlags::guard`).
    pub guard: String,
    pub requester: Requester,
    pub journal: JournalFile,
}

impl Gatekeeper {
    /// Lets one write through (its intent journaled and synced first), or says why not.
    pub fn admit(&self, intent: &WriteIntent) -> Result<WriteTicket, GateError> {
        let asker = match &self.requester {
            Requester::Cli { flag_profile, yes } => Asker::Cli {
                flag_profile: flag_profile.as_deref(),
                yes: *yes,
            },
            Requester::Dashboard => Asker::Dashboard { name_typed: true },
        };
        gate::admit(self.flags, &self.guard, asker, &self.journal, intent)
    }

    /// [`Gatekeeper::admit`] on the blocking pool: the intent is a file lock, a write and a
    /// sync to the disk, which an async loop (the dashboard's, a run's) must not wait on.
    pub async fn admit_off_loop(&self, intent: WriteIntent) -> Result<WriteTicket, GateError> {
        let gate = self.clone();
        tokio::task::spawn_blocking(move || gate.admit(&intent))
            .await
            .unwrap_or_else(|e| Err(GateError::NotJournaled(std::io::Error::other(e))))
    }
}
