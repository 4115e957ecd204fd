//! Logging: `tracing` to a daily-rotated file in the state dir, never to the terminal (the
//! dashboard owns the screen). `CRMDASH_LOG` sets the level. Nothing logs the token: the API
//! client records only method, URL and status, and the Authorization header is marked sensitive.

use std::path::{Path, PathBuf};

use tracing_appender::rolling::{RollingFileAppender, Rotation};
use tracing_subscriber::EnvFilter;

/// Sets the level: a bare level (`debug`) applies to crmdash, other crates stay at `warn`;
/// a full filter (`crmdash=trace,reqwest=debug`) is taken as written.
pub const LOG_ENV: &str = "CRMDASH_LOG";
/// Log files kept; older ones are deleted as days roll over.
pub const KEEP_FILES: usize = 7;
const PREFIX: &str = "crmdash";
const SUFFIX: &str = "log";

/// The filter for a `CRMDASH_LOG` value, or for `default_level` when it is unset.
pub fn filter_directive(env_value: Option<&str>, default_level: &str) -> String {
    let v = env_value.map(str::trim).filter(|v| !v.is_empty());
    match v {
        Some(v) if v.contains('=') || v.contains(',') => v.to_string(),
        Some(level) => format!("warn,crmdash={level}"),
        None => format!("warn,crmdash={default_level}"),
    }
}

/// Starts logging into [`crate::config::state_dir`]; returns the path of today's log file.
/// `None` (and no logging) when there is no state dir, it cannot be created, or a subscriber
/// is already set.
pub fn init(default_level: &str) -> Option<PathBuf> {
    let dir = crate::config::state_dir()?;
    init_in(&dir, default_level)
}

/// [`init`] with the log folder given.
pub fn init_in(dir: &Path, default_level: &str) -> Option<PathBuf> {
    std::fs::create_dir_all(dir).ok()?;
    let appender = RollingFileAppender::builder()
        .rotation(Rotation::DAILY)
        .filename_prefix(PREFIX)
        .filename_suffix(SUFFIX)
        .max_log_files(KEEP_FILES)
        .build(dir)
        .ok()?;
    let env = std::env::var(LOG_ENV).ok();
    let filter = EnvFilter::try_new(filter_directive(env.as_deref(), default_level))
        .unwrap_or_else(|_| EnvFilter::new(filter_directive(None, default_level)));
    tracing_subscriber::fmt()
        .with_writer(appender)
        .with_ansi(false)
        .with_env_filter(filter)
        .try_init()
        .ok()?;
    Some(current_file(dir))
}

/// Today's file as tracing-appender names it (dates in UTC).
pub fn current_file(dir: &Path) -> PathBuf {
    let day = chrono::Utc::now().format("%Y-%m-%d");
    dir.join(format!("{PREFIX}.{day}.{SUFFIX}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_levels_apply_to_crmdash_only() {
        assert_eq!(filter_directive(None, "info"), "warn,crmdash=info");
        assert_eq!(
            filter_directive(Some(" debug "), "info"),
            "warn,crmdash=debug"
        );
        assert_eq!(
            filter_directive(Some("crmdash=trace"), "info"),
            "crmdash=trace"
        );
        assert_eq!(filter_directive(Some(""), "warn"), "warn,crmdash=warn");
    }

    #[test]
    fn logs_go_to_the_rotated_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = init_in(dir.path(), "info").expect("first init");
        tracing::info!(target: "crmdash::test", "hello from the test");
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains("hello from the test"), "{text}");
        assert!(!text.contains('\u{1b}'), "no colour codes in files");
    }
}
