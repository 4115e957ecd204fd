//! The display clock: the zone every time shown to a person is read in.

use chrono::{DateTime, Local, Utc};
use chrono_tz::Tz;

use crate::api::{Timestamp, When};

/// The zone dates are shown in: the machine's, or a fixed one (tests, config).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DisplayZone {
    Local,
    Named(Tz),
}

impl From<super::Zone> for DisplayZone {
    fn from(z: super::Zone) -> Self {
        match z {
            super::Zone::Local => DisplayZone::Local,
            super::Zone::Named(tz) => DisplayZone::Named(tz),
        }
    }
}

impl DisplayZone {
    /// `2026-11-22 14:03` in this zone; a date alone as `2026-11-22`; unparsed text as sent.
    pub fn format(&self, ts: &Timestamp) -> String {
        match ts.when() {
            Some(When::Instant(t)) => self.format_instant(t),
            Some(When::Date(d)) => d.format("%Y-%m-%d").to_string(),
            None => ts.raw().to_string(),
        }
    }

    pub fn format_instant(&self, t: DateTime<Utc>) -> String {
        const FMT: &str = "%Y-%m-%d %H:%M";
        match self {
            DisplayZone::Local => t.with_timezone(&Local).format(FMT).to_string(),
            DisplayZone::Named(tz) => t.with_timezone(tz).format(FMT).to_string(),
        }
    }
}
