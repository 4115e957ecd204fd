//! `--demo`'s past: after the demo's first sync (a baseline), the sandbox makes up what moved
//! in its deals over the months before (`SandboxHandle::deal_history`, seeded, each deal
//! ending in the state just synced) and it is written into the demo mirror's change feed,
//! marked as demo data, so the reports over time have months to show at once. Only a demo
//! does this: a real profile's history is only ever what its syncs saw.

use chrono::Utc;

use crate::config::CacheSettings;
use crate::mirror::{FieldChange, Mirror, MirrorError, MirrorLocation};
use crate::sandbox::SandboxHandle;

/// At most this many days of made-up past (fewer when `[cache] history_days` keeps fewer:
/// a sync would prune the rest).
const DAYS: u32 = 120;

/// The made-up past, ready to write: (seen at, deal id, fields) oldest first, and where the
/// history starts.
pub struct Past {
    changes: Vec<(i64, String, Vec<FieldChange>)>,
    from: i64,
}

/// Asks the sandbox for the deals' past (quick: its deals are in memory).
pub fn make(cache: &CacheSettings, sandbox: &SandboxHandle) -> Past {
    let days = DAYS.min(cache.history_days.saturating_sub(1)).max(1);
    let end = Utc::now() - chrono::Duration::hours(1);
    let changes = sandbox
        .deal_history(i64::from(days), end)
        .into_iter()
        .map(|c| {
            let fields = c
                .fields
                .into_iter()
                .map(|f| FieldChange {
                    field: f.field.to_string(),
                    old: f.old,
                    new: f.new,
                })
                .collect();
            (c.at.timestamp(), c.id, fields)
        })
        .collect();
    Past {
        changes,
        from: (end - chrono::Duration::days(i64::from(days))).timestamp(),
    }
}

/// Writes the past into the demo's mirror, once (a mirror that has it is left alone; no
/// mirror yet, nothing to do). Blocks on disk.
pub fn write(location: &MirrorLocation, past: &Past) -> Result<(), MirrorError> {
    let Some(opened) = Mirror::open_existing(&location.db_path())? else {
        return Ok(());
    };
    let m = opened.mirror;
    if m.has_demo_deal_history()? {
        return Ok(());
    }
    m.add_demo_deal_history(&past.changes, past.from)
}
