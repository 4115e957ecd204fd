//! `--source api|mirror` of the lists and `deals summary`: where the records are read from,
//! the mirror opened for a read, its completeness checked (exit 10 when it has no complete
//! copy of the resource, never a partial answer), and the line on stderr saying where the
//! records came from and when they were synced.

use chrono::{DateTime, Utc};
use clap::ValueEnum;

use crate::cli::context::Ctx;
use crate::cli::exit::{CliError, Failure, MIRROR_INCOMPLETE};
use crate::mirror::{Mirror, MirrorError, Resource};

/// Where the records are read from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum Source {
    /// The service, page by page.
    #[default]
    Api,
    /// The local mirror (`crmdash sync`), which must hold a complete copy of the resource.
    Mirror,
}

/// The profile's mirror, opened for reading.
pub struct MirrorSource {
    pub mirror: Mirror,
    pub profile: String,
}

/// Opens the profile's mirror for a read (exit 10 when there is none, 7 when damaged).
pub fn open(ctx: &Ctx) -> Result<MirrorSource, CliError> {
    let loc = crate::cli::cache::location(ctx.globals(), &ctx.settings)?;
    let opened = Mirror::open_existing(&loc.db_path())
        .map_err(crate::cli::cache::read_error)?
        .ok_or_else(|| {
            incomplete(format!(
                "{} (or use --source api)",
                MirrorError::NotSynced {
                    profile: loc.profile.clone()
                }
            ))
        })?;
    Ok(MirrorSource {
        mirror: opened.mirror,
        profile: loc.profile,
    })
}

fn incomplete(message: String) -> CliError {
    Failure::new(MIRROR_INCOMPLETE, message).into()
}

impl MirrorSource {
    /// When `r` was last synced in full: an error (exit 10) when the mirror has no complete
    /// copy of it (never synced in full, or a sync under way or stopped half way). Run inside
    /// the read's snapshot, so the answer holds for the records read.
    pub fn complete(&self, m: &Mirror, r: Resource) -> Result<DateTime<Utc>, CliError> {
        let state = m.sync_state(r).map_err(crate::cli::cache::read_error)?;
        if let Some(at) = state.complete_since() {
            return Ok(at);
        }
        let why = if state.last_full_at.is_none() {
            "no complete copy of"
        } else {
            "only part of a sync (under way or stopped half way) of"
        };
        let noun = r.noun();
        Err(incomplete(format!(
            "the local mirror of profile '{}' has {why} the {noun}: run `crmdash sync {noun}` (or use --source api)",
            self.profile
        )))
    }

    /// The line on stderr before records read from the mirror:
    /// `from the mirror of profile default, synced 2026-11-25 14:02 UTC (3 min ago)`.
    pub fn provenance(&self, synced: DateTime<Utc>) -> String {
        provenance_line(&self.profile, synced, Utc::now(), crmdash_api::clock::get())
    }
}

fn provenance_line(
    profile: &str,
    synced: DateTime<Utc>,
    now: DateTime<Utc>,
    clock: crmdash_api::clock::DisplayZone,
) -> String {
    format!(
        "from the mirror of profile {profile}, synced {} ({})",
        clock.format_labelled(synced),
        crate::cli::cache::age(now - synced)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_provenance_line_names_the_profile_the_time_and_the_age() {
        let synced = "2026-11-25T14:02:30Z".parse::<DateTime<Utc>>().unwrap();
        let now = synced + chrono::Duration::minutes(3);
        assert_eq!(
            provenance_line(
                "default",
                synced,
                now,
                crmdash_api::clock::DisplayZone::Named(chrono_tz::UTC)
            ),
            "from the mirror of profile default, synced 2026-11-25 14:02 UTC (3 min ago)"
        );
    }
}
