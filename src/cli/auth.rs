//! `crmdash login`, `logout` and `auth status`: the token goes from a hidden prompt or stdin,
//! through one verification request, into the OS keyring, and nowhere else.

use std::io::{BufRead, IsTerminal, Write};
use std::sync::Arc;

use secrecy::SecretString;

use super::{Failure, Globals, exit};
use crate::api::{ApiError, Client, ErrorKind, RequestEvent};
use crate::config::{self, Resolved, Settings, Source};
use crate::credentials::{self, Keyring, TokenOrigin};

#[derive(Debug, Clone, clap::Args)]
pub struct LoginArgs {
    /// Read the token as one line from stdin (the default when stdin is not a terminal).
    #[arg(long)]
    pub token_stdin: bool,
    /// Store the token without checking it against the service.
    #[arg(long)]
    pub no_verify: bool,
}

/// Loads the config file, printing its warnings on stderr.
fn load_settings() -> Settings {
    let loaded = config::load(None);
    for w in &loaded.warnings {
        crmdash_domain::say!("warning: {w}");
    }
    loaded.settings
}

fn refuse_demo(g: &Globals) -> Result<(), Failure> {
    if g.demo {
        return Err(Failure::new(
            exit::USAGE,
            "--demo uses the embedded sandbox and needs no login",
        ));
    }
    Ok(())
}

fn config_file() -> Result<std::path::PathBuf, Failure> {
    config::config_path().ok_or_else(|| {
        Failure::new(
            exit::OTHER,
            "no config file location (no home directory): set CRMDASH_CONFIG",
        )
    })
}

pub async fn login(g: &Globals, args: &LoginArgs) -> Result<(), Failure> {
    refuse_demo(g)?;
    let settings = load_settings();
    let interactive = !args.token_stdin && std::io::stdin().is_terminal();
    let resolved = match config::resolve(
        &settings,
        g.flag_profile.as_deref(),
        g.flag_base_url.as_deref(),
        &g.env,
    ) {
        Ok(r) => r,
        Err(config::ConfigError::NoBaseUrl { profile }) if interactive => {
            let url = prompt_line(&format!("Base URL for profile '{profile}': "))?;
            config::resolve(&settings, Some(&profile), Some(&url), &g.env)?
        }
        Err(e) => return Err(e.into()),
    };
    let token = read_token(&resolved.profile, interactive)?;
    if !args.no_verify {
        verify(g, &settings, &resolved.base_url, token.clone())
            .await
            .map_err(not_accepted)?;
        crmdash_domain::say!("The service accepted the token.");
    }
    let path = config_file()?;
    let keyring = Keyring::platform();
    if let Err(e) = keyring.set(&resolved.profile, token.clone()).await {
        // The token cannot be kept, but the base URL can: with CRMDASH_TOKEN set, the
        // profile then works (as the dashboard's login dialog does it). The token itself is
        // never written to a file.
        let mut f = Failure::from(e);
        if config::save_profile_base_url(&path, &resolved.profile, &resolved.base_url).is_ok() {
            f.message = format!(
                "{} (the base URL was saved in {} all the same)",
                f.message,
                path.display()
            );
        }
        return Err(f);
    }
    config::save_profile_base_url(&path, &resolved.profile, &resolved.base_url)?;
    crmdash_domain::say!(
        "Logged in: profile '{}' at {} (token {} stored in the {}; base URL saved in {}).",
        resolved.profile,
        resolved.base_url,
        credentials::token_hint(&token),
        keyring.store_name(),
        path.display()
    );
    if std::env::var_os(credentials::TOKEN_ENV).is_some() {
        crmdash_domain::say!("Note: CRMDASH_TOKEN is set and overrides the keyring while it is.");
    }
    Ok(())
}

/// One line from stdin, or a hidden prompt on a terminal.
fn read_token(profile: &str, interactive: bool) -> Result<SecretString, Failure> {
    let raw = if interactive {
        rpassword::prompt_password(format!(
            "API token for profile '{profile}' (input hidden): "
        ))
        .map_err(|e| Failure::new(exit::OTHER, format!("cannot read the token: {e}")))?
    } else {
        let mut line = String::new();
        std::io::stdin().lock().read_line(&mut line).map_err(|e| {
            Failure::new(
                exit::OTHER,
                format!("cannot read the token from stdin: {e}"),
            )
        })?;
        line
    };
    // The raw string is dropped here; only the SecretString lives on.
    Ok(credentials::check_token(&raw)?)
}

fn prompt_line(prompt: &str) -> Result<String, Failure> {
    let mut err = crate::output::stderr();
    let _ = write!(err, "{prompt}");
    let _ = err.flush();
    drop(err);
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| Failure::new(exit::OTHER, format!("cannot read from stdin: {e}")))?;
    Ok(line.trim().to_string())
}

fn client(
    g: &Globals,
    settings: &Settings,
    base_url: &str,
    token: SecretString,
) -> Result<Client, ApiError> {
    let client = Client::with_options(base_url, token, settings.client_options())?;
    if g.verbose == 0 {
        return Ok(client);
    }
    Ok(client.with_observer(Arc::new(|ev: &RequestEvent| {
        if let RequestEvent::Received {
            method,
            url,
            status,
            elapsed,
        } = ev
        {
            let _ = writeln!(
                crate::output::stderr(),
                "{method} {url} (Authorization: Bearer ****) -> {status} in {} ms",
                elapsed.as_millis()
            );
        }
        if let RequestEvent::Failed {
            method, url, error, ..
        } = ev
        {
            // The error may hold the service's words: through the terminal filter.
            let _ = writeln!(
                crate::output::stderr(),
                "{method} {url} (Authorization: Bearer ****) -> {error}"
            );
        }
    })))
}

/// The token checked with the service (see [`credentials::verify_token`]).
async fn verify(
    g: &Globals,
    settings: &Settings,
    base_url: &str,
    token: SecretString,
) -> Result<(), ApiError> {
    let client = client(g, settings, base_url, token)?;
    credentials::verify_token(&client).await
}

fn not_accepted(e: ApiError) -> Failure {
    let code = super::api_exit_code(&e);
    Failure::new(
        code,
        format!("the token was not stored: {e} (use --no-verify to store it anyway)"),
    )
}

pub async fn logout(g: &Globals) -> Result<(), Failure> {
    refuse_demo(g)?;
    let settings = load_settings();
    let (profile, _) = config::resolve_profile(&settings, g.flag_profile.as_deref(), &g.env)?;
    // The personal data first: it goes even when the keyring cannot be reached.
    super::cache::remove_on_logout(&settings, &profile)?;
    let keyring = Keyring::platform();
    if keyring.delete(&profile).await? {
        crmdash_domain::say!(
            "Logged out: the token of profile '{profile}' was removed from the {}.",
            keyring.store_name()
        );
    } else {
        crmdash_domain::say!("No token was stored for profile '{profile}'.");
    }

    if std::env::var_os(credentials::TOKEN_ENV).is_some() {
        crmdash_domain::say!("Note: CRMDASH_TOKEN is still set in this environment.");
    }
    Ok(())
}

fn source_name(s: Source) -> &'static str {
    match s {
        Source::Flag => "flag",
        Source::Env => "environment",
        Source::Config => "config file",
        Source::Default => "default",
    }
}

pub async fn status(g: &Globals) -> Result<(), Failure> {
    refuse_demo(g)?;
    let settings = load_settings();
    let (profile, profile_src) =
        config::resolve_profile(&settings, g.flag_profile.as_deref(), &g.env)?;
    crmdash_domain::show!("profile:   {profile} ({})", source_name(profile_src));
    let safety = crate::safety::flags_of(&settings, &profile);
    crmdash_domain::show!(
        "safety:    read_only = {}, protected = {}",
        safety.read_only,
        safety.protected
    );
    if let Some(p) = config::config_path() {
        crmdash_domain::show!("config:    {}", p.display());
    }
    let resolved: Resolved = match config::resolve(
        &settings,
        Some(&profile),
        g.flag_base_url.as_deref(),
        &g.env,
    ) {
        Ok(r) => r,
        Err(e) => {
            crmdash_domain::show!("base URL:  none");
            return Err(e.into());
        }
    };
    crmdash_domain::show!(
        "base URL:  {} ({})",
        resolved.base_url,
        source_name(resolved.base_url_source)
    );
    let mirror = super::cache::status_line(&settings, &profile, &resolved.base_url);
    crmdash_domain::show!("mirror:    {mirror}");
    let source = credentials::resolve_token(&profile, &resolved.base_url, &settings).await;
    let source = match source {
        Ok(s) => s,
        Err(e) => {
            crmdash_domain::show!("token:     none usable");
            return Err(e.into());
        }
    };
    let origin = match source.origin {
        TokenOrigin::Env => "CRMDASH_TOKEN".to_string(),
        TokenOrigin::Keyring => format!("keyring: {}", Keyring::platform().store_name()),
    };
    crmdash_domain::show!(
        "token:     {} (from {origin})",
        credentials::token_hint(&source.token)
    );
    match verify(g, &settings, &resolved.base_url, source.token).await {
        Ok(()) => {
            crmdash_domain::show!("service:   accepts the token");
            Ok(())
        }
        Err(e) => {
            let verdict = match e.kind {
                ErrorKind::Unauthorized | ErrorKind::Forbidden => "does not accept the token",
                _ => "could not be asked",
            };
            crmdash_domain::show!("service:   {verdict}");
            Err(e.into())
        }
    }
}
