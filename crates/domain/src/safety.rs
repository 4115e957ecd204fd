//! The one gate every write passes, in the CLI and the dashboard alike: a profile's
//! `read_only` and `protected` flags ([`ProfileSafety`]) decide with [`check_write`] whether a
//! create, a reschedule, an import or a bulk run may go out at all, before anything is read
//! or sent. The dashboard's undo window and the write journal (`crate::journal`) come after
//! this check; a refused write is never journalled, since nothing was sent.

use crate::config::Settings;

/// A profile's safety flags (`[profiles.NAME] read_only`, `protected`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ProfileSafety {
    pub read_only: bool,
    pub protected: bool,
}

impl ProfileSafety {
    /// The flags of `profile` in the settings (none for a profile the file does not name).
    pub fn of(settings: &Settings, profile: &str) -> ProfileSafety {
        settings
            .profiles
            .get(profile)
            .map(|p| ProfileSafety {
                read_only: p.read_only,
                protected: p.protected,
            })
            .unwrap_or_default()
    }

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
    /// The dashboard: it asks for a protected profile's name typed itself.
    Dashboard,
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
        Asker::Dashboard => Ok(Clearance::TypeProfileName),
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

    #[test]
    fn read_only_refuses_everyone() {
        for asker in [cli(Some("p"), true), Asker::Dashboard] {
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
            check_write("live", LIVE, Asker::Dashboard),
            Ok(Clearance::TypeProfileName)
        );
        assert_eq!(
            check_write("p", ProfileSafety::default(), cli(None, false)),
            Ok(Clearance::Send)
        );
    }
}
