//! The local record of reschedules sent (JSON lines in the data dir): API v1 cannot read an
//! appointment back, so this is how a coordinator sees what was done, also in earlier sessions.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One reschedule that the server accepted. Never holds a token.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RescheduleLogEntry {
    /// The appointment id as typed (not percent-encoded).
    pub id: String,
    #[serde(default)]
    pub profile: String,
    /// The service's host (`crm.example.com`), to tell instances apart.
    #[serde(default)]
    pub host: String,
    /// The body exactly as sent.
    #[serde(default)]
    pub body: Map<String, Value>,
    /// `updated_at` from the response, as the server wrote it.
    #[serde(default)]
    pub updated_at: Option<String>,
    /// When crmdash sent it.
    pub at: DateTime<Utc>,
}

/// Appends one line, creating the file (owner-only on Unix) and its directory. A previous
/// write cut short (no final newline) is closed first, so it cannot swallow this entry.
pub fn append_log(path: &Path, entry: &RescheduleLogEntry) -> io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir)?;
    }
    let mut options = OpenOptions::new();
    options.read(true).append(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    let mut line = String::new();
    if !ends_with_newline(&mut file)? {
        line.push('\n');
    }
    line.push_str(&serde_json::to_string(entry).map_err(io::Error::other)?);
    line.push('\n');
    // One write per entry: concurrent appends from two crmdash processes do not interleave.
    file.write_all(line.as_bytes())?;
    file.flush()
}

fn ends_with_newline(file: &mut File) -> io::Result<bool> {
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(true);
    }
    file.seek(SeekFrom::Start(len - 1))?;
    let mut last = [0u8; 1];
    file.read_exact(&mut last)?;
    Ok(last[0] == b'\n')
}

/// The last `last` entries, oldest first. A missing file is an empty log; lines that do not
/// decode (a cut-off write, a hand edit) are skipped, not fatal.
pub fn read_log(path: &Path, last: usize) -> io::Result<Vec<RescheduleLogEntry>> {
    let bytes = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut entries: Vec<RescheduleLogEntry> = bytes
        .split(|b| *b == b'\n')
        .filter_map(|line| serde_json::from_slice(line).ok())
        .collect();
    let skip = entries.len().saturating_sub(last);
    entries.drain(..skip);
    Ok(entries)
}
