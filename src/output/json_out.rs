//! `--format json`: the records exactly as the server sent them, unknown fields included.

use std::io::{self, Write};

use crate::api::ApiRecord;

/// A JSON array of each record's raw JSON, byte for byte, one record per line:
/// `[\n<raw>,\n<raw>\n]\n` (`[]\n` when empty). Valid JSON for `jq` and friends.
pub fn write_json<T: ApiRecord>(records: &[T], w: &mut impl Write) -> io::Result<()> {
    if records.is_empty() {
        return w.write_all(b"[]\n");
    }
    w.write_all(b"[\n")?;
    for (i, r) in records.iter().enumerate() {
        if i > 0 {
            w.write_all(b",\n")?;
        }
        w.write_all(r.raw().get().as_bytes())?;
    }
    w.write_all(b"\n]\n")
}

/// One record's raw JSON and a newline: what `create` and `reschedule` print.
pub fn write_json_one<T: ApiRecord>(record: &T, w: &mut impl Write) -> io::Result<()> {
    w.write_all(record.raw().get().as_bytes())?;
    w.write_all(b"\n")
}
