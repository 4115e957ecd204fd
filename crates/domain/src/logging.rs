//! Logging: `tracing` to a daily file in the state dir (0600 files in a 0700 folder), never
//! to the terminal (the dashboard owns the screen). `CRMDASH_LOG` sets the level. Nothing
//! logs the token: the API client records only method, URL and status, and the Authorization
//! header is marked sensitive. Personal data in query strings (`email=`, `full_name=`, ...)
//! is masked in every line written, at every level (`email=***`).

use std::borrow::Cow;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

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
    let writer = DailyFile::open(dir).ok()?;
    let env = std::env::var(LOG_ENV).ok();
    let filter = EnvFilter::try_new(filter_directive(env.as_deref(), default_level))
        .unwrap_or_else(|_| EnvFilter::new(filter_directive(None, default_level)));
    tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .with_env_filter(filter)
        .try_init()
        .ok()?;
    Some(current_file(dir))
}

/// Query parameters whose values say nothing about a person: kept in logs as they are.
const PLAIN_PARAMS: [&str; 8] = [
    "page",
    "per_page",
    "sort_by",
    "sort_direction",
    "include",
    "status",
    "created_after",
    "updated_after",
];

/// `text` with the value of every query parameter that may hold personal data replaced by
/// `***` (`?email=ada%40example.com&page=2` -> `?email=***&page=2`).
pub fn mask_query_values(text: &str) -> Cow<'_, str> {
    if !text.contains('?') {
        return Cow::Borrowed(text);
    }
    let is_key =
        |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '[' | ']' | '%');
    let ends_value = |c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '&' | '"' | '\'' | '>' | ')' | ',' | ';' | '}' | '#' | '\\'
            )
    };
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(q) = rest.find('?') {
        out.push_str(&rest[..=q]);
        rest = &rest[q + 1..];
        // Pairs `key=value` joined by `&`, as long as they look like a query string.
        loop {
            let key_len = rest.find(|c: char| !is_key(c)).unwrap_or(rest.len());
            if key_len == 0 || !rest[key_len..].starts_with('=') {
                break;
            }
            let key = &rest[..key_len];
            let after = &rest[key_len + 1..];
            let value_len = after.find(ends_value).unwrap_or(after.len());
            out.push_str(key);
            out.push('=');
            if PLAIN_PARAMS.contains(&key) || value_len == 0 {
                out.push_str(&after[..value_len]);
            } else {
                out.push_str("***");
            }
            rest = &after[value_len..];
            match rest.strip_prefix('&') {
                Some(more) => {
                    out.push('&');
                    rest = more;
                }
                None => break,
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// Today's log file, opened 0600 in a 0700 folder; a new one each day (UTC), the oldest
/// deleted beyond [`KEEP_FILES`]. Every line is masked ([`mask_query_values`]).
#[derive(Clone)]
struct DailyFile {
    dir: PathBuf,
    open: Arc<Mutex<(String, File)>>,
}

impl DailyFile {
    fn open(dir: &Path) -> io::Result<DailyFile> {
        private_dir(dir)?;
        let day = today();
        let file = open_private(&dir.join(file_name(&day)))?;
        prune(dir);
        Ok(DailyFile {
            dir: dir.to_path_buf(),
            open: Arc::new(Mutex::new((day, file))),
        })
    }
}

impl Write for DailyFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        let masked = mask_query_values(&text);
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let day = today();
        if open.0 != day {
            let file = open_private(&self.dir.join(file_name(&day)))?;
            *open = (day, file);
            prune(&self.dir);
        }
        open.1.write_all(masked.as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.open
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .1
            .flush()
    }
}

fn today() -> String {
    chrono::Utc::now().format("%Y-%m-%d").to_string()
}

fn file_name(day: &str) -> String {
    format!("{PREFIX}.{day}.{SUFFIX}")
}

/// The log folder, 0700: created so, or tightened (it is crmdash's own state folder).
fn private_dir(dir: &Path) -> io::Result<()> {
    fs::create_dir_all(dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if fs::metadata(dir)?.permissions().mode() & 0o077 != 0 {
            fs::set_permissions(dir, fs::Permissions::from_mode(0o700))?;
        }
    }
    Ok(())
}

/// Opens `path` for appending, 0600 (a file left 0644 by an older crmdash is tightened).
fn open_private(path: &Path) -> io::Result<File> {
    let mut opts = OpenOptions::new();
    opts.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        opts.mode(0o600);
        let file = opts.open(path)?;
        if file.metadata()?.permissions().mode() & 0o077 != 0 {
            file.set_permissions(fs::Permissions::from_mode(0o600))?;
        }
        Ok(file)
    }
    #[cfg(not(unix))]
    opts.open(path)
}

/// Deletes the oldest log files beyond [`KEEP_FILES`].
fn prune(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut logs: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n.starts_with(&format!("{PREFIX}.")) && n.ends_with(&format!(".{SUFFIX}"))
            })
        })
        .collect();
    logs.sort();
    let extra = logs.len().saturating_sub(KEEP_FILES);
    for old in &logs[..extra] {
        let _ = fs::remove_file(old);
    }
}

/// Today's file (dates in UTC).
pub fn current_file(dir: &Path) -> PathBuf {
    dir.join(file_name(&today()))
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
    fn logs_go_to_a_private_daily_file_with_personal_query_values_masked() {
        let dir = tempfile::tempdir().unwrap();
        let logs = dir.path().join("state");
        let file = init_in(&logs, "info").expect("first init");
        tracing::info!(target: "crmdash::test", "hello from the test");
        tracing::warn!(
            url = "http://127.0.0.1:9/public/v1/contacts?email=ada%40example.com&page=2",
            "GET failed"
        );
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains("hello from the test"), "{text}");
        assert!(!text.contains('\u{1b}'), "no colour codes in files");
        assert!(text.contains("contacts?email=***&page=2"), "{text}");
        assert!(!text.contains("ada"), "{text}");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&file), 0o600);
            assert_eq!(mode(&logs), 0o700);
        }
    }

    #[test]
    fn only_values_that_may_name_a_person_are_masked() {
        let cases = [
            (
                "GET /contacts?email=a%40b.c&full_name=Ada%20L",
                "GET /contacts?email=***&full_name=***",
            ),
            (
                "/deals?name=Acme&status=open&page=3 -> 200",
                "/deals?name=***&status=open&page=3 -> 200",
            ),
            ("url=\"/c?phone=+4930123\" ok", "url=\"/c?phone=***\" ok"),
            ("no query here", "no query here"),
            ("what? nothing=", "what? nothing="),
            (
                "/c?sort_by=created_at&sort_direction=asc&per_page=100",
                "/c?sort_by=created_at&sort_direction=asc&per_page=100",
            ),
        ];
        for (raw, want) in cases {
            assert_eq!(mask_query_values(raw), want, "{raw}");
        }
    }
}
