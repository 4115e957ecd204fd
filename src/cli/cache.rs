//! `crmdash cache clear`: deletes local mirrors. Also what `logout` and `auth status` say about
//! a profile's mirror, and how the mirror commands find theirs.

use chrono::Utc;

use crate::cli::Globals;
use crate::cli::exit::{CliError, Failure, OTHER};
use crate::config::{self, Settings};
use crate::mirror::paths::{self, DEMO_PROFILE, human_size};
use crate::mirror::{Mirror, MirrorError, MirrorLocation, SyncLock};

#[derive(Debug, Clone, clap::Subcommand)]
pub enum CacheCommand {
    /// Delete the local mirror of the profile (--profile, else the default one), or of every
    /// profile with --all.
    #[command(
        after_help = "Examples:\n  crmdash cache clear\n  crmdash cache clear --profile work\n  crmdash cache clear --all"
    )]
    Clear(ClearArgs),
}

#[derive(Debug, Clone, clap::Args)]
pub struct ClearArgs {
    /// Every profile's mirror.
    #[arg(long)]
    pub all: bool,
}

/// A mirror error as a CLI error: API failures keep their exit codes, the rest exit 1.
pub fn cli_error(e: MirrorError) -> CliError {
    match e {
        MirrorError::Api(e) => CliError::Api(e),
        other => CliError::other(other.to_string()),
    }
}

/// The profile and base URL a mirror command works on (no token needed): `demo` for `--demo`.
pub fn location(g: &Globals, settings: &Settings) -> Result<MirrorLocation, CliError> {
    let (profile, base_url) = if g.demo {
        (DEMO_PROFILE.to_string(), String::new())
    } else {
        let r = config::resolve(
            settings,
            g.flag_profile.as_deref(),
            g.flag_base_url.as_deref(),
            &g.env,
        )?;
        (r.profile, r.base_url)
    };
    MirrorLocation::for_settings(&settings.cache, &profile, &base_url).map_err(cli_error)
}

/// Deletes every mirror file of `profile` (or of all profiles), refusing while a sync of one
/// of them runs. Returns what was deleted.
pub fn remove(
    settings: &Settings,
    profile: Option<&str>,
) -> Result<paths::MirrorFiles, MirrorError> {
    let root = paths::root(&settings.cache)?;
    let found = paths::files(&root, profile)?;
    // Hold every lock while deleting: a running sync would keep writing an unlinked file.
    let mut locks = Vec::new();
    for f in found
        .files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "lock"))
    {
        locks.push(SyncLock::acquire(f)?);
    }
    let removed = paths::remove(&root, profile)?;
    drop(locks);
    Ok(removed)
}

/// `crmdash cache clear`.
pub fn clear(g: &Globals, settings: &Settings, args: &ClearArgs) -> Result<(), CliError> {
    let profile = if args.all {
        None
    } else if g.demo {
        Some(DEMO_PROFILE.to_string())
    } else {
        Some(config::resolve_profile(settings, g.flag_profile.as_deref(), &g.env)?.0)
    };
    let removed = remove(settings, profile.as_deref()).map_err(cli_error)?;
    let whose = match &profile {
        Some(p) => format!("profile '{p}'"),
        None => "every profile".to_string(),
    };
    if removed.files.is_empty() {
        eprintln!("No local mirror of {whose} to delete.");
    } else {
        eprintln!(
            "Deleted the local mirror of {whose}: {} file(s), {}.",
            removed.files.len(),
            human_size(removed.bytes)
        );
    }
    Ok(())
}

/// For `logout`: deletes the profile's mirror and says so.
pub fn remove_on_logout(settings: &Settings, profile: &str) -> Result<(), Failure> {
    match remove(settings, Some(profile)) {
        Ok(removed) if !removed.files.is_empty() => {
            eprintln!(
                "Deleted the local mirror of profile '{profile}' ({}).",
                human_size(removed.bytes)
            );
            Ok(())
        }
        Ok(_) | Err(MirrorError::NoLocation) => Ok(()),
        Err(e) => Err(Failure::new(
            OTHER,
            format!("the local mirror could not be deleted (the token was left in place): {e}"),
        )),
    }
}

/// For `auth status`: where the profile's mirror is, how big, and how fresh.
pub fn status_line(settings: &Settings, profile: &str, base_url: &str) -> String {
    let loc = match MirrorLocation::for_settings(&settings.cache, profile, base_url) {
        Ok(l) => l,
        Err(MirrorError::Disabled) => return "off ([cache] enabled = false)".to_string(),
        Err(e) => return format!("unavailable ({e})"),
    };
    let path = loc.db_path();
    let opened = match Mirror::open_existing(&path) {
        Ok(Some(o)) => o,
        Ok(None) => return format!("none yet at {} (run `crmdash sync`)", path.display()),
        Err(e) => return format!("{} (unreadable: {e})", path.display()),
    };
    let Ok(status) = opened.mirror.status() else {
        return format!("{} (unreadable)", path.display());
    };
    let records: u64 = status.resources.iter().map(|r| r.records).sum();
    let synced = status
        .resources
        .iter()
        .filter_map(|r| r.last_sync_at)
        .min()
        .map(|t| format!(", synced {}", age(Utc::now() - t)))
        .unwrap_or_default();
    format!(
        "{} ({}, {records} records{synced})",
        path.display(),
        human_size(status.bytes)
    )
}

/// `3 min ago`, `2 h ago`, `4 days ago`.
pub fn age(d: chrono::Duration) -> String {
    let s = d.num_seconds().max(0);
    match s {
        0..60 => "just now".to_string(),
        60..3600 => format!("{} min ago", s / 60),
        3600..172_800 => format!("{} h ago", s / 3600),
        _ => format!("{} days ago", s / 86_400),
    }
}
