//! The one gate every write passes: the CLI, the dashboard, imports, plans and `crmdash api`
//! alike. A request that can change the service is sent only with a [`WriteTicket`], and only
//! [`admit`] makes one: it checks the safety flags of the service the write reaches
//! ([`check_write`]) and records the write's intent (what, where, its idempotency key) through
//! an [`IntentJournal`] before anything leaves. The client's write calls take a ticket, and the
//! ticket's field is private to this crate, so a path that skips the gate does not compile.
//!
//! The journal is given by the caller (crmdash's is the write journal of `crmdash-domain`): a
//! write whose intent cannot be recorded is refused ([`GateError::NotJournaled`]), nothing sent.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A profile's safety flags (`[profiles.NAME] read_only`, `protected`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ProfileSafety {
    pub read_only: bool,
    pub protected: bool,
}

impl ProfileSafety {
    /// `read-only`, `protected`, both, or `none`: what `auth status` and `:profile` print.
    pub fn describe(self) -> &'static str {
        match (self.read_only, self.protected) {
            (true, true) => "read-only, protected",
            (true, false) => "read-only",
            (false, true) => "protected",
            (false, false) => "none",
        }
    }
}

/// Who asks to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asker<'a> {
    /// A CLI command: the profile named by `--profile` on its command line (not one from
    /// `CRMDASH_PROFILE` or the config's default) and whether `--yes` was given.
    Cli {
        flag_profile: Option<&'a str>,
        yes: bool,
    },
    /// The dashboard: it asks for a protected profile's name typed itself; `name_typed` once
    /// the user typed it (the dashboard sends a write only then).
    Dashboard { name_typed: bool },
}

/// What a write needs before it may be sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clearance {
    /// Nothing more: send (after the dashboard's undo window, when there is one).
    Send,
    /// The dashboard must have the profile's name typed first.
    TypeProfileName,
}

/// Why a write was refused. Nothing was sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error(
        "profile '{profile}' is read-only (read_only = true in the config file): nothing was sent"
    )]
    ReadOnly { profile: String },
    #[error(
        "profile '{profile}' is protected: a write needs --yes and --profile {profile} on the command line (CRMDASH_PROFILE or the default profile is not enough); nothing was sent"
    )]
    ProtectedNeedsExplicit { profile: String },
    #[error(
        "profile '{profile}' is protected: its name must be typed before a write; nothing was sent"
    )]
    ProtectedNeedsName { profile: String },
}

/// Whether `profile` (with these flags) may be written to by `asker`. Every write path calls
/// it before it reads its input or sends anything: the CLI's create, reschedule and import,
/// the dashboard's forms, and bulk runs.
pub fn check_write(
    profile: &str,
    safety: ProfileSafety,
    asker: Asker<'_>,
) -> Result<Clearance, Refusal> {
    if safety.read_only {
        return Err(Refusal::ReadOnly {
            profile: profile.to_string(),
        });
    }
    if !safety.protected {
        return Ok(Clearance::Send);
    }
    match asker {
        Asker::Dashboard { name_typed: false } => Ok(Clearance::TypeProfileName),
        Asker::Dashboard { name_typed: true } => Ok(Clearance::Send),
        Asker::Cli { flag_profile, yes } => {
            if yes && flag_profile.map(str::trim) == Some(profile) {
                Ok(Clearance::Send)
            } else {
                Err(Refusal::ProtectedNeedsExplicit {
                    profile: profile.to_string(),
                })
            }
        }
    }
}

/// What kind of write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum WriteKind {
    /// A contact created (CLI `contacts create`, the dashboard's form).
    Create,
    /// An appointment rescheduled.
    Reschedule,
    /// One row of `contacts import` sent.
    Import,
    /// One write of a bulk run (a reschedule plan, a run over selected rows).
    Bulk,
    /// A request of `crmdash api` with a method that can change the service.
    Api,
}

impl WriteKind {
    pub fn name(self) -> &'static str {
        match self {
            WriteKind::Create => "create",
            WriteKind::Reschedule => "reschedule",
            WriteKind::Import => "import",
            WriteKind::Bulk => "bulk",
            WriteKind::Api => "api",
        }
    }
}

/// Who sent it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Who {
    Cli,
    Dashboard,
    /// Merged in from an earlier log that did not say.
    Unknown,
}

impl Who {
    pub fn name(self) -> &'static str {
        match self {
            Who::Cli => "cli",
            Who::Dashboard => "dashboard",
            Who::Unknown => "unknown",
        }
    }
}

/// A write about to be sent, as its journal records it before the wire.
#[derive(Debug, Clone, PartialEq)]
pub struct WriteIntent {
    pub kind: WriteKind,
    pub who: Who,
    /// The profile whose flags were checked.
    pub profile: String,
    /// The service it goes to.
    pub base_url: String,
    /// The record written (an appointment's id), when known before sending.
    pub target: Option<String>,
    /// The body (or, for `crmdash api`, the method, path and body) as it will be sent.
    pub sent: Value,
    /// The Idempotency-Key sent with it.
    pub key: Option<String>,
    /// The import or bulk run it belongs to.
    pub run: Option<String>,
    /// The id the journal already knows this write by (the dashboard records a write held in
    /// its undo window before it is sent): the ticket takes it, so the journal shows one write
    /// from held to answered. `None`: a fresh id.
    pub reserved_id: Option<String>,
}

/// Where intents are recorded before they are sent.
pub trait IntentJournal: Send + Sync {
    /// Records `intent` under `id`, durably (flushed to the disk), before it is sent. An error
    /// says why it could not be: the write is then not sent.
    fn intend(&self, id: &str, intent: &WriteIntent) -> std::io::Result<()>;
}

/// Why the gate did not let a write through. Nothing was sent.
#[derive(Debug, thiserror::Error)]
pub enum GateError {
    #[error(transparent)]
    Refused(#[from] Refusal),
    #[error("{0}: the write was not sent")]
    NotJournaled(std::io::Error),
}

/// The gate's leave to send one write (and its retries, which resend the same request): the
/// safety flags were checked and the intent recorded under [`WriteTicket::id`]. Not `Clone`.
#[derive(Debug)]
pub struct WriteTicket {
    id: String,
}

impl WriteTicket {
    /// The id its intent was recorded under: the answer is recorded under it too.
    pub fn id(&self) -> &str {
        &self.id
    }
}

/// Lets one write through, or says why not: `flags` are those of the service the write reaches
/// (the strictest of every profile pointing at it), `guard` the profile they come from (the
/// name a protected write must be given), `asker` who asks.
pub fn admit(
    flags: ProfileSafety,
    guard: &str,
    asker: Asker<'_>,
    journal: &dyn IntentJournal,
    intent: &WriteIntent,
) -> Result<WriteTicket, GateError> {
    match check_write(guard, flags, asker)? {
        Clearance::Send => {}
        Clearance::TypeProfileName => {
            return Err(Refusal::ProtectedNeedsName {
                profile: guard.to_string(),
            }
            .into());
        }
    }
    let id = intent
        .reserved_id
        .clone()
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    journal
        .intend(&id, intent)
        .map_err(GateError::NotJournaled)?;
    Ok(WriteTicket { id })
}

/// An [`IntentJournal`] in memory: what tests and previews that send to a sandbox use.
#[derive(Debug, Default)]
pub struct MemoryJournal {
    intents: std::sync::Mutex<Vec<(String, WriteIntent)>>,
}

impl MemoryJournal {
    /// A ticket for a write of `profile` with no flags, its intent recorded here: what tests
    /// that drive the client directly against a sandbox use.
    pub fn admit_unflagged(&self, profile: &str) -> WriteTicket {
        let intent = WriteIntent {
            kind: WriteKind::Create,
            who: Who::Cli,
            profile: profile.into(),
            base_url: String::new(),
            target: None,
            sent: Value::Null,
            key: None,
            run: None,
            reserved_id: None,
        };
        let asker = Asker::Cli {
            flag_profile: None,
            yes: false,
        };
        admit(ProfileSafety::default(), profile, asker, self, &intent)
            .expect("a write with no flags passes, and memory always records")
    }

    /// The intents recorded, oldest first.
    pub fn intents(&self) -> Vec<(String, WriteIntent)> {
        self.intents
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

impl IntentJournal for MemoryJournal {
    fn intend(&self, id: &str, intent: &WriteIntent) -> std::io::Result<()> {
        self.intents
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((id.to_string(), intent.clone()));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RO: ProfileSafety = ProfileSafety {
        read_only: true,
        protected: false,
    };
    const LIVE: ProfileSafety = ProfileSafety {
        read_only: false,
        protected: true,
    };

    fn cli(flag: Option<&str>, yes: bool) -> Asker<'_> {
        Asker::Cli {
            flag_profile: flag,
            yes,
        }
    }

    struct Failing;
    impl IntentJournal for Failing {
        fn intend(&self, _: &str, _: &WriteIntent) -> std::io::Result<()> {
            Err(std::io::Error::other("disk full"))
        }
    }

    fn intent(profile: &str) -> WriteIntent {
        WriteIntent {
            kind: WriteKind::Api,
            who: Who::Cli,
            profile: profile.into(),
            base_url: "http://127.0.0.1:9".into(),
            target: None,
            sent: Value::Null,
            key: None,
            run: None,
            reserved_id: None,
        }
    }

    #[test]
    fn the_gate_journals_an_admitted_write_first_and_refuses_the_rest() {
        let j = MemoryJournal::default();
        let t = admit(
            ProfileSafety::default(),
            "p",
            cli(None, false),
            &j,
            &intent("p"),
        )
        .unwrap();
        assert_eq!(j.intents().len(), 1);
        assert_eq!(j.intents()[0].0, t.id());
        // Refused by the flags: nothing recorded.
        assert!(matches!(
            admit(RO, "p", cli(Some("p"), true), &j, &intent("p")),
            Err(GateError::Refused(Refusal::ReadOnly { .. }))
        ));
        assert!(matches!(
            admit(
                LIVE,
                "live",
                Asker::Dashboard { name_typed: false },
                &j,
                &intent("live")
            ),
            Err(GateError::Refused(Refusal::ProtectedNeedsName { .. }))
        ));
        admit(
            LIVE,
            "live",
            Asker::Dashboard { name_typed: true },
            &j,
            &intent("live"),
        )
        .unwrap();
        assert_eq!(j.intents().len(), 2);
        // The guard's name, not the write's profile, is what a protected write must name.
        assert!(matches!(
            admit(LIVE, "live", cli(Some("p"), true), &j, &intent("p")),
            Err(GateError::Refused(Refusal::ProtectedNeedsExplicit { profile })) if profile == "live"
        ));
        // An intent that cannot be recorded: no ticket.
        assert!(matches!(
            admit(
                ProfileSafety::default(),
                "p",
                cli(None, false),
                &Failing,
                &intent("p")
            ),
            Err(GateError::NotJournaled(_))
        ));
    }

    #[test]
    fn read_only_refuses_everyone() {
        for asker in [cli(Some("p"), true), Asker::Dashboard { name_typed: false }] {
            assert!(matches!(
                check_write("p", RO, asker),
                Err(Refusal::ReadOnly { .. })
            ));
        }
        let both = ProfileSafety {
            read_only: true,
            protected: true,
        };
        assert!(matches!(
            check_write("p", both, cli(Some("p"), true)),
            Err(Refusal::ReadOnly { .. })
        ));
    }

    #[test]
    fn protected_needs_yes_and_the_name_on_the_command_line() {
        assert_eq!(
            check_write("live", LIVE, cli(Some("live"), true)),
            Ok(Clearance::Send)
        );
        for (flag, yes) in [(None, true), (Some("live"), false), (Some("other"), true)] {
            assert!(
                check_write("live", LIVE, cli(flag, yes)).is_err(),
                "{flag:?}"
            );
        }
        assert_eq!(
            check_write("live", LIVE, Asker::Dashboard { name_typed: false }),
            Ok(Clearance::TypeProfileName)
        );
        assert_eq!(
            check_write("p", ProfileSafety::default(), cli(None, false)),
            Ok(Clearance::Send)
        );
    }
}
