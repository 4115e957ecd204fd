//! Time options (`--created-after`, `--start`, ...) read through the shared grammar; a bad time
//! is refused before anything is sent (exit 5).

use chrono::{DateTime, FixedOffset, Utc};

use crate::cli::exit::CliError;
use crate::timeparse::{self, GRAMMAR_HELP, Zone};

/// The machine's zone: what list filters are typed in.
pub fn local_zone() -> Zone {
    Zone::Local
}

/// A configured zone (`[reschedule] timezone`); an unknown name is a setup error (exit 1).
pub fn zone_named(name: &str) -> Result<Zone, CliError> {
    name.parse::<Zone>()
        .map_err(|e| CliError::other(format!("[reschedule] timezone in the config file: {e}")))
}

/// Parses an optional time option named `field` (the wire name, e.g. `created_after`).
pub fn opt_instant(
    field: &str,
    value: &Option<String>,
    zone: &Zone,
) -> Result<Option<DateTime<Utc>>, CliError> {
    let Some(text) = value else {
        return Ok(None);
    };
    timeparse::parse_instant(text, zone, Utc::now())
        .map(Some)
        .map_err(|e| {
            let flag = field.replace('_', "-");
            CliError::field(field, format!("--{flag}: {e}"))
        })
}

/// Like [`opt_instant`], keeping the zone's offset (what the reschedule builder takes).
pub fn opt_zoned(
    field: &str,
    value: &Option<String>,
    zone: &Zone,
) -> Result<Option<DateTime<FixedOffset>>, CliError> {
    let Some(text) = value else {
        return Ok(None);
    };
    timeparse::parse_zoned(text, zone, Utc::now())
        .map(Some)
        .map_err(|e| {
            let flag = field.replace('_', "-");
            CliError::field(field, format!("--{flag}: {e}"))
        })
}

/// The grammar, for `--help`.
pub fn help() -> &'static str {
    GRAMMAR_HELP
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_time_names_its_option_and_exits_5() {
        let err = opt_instant(
            "created_after",
            &Some("next blue moon".into()),
            &Zone::Local,
        )
        .unwrap_err();
        assert!(err.to_string().starts_with("--created-after:"), "{err}");
        assert_eq!(err.exit() as u8, 5);
    }

    #[test]
    fn rfc3339_passes_through_as_utc() {
        let t = opt_instant(
            "start",
            &Some("2026-12-01T10:00:00+01:00".into()),
            &Zone::Local,
        )
        .unwrap()
        .unwrap();
        assert_eq!(t.to_rfc3339(), "2026-12-01T09:00:00+00:00");
    }

    #[test]
    fn an_unknown_zone_is_a_setup_error() {
        assert_eq!(zone_named("Mars/Olympus").unwrap_err().exit() as u8, 1);
        assert_eq!(
            zone_named("Europe/Berlin").unwrap().to_string(),
            "Europe/Berlin"
        );
    }
}
