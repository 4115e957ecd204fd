//! `crmdash` with no subcommand: the dashboard, against the resolved profile or, with `--demo`,
//! against an in-process sandbox (no keyring, no config needed).

use std::io::IsTerminal;
use std::time::Duration;

use secrecy::SecretString;

use crate::api::Client;
use crate::cli::Globals;
use crate::cli::exit::CliError;
use crate::cli::setup;
use crate::config::{self, Settings};
use crate::credentials::{self, Keyring};
use crate::runtime::{DashboardOptions, Ended, run_dashboard, token_lookup};
use crate::sandbox::{Sandbox, SandboxConfig};

/// Where the dashboard remembers tabs, sorts, page sizes and includes between runs (a
/// `--demo` run keeps its own in its folder, thrown away when it ends).
fn state_file() -> Option<std::path::PathBuf> {
    config::data_dir().map(|d| d.join("dashboard.json"))
}

/// Runs the dashboard until the user quits. The first frame comes before the token: the
/// keyring read (which can wait on an unlock prompt) and the HTTP client's set-up run after
/// it, and the login dialog opens only when no token turns up.
pub async fn run(g: &Globals, log_path: Option<std::path::PathBuf>) -> Result<Ended, CliError> {
    let settings = setup::load_settings();
    if g.demo {
        return run_demo(settings, log_path).await;
    }
    let resolved = match config::resolve(
        &settings,
        g.flag_profile.as_deref(),
        g.flag_base_url.as_deref(),
        &g.env,
    ) {
        Ok(r) => r,
        // No base URL saved (a first run): in a terminal, the login dialog asks for it and
        // the token; elsewhere nobody could answer it, so the error says how to give one.
        Err(config::ConfigError::NoBaseUrl { profile })
            if std::io::stdin().is_terminal() && std::io::stdout().is_terminal() =>
        {
            return run_first_login(profile, settings, log_path).await;
        }
        Err(e) => return Err(e.into()),
    };
    crate::api::check_base_url(&resolved.base_url)?;
    // Quick refusals (a malformed CRMDASH_TOKEN, a base URL that is not the profile's saved
    // one) still end the program before the terminal changes mode.
    let found = credentials::token_without_keyring(
        credentials::env_token()?,
        &resolved.profile,
        &resolved.base_url,
        &settings,
    )?;
    let lookup = token_lookup(
        Keyring::platform(),
        found,
        resolved.profile.clone(),
        resolved.base_url.clone(),
        settings.clone(),
    );
    run_dashboard(
        DashboardOptions {
            profile: resolved.profile,
            base_url: resolved.base_url,
            client: None,
            settings,
            state_file: state_file(),
            log_path,
            demo: false,
        },
        Some(lookup),
    )
    .await
    .map_err(|e| CliError::other(format!("{e:#}")))
}

/// The dashboard for a profile without a base URL: nothing to look up, the login dialog
/// opens at once asking for the base URL and the token.
async fn run_first_login(
    profile: String,
    settings: Settings,
    log_path: Option<std::path::PathBuf>,
) -> Result<Ended, CliError> {
    run_dashboard(
        DashboardOptions {
            profile,
            base_url: String::new(),
            client: None,
            settings,
            state_file: state_file(),
            log_path,
            demo: false,
        },
        None,
    )
    .await
    .map_err(|e| CliError::other(format!("{e:#}")))
}

/// `--demo`: the sandbox on a free loopback port with its local token.
/// `CRMDASH_DEMO_LATENCY_MS` adds latency to every request (to try a slow link).
/// Gives the demo a history for Today and the change feed: the mirror's baseline sync, then
/// deals and projects moved on the sandbox, which the dashboard's first background sync
/// (waiting for this one's lock) records as changes.
async fn seed_demo_history(
    cache: crate::config::CacheSettings,
    sandbox: &crate::sandbox::SandboxHandle,
    client: Client,
) {
    // Where the dashboard keeps the demo's mirror (its profile is `demo`).
    let base_url = sandbox.base_url();
    let Ok(location) = crate::mirror::MirrorLocation::for_settings(&cache, "demo", &base_url)
    else {
        return;
    };
    let opts = crate::mirror::sync::SyncOptions::from_settings(&cache, false, Vec::new());
    match crate::mirror::sync::sync(&client, &location, &opts, &|_| {}).await {
        Ok(_) => {
            // Months of made-up past for the reports over time, then a few moves now for
            // Today (recorded by the dashboard's first sync).
            let past = crate::cli::demo_history::make(&cache, sandbox);
            let past = tokio::task::spawn_blocking(move || {
                crate::cli::demo_history::write(&location, &past)
            })
            .await;
            if let Ok(Err(e)) = past {
                tracing::warn!(error = %e, "the demo's past was not written");
            }
            sandbox.churn_deals_and_projects(40);
        }
        Err(e) => tracing::warn!(error = %e, "the demo's history was not made"),
    }
}

async fn run_demo(
    mut settings: Settings,
    log_path: Option<std::path::PathBuf>,
) -> Result<Ended, CliError> {
    // The demo's mirror, search index and remembered state live in the run's own folder,
    // deleted when it ends: nothing of it reaches a real profile or a later demo.
    let demo_root = crate::mirror::paths::demo_root()
        .map_err(|e| CliError::other(format!("cannot make the demo's folder: {e}")))?;
    settings.cache.dir = Some(demo_root.join("mirror"));
    let latency = std::env::var("CRMDASH_DEMO_LATENCY_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map(Duration::from_millis);
    let sandbox = Sandbox::start(SandboxConfig {
        latency,
        near_duplicates: true,
        ..SandboxConfig::default()
    })
    .await
    .map_err(|e| CliError::other(format!("cannot start the sandbox: {e}")))?;
    let base_url = sandbox.base_url();
    let client = Client::with_options(
        &base_url,
        SecretString::from(sandbox.token()),
        settings.client_options(),
    )?;
    let history = seed_demo_history(settings.cache.clone(), &sandbox, client.clone());
    let dashboard = run_dashboard(
        DashboardOptions {
            profile: "demo".into(),
            base_url,
            client: Some(client),
            settings,
            state_file: Some(demo_root.join("dashboard.json")),
            log_path,
            demo: true,
        },
        None,
    );
    tokio::pin!(dashboard);
    // The history is made while the dashboard runs (its first frame is not kept waiting).
    let result = tokio::select! {
        r = &mut dashboard => r,
        () = history => dashboard.await,
    };
    sandbox.shutdown().await;
    result.map_err(|e| CliError::other(format!("{e:#}")))
}
