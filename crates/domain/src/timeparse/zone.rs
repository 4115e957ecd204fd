//! The zone a typed time is read in: the machine's local zone or a named IANA zone.

use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

use chrono::offset::LocalResult;
use chrono::{DateTime, FixedOffset, Local, NaiveDateTime, Offset, TimeZone, Utc};
use chrono_tz::{OffsetName, Tz};

use super::TimeError;

/// Where a time without an offset lives: `local` (the machine's zone, as chrono reads it from
/// `TZ` or `/etc/localtime`) or an IANA zone such as `Europe/Berlin`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Zone {
    #[default]
    Local,
    Named(Tz),
}

impl From<super::DisplayZone> for Zone {
    fn from(z: super::DisplayZone) -> Self {
        match z {
            super::DisplayZone::Local => Zone::Local,
            super::DisplayZone::Named(tz) => Zone::Named(tz),
        }
    }
}

/// A zone name that is neither `local` nor a known IANA zone.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown time zone {0:?}: use `local` or an IANA name such as Europe/Berlin or UTC")]
pub struct UnknownZone(pub String);

impl FromStr for Zone {
    type Err = UnknownZone;

    /// `local` (any case, also an empty string) or an IANA name, matched case-insensitively.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        if t.is_empty() || t.eq_ignore_ascii_case("local") {
            return Ok(Zone::Local);
        }
        if let Ok(tz) = Tz::from_str(t) {
            return Ok(Zone::Named(tz));
        }
        chrono_tz::TZ_VARIANTS
            .iter()
            .find(|tz| tz.name().eq_ignore_ascii_case(t))
            .map(|tz| Zone::Named(*tz))
            .ok_or_else(|| UnknownZone(shorten(t)))
    }
}

impl fmt::Display for Zone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Zone::Local => f.write_str("local"),
            Zone::Named(tz) => f.write_str(tz.name()),
        }
    }
}

impl Zone {
    /// For messages: the IANA name, or "the local time zone".
    pub fn describe(&self) -> String {
        match self {
            Zone::Local => "the local time zone".to_string(),
            Zone::Named(tz) => tz.name().to_string(),
        }
    }

    /// The wall-clock reading of `t` in this zone, with the offset in force then.
    pub fn from_utc(&self, t: DateTime<Utc>) -> DateTime<FixedOffset> {
        match self {
            Zone::Local => t.with_timezone(&Local).fixed_offset(),
            Zone::Named(tz) => t.with_timezone(tz).fixed_offset(),
        }
    }

    /// Every instant whose wall-clock reading in this zone is `local`: none in a DST gap, two in
    /// a DST overlap (earlier first).
    pub fn resolve(&self, local: NaiveDateTime) -> LocalResult<DateTime<FixedOffset>> {
        match self {
            Zone::Local => Local.from_local_datetime(&local).map(|t| t.fixed_offset()),
            Zone::Named(tz) => tz.from_local_datetime(&local).map(|t| t.fixed_offset()),
        }
    }

    /// The one instant `local` names here; a DST gap or overlap is an error the caller shows
    /// (an overlap's error carries both candidates, so a dialog can ask which).
    pub fn localize(&self, local: NaiveDateTime) -> Result<DateTime<FixedOffset>, TimeError> {
        match self.resolve(local) {
            LocalResult::Single(t) => Ok(t),
            LocalResult::Ambiguous(a, b) => {
                let (earlier, later) = if a <= b { (a, b) } else { (b, a) };
                Err(TimeError::Ambiguous { earlier, later })
            }
            LocalResult::None => Err(TimeError::Nonexistent { local, zone: *self }),
        }
    }

    /// The short name of the offset in force at `t`: `CET`, `EDT`, or `UTC+05:30` where the
    /// zone database has no letters (or the local zone cannot be named).
    pub fn abbreviation(&self, t: DateTime<Utc>) -> String {
        let named = match self {
            Zone::Named(tz) => Some(*tz),
            Zone::Local => local_tz_name(),
        };
        let fixed = self.from_utc(t).offset().fix();
        if let Some(tz) = named {
            let off = tz.offset_from_utc_datetime(&t.naive_utc());
            // Only trust the guessed name of the local zone when it agrees with chrono's Local.
            if off.fix() == fixed
                && let Some(abbr) = off.abbreviation()
                && abbr.chars().any(|c| c.is_ascii_alphabetic())
            {
                return abbr.to_string();
            }
        }
        if fixed.local_minus_utc() == 0 {
            "UTC".to_string()
        } else {
            format!("UTC{fixed}")
        }
    }
}

/// The IANA name of the machine's zone, if it can be found (`TZ`, then the system setting);
/// looked up once, as a live summary asks on every keystroke.
fn local_tz_name() -> Option<Tz> {
    static NAME: OnceLock<Option<Tz>> = OnceLock::new();
    *NAME.get_or_init(find_local_tz)
}

fn find_local_tz() -> Option<Tz> {
    if let Ok(tz) = std::env::var("TZ") {
        let name = tz.trim_start_matches(':');
        if let Ok(z) = Tz::from_str(name) {
            return Some(z);
        }
    }
    iana_time_zone::get_timezone()
        .ok()
        .and_then(|n| Tz::from_str(&n).ok())
}

/// At most 60 characters of untrusted text, for error messages.
pub(super) fn shorten(s: &str) -> String {
    const MAX: usize = 60;
    if s.chars().count() <= MAX {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(MAX).collect();
        t.push('…');
        t
    }
}
