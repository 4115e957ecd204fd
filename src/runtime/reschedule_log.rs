//! The reschedule dialog's log file I/O (JSON lines in the data dir): append an entry, read
//! the last ones back. Runs on the blocking pool; the format itself lives in
//! `crate::reschedule`.

use crate::reschedule::{RescheduleLogEntry, append_log, read_log};

/// Appends (when given) and reads back the last `last` entries.
pub fn reschedule_log(
    path: &std::path::Path,
    append: Option<&RescheduleLogEntry>,
    last: usize,
) -> Result<Vec<RescheduleLogEntry>, String> {
    if let Some(entry) = append {
        append_log(path, entry)
            .map_err(|e| format!("could not write the log {}: {e}", path.display()))?;
    }
    read_log(path, last).map_err(|e| format!("could not read the log {}: {e}", path.display()))
}
