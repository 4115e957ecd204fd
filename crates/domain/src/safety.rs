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

/// The flags a write reaches a service with, and the profile they come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServiceFlags {
    pub flags: ProfileSafety,
    /// The profile whose flags these are: the write's own unless another profile at the same
    /// service is stricter. A protected write needs `--profile` with this name.
    pub guard: String,
}

/// The flags a write to `base_url` as `profile` gets: the strictest of the profile's own and
/// those of every profile pointing at the same service (scheme, host and port; every loopback
/// name and address counts as one host), so a `--base-url`, `CRMDASH_BASE_URL` or another
/// profile name cannot reach a read-only or protected service without its flags. Host names
/// are compared as written (lower case, no trailing dot), not resolved.
pub fn service_flags(settings: &Settings, profile: &str, base_url: &str) -> ServiceFlags {
    let target = origin(base_url);
    let own = flags_of(settings, profile);
    let mut out = ServiceFlags {
        flags: own,
        guard: profile.to_string(),
    };
    if target.is_none() {
        return out;
    }
    // Stricter first: read-only, then protected; the write's own profile wins a tie.
    let rank = |f: ProfileSafety| u8::from(f.read_only) * 2 + u8::from(f.protected);
    for (name, p) in &settings.profiles {
        if p.base_url.as_deref().and_then(origin) != target {
            continue;
        }
        let f = ProfileSafety {
            read_only: p.read_only,
            protected: p.protected,
        };
        if rank(f) > rank(out.flags) || (rank(f) == rank(out.flags) && name == profile) {
            out.guard = name.clone();
        }
        out.flags.read_only |= f.read_only;
        out.flags.protected |= f.protected;
    }
    out
}

/// [`service_flags`]' flags alone.
pub fn flags_for_service(settings: &Settings, profile: &str, base_url: &str) -> ProfileSafety {
    service_flags(settings, profile, base_url).flags
}

/// Scheme, host and port of a base URL, every loopback host as one.
fn origin(url: &str) -> Option<(String, String, Option<u16>)> {
    let u = url::Url::parse(url.trim()).ok()?;
    let host = match u.host()? {
        url::Host::Ipv4(ip) if ip.is_loopback() => "loopback".to_string(),
        url::Host::Ipv6(ip) if ip.is_loopback() => "loopback".to_string(),
        url::Host::Domain(d) => {
            let d = d.trim_end_matches('.').to_ascii_lowercase();
            if d == "localhost" || d.ends_with(".localhost") {
                "loopback".to_string()
            } else {
                d
            }
        }
        h => h.to_string(),
    };
    Some((u.scheme().to_string(), host, u.port_or_known_default()))
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
        // Every loopback name is the same host.
        let f = service_flags(&settings, "x", "http://localhost:8080");
        assert!(f.flags.read_only);
        assert_eq!(f.guard, "ro");
        assert!(flags_for_service(&settings, "x", "http://[::1]:8080").read_only);
        // The protected profile's name is the guard, not the name used.
        assert_eq!(
            service_flags(&settings, "default", "https://crm.example.com.").guard,
            "live"
        );
        // Another port is another service.
        assert_eq!(
            flags_for_service(&settings, "x", "http://127.0.0.1:8081"),
            ProfileSafety::default()
        );
    }
}
