//! The reschedule body: the new times under the configured keys, plus extra keys.

use chrono::{DateTime, FixedOffset, SecondsFormat};
use serde_json::{Map, Value};

use super::RescheduleTimes;
use crate::config::RescheduleSettings;
use crate::timeparse::TimeError;
use crate::validate::{ExtraLineError, parse_extra_lines_reserving};

/// Why a body could not be built. `Display` is one line a user can act on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RescheduleError {
    #[error("no body key for the start is configured: set [reschedule] start_field")]
    NoStartField,
    #[error("[reschedule] start_field and end_field are both {0:?}: they must differ")]
    SameFields(String),
    #[error(
        "the end ({}) must be after the start ({})",
        end.format("%Y-%m-%d %H:%M"),
        start.format("%Y-%m-%d %H:%M")
    )]
    EndNotAfterStart {
        start: DateTime<FixedOffset>,
        end: DateTime<FixedOffset>,
    },
    #[error("{key:?} carries the new time: set it with the start and end, not as an extra key")]
    ExtraOverridesTime { key: String },
    /// A clock-time end that the zone skips or passes twice on that day.
    #[error("the end: {0}")]
    EndTime(TimeError),
    #[error("the time is out of the supported range")]
    OutOfRange,
}

/// A field of the reschedule dialog a server field error can land on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DialogField {
    Id,
    Start,
    End,
}

/// A time written back for a person to read or edit: RFC 3339 with the offset it carries,
/// whole seconds unless it has a fraction (`2026-12-24T10:00:00+01:00`); the doubled hour of
/// a DST change is told apart by it. Bodies send [`send_time`].
pub fn format_time(t: &DateTime<FixedOffset>) -> String {
    t.to_rfc3339_opts(SecondsFormat::AutoSi, false)
}

/// How a time is sent, by the dashboard and the CLI alike (and so logged alike): RFC 3339 in
/// UTC with a `Z`, whole seconds unless it has a fraction (`2026-12-24T09:00:00Z`).
pub fn send_time(t: &DateTime<FixedOffset>) -> String {
    crate::timeparse::to_utc_rfc3339(t.to_utc())
}

/// The exact JSON object to send: `extra`, then the start under `start_field` and the end
/// under `end_field`, both as [`send_time`] (no end when `end_field` is empty or there is no end). Refuses an end at
/// or before the start, and extra keys that would replace a time key.
pub fn build_body(
    times: &RescheduleTimes,
    settings: &RescheduleSettings,
    extra: &Map<String, Value>,
) -> Result<Map<String, Value>, RescheduleError> {
    let start_key = settings.start_field.trim();
    let end_key = settings.end_field.trim();
    if start_key.is_empty() {
        return Err(RescheduleError::NoStartField);
    }
    if start_key == end_key {
        return Err(RescheduleError::SameFields(start_key.to_string()));
    }
    times.check()?;
    for key in [start_key, end_key] {
        if !key.is_empty() && extra.contains_key(key) {
            return Err(RescheduleError::ExtraOverridesTime {
                key: key.to_string(),
            });
        }
    }
    let mut body = extra.clone();
    body.insert(
        start_key.to_string(),
        Value::String(send_time(&times.start)),
    );
    if let (false, Some(end)) = (end_key.is_empty(), times.end) {
        body.insert(end_key.to_string(), Value::String(send_time(&end)));
    }
    Ok(body)
}

/// The dialog's `key = value` lines (see `validate::parse_extra_lines`), refusing the
/// configured time keys, which have their own fields.
pub fn parse_extra(
    text: &str,
    settings: &RescheduleSettings,
) -> Result<Map<String, Value>, ExtraLineError> {
    let reserved: Vec<&str> = [settings.start_field.trim(), settings.end_field.trim()]
        .into_iter()
        .filter(|k| !k.is_empty())
        .collect();
    parse_extra_lines_reserving(text, &reserved)
}

/// Where a 422 field error belongs: on the start or end field when its key is the
/// configured start/end key (also as `data.<key>` or `<key>.<part>`), on the id for `id` /
/// `appointmentId`; `None` for any other key (shown verbatim).
pub fn map_server_field(key: &str, settings: &RescheduleSettings) -> Option<DialogField> {
    let k = key.trim();
    let k = k.strip_prefix("data.").unwrap_or(k);
    let head = k.split(['.', '[']).next().unwrap_or_default();
    let is = |configured: &str| {
        let c = configured.trim();
        !c.is_empty() && (k.eq_ignore_ascii_case(c) || head.eq_ignore_ascii_case(c))
    };
    if is(&settings.start_field) {
        Some(DialogField::Start)
    } else if is(&settings.end_field) {
        Some(DialogField::End)
    } else if ["id", "appointment_id", "appointmentid"]
        .iter()
        .any(|i| k.eq_ignore_ascii_case(i))
    {
        Some(DialogField::Id)
    } else {
        None
    }
}
