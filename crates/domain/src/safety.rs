//! The safety flags of profiles as the config file sets them; the check itself and the gate
//! every write passes are `crmdash_api::gate`'s (re-exported here).

pub use crmdash_api::gate::{Asker, Clearance, ProfileSafety, Refusal, check_write};

use crate::config::Settings;

/// The flags of `profile` in the settings (none for a profile the file does not name).
pub fn flags_of(settings: &Settings, profile: &str) -> ProfileSafety {
    settings
        .profiles
        .get(profile)
        .map(|p| ProfileSafety {
            read_only: p.read_only,
            protected: p.protected,
        })
        .unwrap_or_default()
}

/// The flags a write to `base_url` as `profile` gets: the strictest of the profile's own and
/// those of every profile pointing at the same service (scheme, host and port), so a
/// `--base-url`, `CRMDASH_BASE_URL` or another profile name cannot reach a read-only or
/// protected service without its flags.
pub fn flags_for_service(settings: &Settings, profile: &str, base_url: &str) -> ProfileSafety {
    let origin = |u: &str| {
        url::Url::parse(u.trim()).ok().map(|u| {
            (
                u.scheme().to_string(),
                u.host_str().map(str::to_ascii_lowercase),
                u.port_or_known_default(),
            )
        })
    };
    let target = origin(base_url);
    let mut flags = flags_of(settings, profile);
    for p in settings.profiles.values() {
        if target.is_some() && p.base_url.as_deref().and_then(origin) == target {
            flags.read_only |= p.read_only;
            flags.protected |= p.protected;
        }
    }
    flags
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Profile;

    #[test]
    fn flags_follow_the_service_not_only_the_name() {
        let mut settings = Settings::default();
        settings.profiles.insert(
            "live".into(),
            Profile {
                base_url: Some("https://CRM.example.com/".into()),
                protected: true,
                ..Profile::default()
            },
        );
        settings.profiles.insert(
            "ro".into(),
            Profile {
                base_url: Some("http://127.0.0.1:8080".into()),
                read_only: true,
                ..Profile::default()
            },
        );
        // Another name, or none, pointed at the protected service: protected.
        let f = flags_for_service(&settings, "default", "https://crm.example.com:443/x");
        assert!(f.protected && !f.read_only);
        // The read-only service through a --base-url: read-only.
        assert!(flags_for_service(&settings, "x", "http://127.0.0.1:8080/").read_only);
        // Another port is another service.
        assert_eq!(
            flags_for_service(&settings, "x", "http://127.0.0.1:8081"),
            ProfileSafety::default()
        );
    }
}
