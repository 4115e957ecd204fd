//! `crmdash cache clear`: deletes local mirrors. Also what `logout` and `auth status` say about
//! a profile's mirror, and how the mirror commands find theirs.

use chrono::Utc;

use crate::api::Contact;
use crate::cli::Globals;
use crate::cli::context::Ctx;
use crate::cli::exit::{CliError, Failure, MIRROR_DAMAGED, OTHER};
use crate::config::{self, Settings};
use crate::mirror::paths::{self, human_size};
use crate::mirror::{Mirror, MirrorError, MirrorLocation, SyncLock, holders};

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

/// A mirror error as a CLI error: API failures keep their exit codes, a damaged mirror
/// exits 7, the rest exit 1.
pub fn cli_error(e: MirrorError) -> CliError {
    match e {
        MirrorError::Api(e) => CliError::Api(e),
        e @ MirrorError::Damaged { .. } => Failure::new(MIRROR_DAMAGED, e.to_string()).into(),
        other => CliError::other(other.to_string()),
    }
}

/// A read command's mirror error: damage is said (exit 7) and noted, never repaired.
pub fn read_error(e: MirrorError) -> CliError {
    cli_error(e.for_read())
}

/// The mirror a command works on (no token needed): for `--demo`, the run's own.
pub fn location(g: &Globals, settings: &Settings) -> Result<MirrorLocation, CliError> {
    if g.demo {
        return MirrorLocation::demo(&settings.cache).map_err(cli_error);
    }
    let r = config::resolve(
        settings,
        g.flag_profile.as_deref(),
        g.flag_base_url.as_deref(),
        &g.env,
    )?;
    MirrorLocation::for_settings(&settings.cache, &r.profile, &r.base_url).map_err(cli_error)
}

/// Deletes every mirror file of `profile` (or of all profiles): only files of crmdash's
/// naming scheme, never a database another program wrote. Refuses while a sync of one of
/// them runs or a dashboard has one open (naming the process). Returns what was deleted.
pub fn remove(
    settings: &Settings,
    profile: Option<&str>,
) -> Result<paths::MirrorFiles, MirrorError> {
    let root = paths::root(&settings.cache)?;
    let found = paths::files(&root, profile)?;
    let held = holders(&found.files);
    if !held.is_empty() {
        return Err(MirrorError::InUse { held });
    }
    // Hold every lock while deleting: a running sync would keep writing an unlinked file.
    let mut locks = Vec::new();
    for f in found
        .files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "lock"))
    {
        locks.push(SyncLock::acquire(f)?);
    }
    let removed = paths::remove(&found)?;
    drop(locks);
    Ok(removed)
}

/// `crmdash cache clear`.
pub fn clear(g: &Globals, settings: &Settings, args: &ClearArgs) -> Result<(), CliError> {
    if g.demo {
        crmdash_domain::say!(
            "Nothing to delete: a --demo run's mirror lives only as long as the run."
        );
        return Ok(());
    }
    let profile = if args.all {
        None
    } else {
        Some(config::resolve_profile(settings, g.flag_profile.as_deref(), &g.env)?.0)
    };
    let removed = remove(settings, profile.as_deref()).map_err(cli_error)?;
    let whose = match &profile {
        Some(p) => format!("profile '{p}'"),
        None => "every profile".to_string(),
    };
    let root = paths::root(&settings.cache).map_err(cli_error)?;
    if removed.files.is_empty() {
        crmdash_domain::say!(
            "No local mirror of {whose} to delete in {}.",
            root.display()
        );
    } else {
        crmdash_domain::say!(
            "Deleted the local mirror of {whose} in {}: {} file(s), {}:",
            root.display(),
            removed.files.len(),
            human_size(removed.bytes)
        );
        for f in &removed.files {
            if let Some(name) = f.file_name() {
                crmdash_domain::say!("  {}", name.to_string_lossy());
            }
        }
    }
    // Whatever else the folder holds is not proven crmdash's: say it was left alone.
    let ours = paths::files(&root, None)
        .map(|f| f.files)
        .unwrap_or_default();
    let others = std::fs::read_dir(&root)
        .map(|d| d.flatten().filter(|e| !ours.contains(&e.path())).count())
        .unwrap_or(0);
    if others > 0 {
        crmdash_domain::say!("Left alone: {others} other file(s) in that folder (not crmdash's).");
    }
    Ok(())
}

/// For `logout`: deletes the profile's mirror and says so.
pub fn remove_on_logout(settings: &Settings, profile: &str) -> Result<(), Failure> {
    match remove(settings, Some(profile)) {
        Ok(removed) if !removed.files.is_empty() => {
            crmdash_domain::say!(
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

/// The profile's mirror, open to receive contacts the CLI creates (`contacts create`, an
/// import), so `crmdash search` finds them before the next sync.
#[derive(Clone)]
pub struct CreatedSink {
    mirror: std::sync::Arc<std::sync::Mutex<Mirror>>,
}

impl CreatedSink {
    /// `None` when the profile has no mirror (the first sync gets everything anyway) or it
    /// cannot be opened (a sync says why).
    pub async fn open(ctx: &Ctx) -> Option<CreatedSink> {
        let location = if ctx.demo() {
            MirrorLocation::demo(&ctx.settings.cache).ok()?
        } else {
            let client = ctx.client().await.ok()?;
            let profile = ctx.profile().await.ok()?;
            MirrorLocation::for_settings(&ctx.settings.cache, profile, client.base_url().as_str())
                .ok()?
        };
        let path = location.db_path();
        let opened = tokio::task::spawn_blocking(move || Mirror::open_existing(&path))
            .await
            .ok()?
            .inspect_err(|e| tracing::warn!(error = %e, "created contacts not mirrored"))
            .ok()??;
        Some(CreatedSink {
            mirror: std::sync::Arc::new(std::sync::Mutex::new(opened.mirror)),
        })
    }

    /// Writes `contacts` into the mirror; a failure is logged, never fails the create.
    pub async fn remember(&self, contacts: Vec<Contact>) {
        let mirror = self.mirror.clone();
        let written = tokio::task::spawn_blocking(move || {
            mirror
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .upsert(&contacts)
        })
        .await;
        if let Ok(Err(e)) = written {
            tracing::warn!(error = %e, "created contact not written into the mirror");
        }
    }
}
