//! Which profile and base URL a run uses: flag > env > profile in config > default.

use super::Settings;

/// The profile used when neither flag, env nor `default_profile` names one.
pub const DEFAULT_PROFILE: &str = "default";

/// Where a resolved value came from; named in messages so the user knows what to change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// `--profile` / `--base-url`.
    Flag,
    /// `CRMDASH_PROFILE` / `CRMDASH_BASE_URL`.
    Env,
    /// The config file (`default_profile`, or the profile's `base_url`).
    Config,
    /// Built in.
    Default,
}

impl Source {
    /// How the user set a base URL from this source, for messages.
    pub fn base_url_origin(self) -> &'static str {
        match self {
            Source::Flag => "--base-url",
            Source::Env => "CRMDASH_BASE_URL",
            Source::Config => "the config file",
            Source::Default => "the default",
        }
    }
}

/// The environment's say, read once (tests build it by hand).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvOverrides {
    /// `CRMDASH_PROFILE`.
    pub profile: Option<String>,
    /// `CRMDASH_BASE_URL`.
    pub base_url: Option<String>,
}

impl EnvOverrides {
    /// Reads `CRMDASH_PROFILE` and `CRMDASH_BASE_URL`; empty values count as unset.
    pub fn from_env() -> Self {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
        EnvOverrides {
            profile: var("CRMDASH_PROFILE"),
            base_url: var("CRMDASH_BASE_URL"),
        }
    }
}

/// The profile and base URL of this run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    pub profile: String,
    pub profile_source: Source,
    /// Checked by [`crate::api::check_base_url`] (https, or http to loopback only).
    pub base_url: String,
    pub base_url_source: Source,
}

/// Why no usable profile or base URL could be settled on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error(
        "profile '{profile}' has no base URL: pass --base-url URL, set CRMDASH_BASE_URL, or run `crmdash login --profile {profile} --base-url URL`"
    )]
    NoBaseUrl { profile: String },
    #[error("bad base URL from {origin}: {message}")]
    BadBaseUrl {
        origin: &'static str,
        message: String,
    },
    #[error(
        "bad profile name '{name}': use letters, digits, '-', '_' or '.' (at most 64 characters)"
    )]
    BadProfileName { name: String },
    #[error("config file {path}: {message}")]
    File { path: String, message: String },
}

/// Letters, digits, `-`, `_`, `.`; 1 to 64 of them: names that are safe as TOML keys,
/// keyring user names and palette words (profiles, saved views).
pub(crate) fn plain_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// Profile names become keyring user names and TOML keys: keep them plain.
pub fn check_profile_name(name: &str) -> Result<(), ConfigError> {
    if plain_name(name) {
        Ok(())
    } else {
        Err(ConfigError::BadProfileName {
            name: name.to_string(),
        })
    }
}

/// The profile: `--profile` > `CRMDASH_PROFILE` > `default_profile` > `"default"`.
pub fn resolve_profile(
    settings: &Settings,
    flag_profile: Option<&str>,
    env: &EnvOverrides,
) -> Result<(String, Source), ConfigError> {
    let nonempty = |s: &&str| !s.trim().is_empty();
    let (name, source) = if let Some(p) = flag_profile.filter(nonempty) {
        (p, Source::Flag)
    } else if let Some(p) = env.profile.as_deref().filter(nonempty) {
        (p, Source::Env)
    } else if let Some(p) = settings.default_profile.as_deref().filter(nonempty) {
        (p, Source::Config)
    } else {
        (DEFAULT_PROFILE, Source::Default)
    };
    let name = name.trim();
    check_profile_name(name)?;
    Ok((name.to_string(), source))
}

/// Profile and base URL: `--base-url` > `CRMDASH_BASE_URL` > the profile's `base_url`.
/// There is no built-in base URL: without one this is [`ConfigError::NoBaseUrl`].
pub fn resolve(
    settings: &Settings,
    flag_profile: Option<&str>,
    flag_base_url: Option<&str>,
    env: &EnvOverrides,
) -> Result<Resolved, ConfigError> {
    let (profile, profile_source) = resolve_profile(settings, flag_profile, env)?;
    let nonempty = |s: &&str| !s.trim().is_empty();
    let saved = settings
        .profiles
        .get(&profile)
        .and_then(|p| p.base_url.as_deref());
    let (url, base_url_source) = if let Some(u) = flag_base_url.filter(nonempty) {
        (u, Source::Flag)
    } else if let Some(u) = env.base_url.as_deref().filter(nonempty) {
        (u, Source::Env)
    } else if let Some(u) = saved.filter(nonempty) {
        (u, Source::Config)
    } else {
        return Err(ConfigError::NoBaseUrl { profile });
    };
    let checked = crate::api::check_base_url(url).map_err(|e| ConfigError::BadBaseUrl {
        origin: base_url_source.base_url_origin(),
        message: e.message,
    })?;
    Ok(Resolved {
        profile,
        profile_source,
        base_url: normalize_base_url(checked.as_str()),
        base_url_source,
    })
}

/// The host (and port) of a base URL, for the status bar and the login dialog; empty when
/// there is no base URL yet.
pub fn host_label(base_url: &str) -> String {
    url::Url::parse(base_url)
        .ok()
        .and_then(|u| {
            u.host_str().map(|h| match u.port() {
                Some(p) => format!("{h}:{p}"),
                None => h.to_string(),
            })
        })
        .unwrap_or_else(|| base_url.to_string())
}

/// One spelling per base URL, so equal URLs compare equal: parsed (lower-case host, default
/// port dropped), no trailing slash. Unparsable input is returned trimmed.
pub fn normalize_base_url(url: &str) -> String {
    match url::Url::parse(url.trim()) {
        Ok(u) => u.as_str().trim_end_matches('/').to_string(),
        Err(_) => url.trim().trim_end_matches('/').to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::Profile;
    use super::*;

    fn settings() -> Settings {
        let mut s = Settings {
            default_profile: Some("work".into()),
            ..Settings::default()
        };
        s.profiles.insert(
            "work".into(),
            Profile {
                base_url: Some("https://crm.example.com/".into()),
                ..Profile::default()
            },
        );
        s.profiles.insert(
            "staging".into(),
            Profile {
                base_url: Some("https://staging.example.com".into()),
                ..Profile::default()
            },
        );
        s
    }

    #[test]
    fn flag_beats_env_beats_config_beats_default() {
        let s = settings();
        let env = EnvOverrides {
            profile: Some("staging".into()),
            base_url: Some("https://env.example.com".into()),
        };
        let r = resolve(&s, Some("work"), Some("https://flag.example.com"), &env).unwrap();
        assert_eq!(
            (r.profile.as_str(), r.profile_source),
            ("work", Source::Flag)
        );
        assert_eq!(r.base_url, "https://flag.example.com");
        assert_eq!(r.base_url_source, Source::Flag);

        let r = resolve(&s, None, None, &env).unwrap();
        assert_eq!(
            (r.profile.as_str(), r.profile_source),
            ("staging", Source::Env)
        );
        assert_eq!(
            (r.base_url.as_str(), r.base_url_source),
            ("https://env.example.com", Source::Env)
        );

        let r = resolve(&s, None, None, &EnvOverrides::default()).unwrap();
        assert_eq!(
            (r.profile.as_str(), r.profile_source),
            ("work", Source::Config)
        );
        assert_eq!(r.base_url, "https://crm.example.com");
        assert_eq!(r.base_url_source, Source::Config);

        let none = Settings::default();
        let (p, src) = resolve_profile(&none, None, &EnvOverrides::default()).unwrap();
        assert_eq!((p.as_str(), src), ("default", Source::Default));
    }

    #[test]
    fn no_base_url_and_bad_ones_are_clear() {
        let e = resolve(&Settings::default(), None, None, &EnvOverrides::default()).unwrap_err();
        assert!(
            e.to_string()
                .contains("crmdash login --profile default --base-url")
        );
        let env = EnvOverrides {
            base_url: Some("http://crm.example.com".into()),
            ..Default::default()
        };
        let e = resolve(&Settings::default(), None, None, &env).unwrap_err();
        assert!(e.to_string().contains("CRMDASH_BASE_URL"), "{e}");
        assert!(e.to_string().contains("clear text"), "{e}");
        assert!(
            resolve(
                &Settings::default(),
                None,
                Some("http://127.0.0.1:9/"),
                &env
            )
            .is_ok()
        );
    }

    #[test]
    fn profile_names_are_checked() {
        let e = resolve_profile(&Settings::default(), Some("a b"), &EnvOverrides::default());
        assert!(matches!(e, Err(ConfigError::BadProfileName { .. })));
        assert!(check_profile_name("prod-eu.1_x").is_ok());
    }

    #[test]
    fn base_urls_normalize() {
        assert_eq!(
            normalize_base_url("https://CRM.example.com:443/"),
            "https://crm.example.com"
        );
        assert_eq!(normalize_base_url("https://x.io/api/"), "https://x.io/api");
    }
}
