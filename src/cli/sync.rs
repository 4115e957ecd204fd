//! `crmdash sync`: brings the profile's local mirror up to date, with a progress bar on a
//! terminal and a summary (one line per resource) at the end.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::cli::cache::cli_error;
use crate::cli::context::Ctx;
use crate::cli::exit::{CliError, Failure};
use crate::mirror::paths::human_size;
use crate::mirror::sync::{self, PassKind, SyncOptions, SyncProgress};
use crate::mirror::{MirrorError, MirrorLocation};
use crate::resource::Resource;

#[derive(Debug, Clone, clap::Args)]
pub struct SyncArgs {
    /// Read everything (not only what changed) and mark records the service no longer has as
    /// gone. Also done automatically when the last full sync is older than
    /// [cache] full_sync_after_hours (default 24).
    #[arg(long)]
    pub full: bool,
    /// Only these resources (default: all three).
    #[arg(value_enum, value_name = "RESOURCE")]
    pub resources: Vec<Resource>,
}

pub const EXAMPLES: &str = "Examples:
  crmdash sync
  crmdash sync --full
  crmdash sync contacts deals --profile work";

pub async fn run(ctx: &Ctx, args: &SyncArgs) -> Result<(), CliError> {
    let settings = &ctx.settings;
    // Checked before any token lookup or request: an off mirror is said so at once.
    if !settings.cache.enabled {
        return Err(cli_error(MirrorError::Disabled));
    }
    let client = ctx.client().await?;
    let profile = ctx.profile().await?;
    let location = if ctx.demo() {
        MirrorLocation::demo(&settings.cache)
    } else {
        MirrorLocation::for_settings(&settings.cache, profile, client.base_url().as_str())
    }
    .map_err(cli_error)?;
    let opts = SyncOptions::from_settings(&settings.cache, args.full, args.resources.clone());
    let bar = std::io::stderr().is_terminal().then(new_bar);
    let progress = {
        let bar = bar.clone();
        move |p: &SyncProgress| {
            if let Some(bar) = &bar {
                show(bar, p);
            }
        }
    };
    let result = tokio::select! {
        r = sync::sync(client, &location, &opts, &progress) => r,
        signal = stop_signal() => {
            if let Some(bar) = &bar {
                bar.finish_and_clear();
            }
            let (name, code) = signal;
            // Every page written is kept (each in its own transaction) and the pass's place
            // is saved with it: the next run picks up there.
            return Err(Failure::new(
                code,
                format!(
                    "sync stopped by {name}: what it read so far is kept; run `crmdash sync` again to continue where it stopped"
                ),
            )
            .into());
        }
    };
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let report = result.map_err(cli_error)?;
    if let Some(aside) = &report.moved_aside {
        crmdash_domain::say!(
            "warning: the mirror file was damaged or not a crmdash mirror; it was moved to {} and rebuilt",
            aside.display()
        );
    }
    for r in &report.resources {
        let passes = r
            .passes
            .iter()
            .map(|p| match p {
                PassKind::Full if r.resumed => "full (resumed)",
                PassKind::Full => "full",
                PassKind::Incremental => "incremental",
            })
            .collect::<Vec<_>>()
            .join(" + ");
        crmdash_domain::show!(
            "{:<9} {passes}: {} fetched, {} new, {} updated, {} gone; {} requests in {:.1} s",
            r.resource,
            r.fetched,
            r.inserted,
            r.updated,
            r.gone,
            r.requests,
            r.elapsed_ms as f64 / 1000.0
        );
    }
    let size = std::fs::metadata(location.db_path())
        .map(|m| m.len())
        .unwrap_or(0);
    crmdash_domain::show!(
        "mirror:   {} ({})",
        location.db_path().display(),
        human_size(size)
    );
    Ok(())
}

/// The first SIGINT or SIGTERM: its name and the exit code (128 + its number).
pub(crate) async fn stop_signal() -> (&'static str, u8) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => tokio::select! {
                Ok(()) = tokio::signal::ctrl_c() => ("SIGINT", 130),
                Some(()) = term.recv() => ("SIGTERM", 143),
                else => std::future::pending().await,
            },
            Err(_) => sigint().await,
        }
    }
    #[cfg(not(unix))]
    sigint().await
}

/// SIGINT (Ctrl-C), or never when it cannot be listened for.
async fn sigint() -> (&'static str, u8) {
    if tokio::signal::ctrl_c().await.is_err() {
        std::future::pending::<()>().await;
    }
    ("SIGINT", 130)
}

fn new_bar() -> ProgressBar {
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    bar.enable_steady_tick(Duration::from_millis(120));
    bar
}

fn show(bar: &ProgressBar, p: &SyncProgress) {
    let pass = match p.pass {
        PassKind::Full => "full",
        PassKind::Incremental => "changes",
    };
    match p.total {
        Some(total) if p.pass == PassKind::Full => {
            bar.set_style(
                ProgressStyle::with_template("{msg:<18} [{bar:30}] {pos}/{len} ({eta} left)")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
            bar.set_length(total.max(p.fetched));
        }
        _ => {
            bar.set_style(
                ProgressStyle::with_template("{spinner} {msg:<18} {pos} records")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
        }
    }
    bar.set_message(format!("{} ({pass})", p.resource));
    bar.set_position(p.fetched);
}
