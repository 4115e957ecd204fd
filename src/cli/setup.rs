//! Settings, base URL and token of an API command: the config file, then the profile and base
//! URL (`config::resolve`: flag > env > profile), then the token (`CRMDASH_TOKEN`, else the
//! profile's keyring entry, only for its saved base URL).

use secrecy::SecretString;

use crate::cli::Globals;
use crate::cli::exit::CliError;
use crate::config::{self, Settings};
use crate::credentials;

/// The config file's settings; its warnings (bad line, unknown keys) go to stderr and stay
/// in `Settings::warnings` (the dashboard shows them all).
pub fn load_settings() -> Settings {
    let loaded = config::load(None);
    for w in &loaded.warnings {
        crmdash_domain::say!("warning: {w}");
    }
    let mut settings = loaded.settings;
    settings.warnings = loaded.warnings;
    // The display clock, for every time this process shows a person.
    if let Ok(zone) = settings.display_zone().parse::<crate::timeparse::Zone>() {
        crmdash_api::clock::set(zone.into());
    }
    settings
}

/// Where to send requests and with which token.
pub struct Endpoint {
    pub base_url: String,
    pub token: SecretString,
    pub profile: String,
}

/// Resolves the profile, base URL and token of this run.
pub async fn resolve_endpoint(g: &Globals, settings: &Settings) -> Result<Endpoint, CliError> {
    let resolved = config::resolve(
        settings,
        g.flag_profile.as_deref(),
        g.flag_base_url.as_deref(),
        &g.env,
    )?;
    let source =
        credentials::resolve_token(&resolved.profile, &resolved.base_url, settings).await?;
    Ok(Endpoint {
        base_url: resolved.base_url,
        token: source.token,
        profile: resolved.profile,
    })
}
