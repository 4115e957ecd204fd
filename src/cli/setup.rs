//! Settings, base URL and token for a command (interim: replaced by `config`/`credentials`).

use secrecy::SecretString;

use crate::cli::context::GlobalOpts;
use crate::cli::exit::CliError;
use crate::config::Settings;

pub fn load_settings() -> Settings {
    let Ok(path) = std::env::var("CRMDASH_CONFIG") else {
        return Settings::default();
    };
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Settings::default();
    };
    let mut s: Settings = toml::from_str(&text).unwrap_or_default();
    s.reschedule.fields_are_defaults = !text.contains("start_field");
    s
}

pub async fn resolve_endpoint(
    global: &GlobalOpts,
    settings: &Settings,
) -> Result<(String, SecretString), CliError> {
    let profile = global
        .profile
        .clone()
        .or_else(|| settings.default_profile.clone())
        .unwrap_or_else(|| "default".into());
    let base = global
        .base_url
        .clone()
        .or_else(|| {
            settings
                .profiles
                .get(&profile)
                .and_then(|p| p.base_url.clone())
        })
        .ok_or_else(|| CliError::other("no base URL: pass --base-url or run `crmdash login`"))?;
    let token = std::env::var("CRMDASH_TOKEN")
        .map_err(|_| CliError::other("no token: set CRMDASH_TOKEN or run `crmdash login`"))?;
    Ok((base, SecretString::from(token)))
}
