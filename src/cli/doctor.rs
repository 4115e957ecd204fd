//! `crmdash doctor`: what a bug report needs, one line a check: the build, the config file,
//! the profile and base URL, the keyring, the service, the mirror and the terminal. Exits 1
//! when a check failed, 0 otherwise (warnings included).

use std::time::{Duration, Instant};

use crate::api::{Client, ErrorKind};
use crate::cli::Globals;
use crate::cli::exit::CliError;
use crate::config::{self, Settings};
use crate::credentials::{self, Keyring};

pub const EXAMPLES: &str = "\
Example:
  crmdash doctor --profile work

Each line is `ok`, `warn`, `FAIL` or `info`, the check's name, then what was found. Exit 0
when nothing failed (warnings included), 1 when a check failed. Paste the output into a bug
report: it never shows the token.";

/// The verdict of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Ok,
    Warn,
    Fail,
    Info,
}

impl Verdict {
    fn word(self) -> &'static str {
        match self {
            Verdict::Ok => "ok",
            Verdict::Warn => "warn",
            Verdict::Fail => "FAIL",
            Verdict::Info => "info",
        }
    }
}

/// One check's line (and any further lines, indented under it).
#[derive(Debug, Clone)]
pub struct Check {
    pub verdict: Verdict,
    pub name: &'static str,
    pub detail: String,
    pub more: Vec<String>,
}

fn check(verdict: Verdict, name: &'static str, detail: impl Into<String>) -> Check {
    Check {
        verdict,
        name,
        detail: detail.into(),
        more: Vec::new(),
    }
}

/// Runs every check, prints them, and fails (exit 1) when one failed.
pub async fn run(g: &Globals) -> Result<(), CliError> {
    if g.demo {
        return Err(CliError::Usage(
            "crmdash doctor checks your own setup; --demo needs none".into(),
        ));
    }
    let checks = checks(g).await;
    for c in &checks {
        crmdash_domain::show!("{:<4}  {:<9} {}", c.verdict.word(), c.name, c.detail);
        for line in &c.more {
            crmdash_domain::show!("{:<4}  {:<9}   {line}", "", "");
        }
    }
    let failed = checks.iter().filter(|c| c.verdict == Verdict::Fail).count();
    if failed > 0 {
        return Err(CliError::other(format!(
            "{failed} check{} failed",
            if failed == 1 { "" } else { "s" }
        )));
    }
    Ok(())
}

async fn checks(g: &Globals) -> Vec<Check> {
    let mut out = vec![check(Verdict::Info, "version", crate::cli::VERSION)];
    let (settings, config_check) = config_check();
    out.push(config_check);
    let resolved = config::resolve(
        &settings,
        g.flag_profile.as_deref(),
        g.flag_base_url.as_deref(),
        &g.env,
    );
    let resolved = match resolved {
        Ok(r) => r,
        Err(e) => {
            out.push(check(Verdict::Fail, "profile", e.to_string()));
            let profile = config::resolve_profile(&settings, g.flag_profile.as_deref(), &g.env)
                .ok()
                .map(|(p, _)| p);
            out.push(keyring_check(profile.as_deref()).await);
            out.push(terminal_check(&settings));
            return out;
        }
    };
    out.push(check(
        Verdict::Ok,
        "profile",
        format!("{} at {}", resolved.profile, resolved.base_url),
    ));
    out.push(keyring_check(Some(&resolved.profile)).await);
    out.push(service_check(&settings, &resolved.profile, &resolved.base_url).await);
    out.push(mirror_check(
        &settings,
        &resolved.profile,
        &resolved.base_url,
    ));
    out.push(terminal_check(&settings));
    out
}

/// The config file: where, and whether it is valid (every warning of the loader is a fault).
fn config_check() -> (Settings, Check) {
    let Some(path) = config::config_path() else {
        return (
            Settings::default(),
            check(
                Verdict::Warn,
                "config",
                "no config folder (defaults in use)",
            ),
        );
    };
    if !path.exists() {
        return (
            Settings::default(),
            check(
                Verdict::Ok,
                "config",
                format!("none at {} (defaults in use)", path.display()),
            ),
        );
    }
    let loaded = config::load(Some(&path));
    let mut c = if loaded.warnings.is_empty() {
        check(Verdict::Ok, "config", format!("{} (valid)", path.display()))
    } else {
        check(
            Verdict::Fail,
            "config",
            format!("{}: {} problem(s)", path.display(), loaded.warnings.len()),
        )
    };
    c.more = loaded.warnings.clone();
    (loaded.settings, c)
}

/// Whether the OS keyring answers (within 5 s) and holds the profile's token.
async fn keyring_check(profile: Option<&str>) -> Check {
    let keyring = Keyring::platform().with_timeout(Duration::from_secs(5));
    let store = keyring.store_name();
    let env = std::env::var_os(credentials::TOKEN_ENV).is_some();
    let Some(profile) = profile else {
        return check(
            Verdict::Info,
            "keyring",
            format!("{store} (no profile to look up)"),
        );
    };
    match keyring.get(profile).await {
        Ok(Some(_)) => check(
            Verdict::Ok,
            "keyring",
            format!("{store}: holds the token of profile '{profile}'"),
        ),
        Ok(None) if env => check(
            Verdict::Ok,
            "keyring",
            format!("{store}: reachable, no token stored (CRMDASH_TOKEN in use)"),
        ),
        Ok(None) => check(
            Verdict::Warn,
            "keyring",
            format!("{store}: reachable, no token for '{profile}' (run crmdash login)"),
        ),
        Err(e) if env => check(
            Verdict::Warn,
            "keyring",
            format!("{store}: {e} (CRMDASH_TOKEN in use)"),
        ),
        Err(e) => check(Verdict::Fail, "keyring", format!("{store}: {e}")),
    }
}

/// Whether the base URL answers and accepts the token: one one-record list request.
async fn service_check(settings: &Settings, profile: &str, base_url: &str) -> Check {
    let token = match credentials::resolve_token(profile, base_url, settings).await {
        Ok(source) => source.token,
        Err(e) => return check(Verdict::Fail, "service", format!("not asked: {e}")),
    };
    let options = crate::api::ClientOptions {
        max_retries: 0,
        deadline: Duration::from_secs(15),
        ..settings.client_options()
    };
    let client = match Client::with_options(base_url, token, options) {
        Ok(c) => c,
        Err(e) => return check(Verdict::Fail, "service", e.to_string()),
    };
    let t0 = Instant::now();
    let answer = credentials::verify_token(&client).await;
    let ms = t0.elapsed().as_millis();
    match answer {
        Ok(()) => check(
            Verdict::Ok,
            "service",
            format!("{base_url} answers and accepts the token ({ms} ms)"),
        ),
        Err(e) if matches!(e.kind, ErrorKind::Unauthorized | ErrorKind::Forbidden) => check(
            Verdict::Fail,
            "service",
            format!("{base_url} answers but refuses the token: {e}"),
        ),
        Err(e) => check(
            Verdict::Fail,
            "service",
            format!("{base_url} cannot be reached: {e}"),
        ),
    }
}

/// The mirror's file, size, records and last sync (as `auth status` says them).
fn mirror_check(settings: &Settings, profile: &str, base_url: &str) -> Check {
    let line = crate::cli::cache::status_line(settings, profile, base_url);
    let verdict = if line.contains("unreadable") || line.starts_with("unavailable") {
        Verdict::Fail
    } else if line.starts_with("none yet") {
        Verdict::Warn
    } else {
        Verdict::Ok
    };
    check(verdict, "mirror", line)
}

/// The terminal's size and colours, as the dashboard would find them.
fn terminal_check(settings: &Settings) -> Check {
    use std::io::IsTerminal;
    let size = if std::io::stdout().is_terminal() {
        match crossterm::terminal::size() {
            Ok((w, h)) => format!("{w}x{h}"),
            Err(e) => format!("size unknown ({e})"),
        }
    } else {
        "not a terminal (stdout is redirected)".to_string()
    };
    let colours = colour_support(
        std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
        std::env::var("COLORTERM").ok().as_deref(),
        std::env::var("TERM").ok().as_deref(),
    );
    let term = std::env::var("TERM").unwrap_or_else(|_| "unset".into());
    check(
        Verdict::Info,
        "terminal",
        format!(
            "{size}, TERM={term}, colours: {colours}, theme: {}",
            settings.ui.theme
        ),
    )
}

/// What colours the terminal offers: `none (NO_COLOR)`, `24-bit`, `256`, `16` or `none`.
pub fn colour_support(no_color: bool, colorterm: Option<&str>, term: Option<&str>) -> String {
    if no_color {
        return "none (NO_COLOR)".into();
    }
    if colorterm.is_some_and(|c| c.eq_ignore_ascii_case("truecolor") || c == "24bit") {
        return "24-bit".into();
    }
    match term {
        None | Some("dumb") | Some("") => "none".into(),
        Some(t) if t.contains("256color") => "256".into(),
        Some(_) => "16".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_follow_no_color_colorterm_and_term() {
        assert_eq!(
            colour_support(true, Some("truecolor"), Some("xterm")),
            "none (NO_COLOR)"
        );
        assert_eq!(
            colour_support(false, Some("truecolor"), Some("xterm")),
            "24-bit"
        );
        assert_eq!(colour_support(false, None, Some("tmux-256color")), "256");
        assert_eq!(colour_support(false, None, Some("xterm")), "16");
        assert_eq!(colour_support(false, None, Some("dumb")), "none");
    }
}
