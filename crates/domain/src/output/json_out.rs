//! `--format json` and `jsonl`: the records exactly as the server sent them, unknown fields
//! included.

use std::io::{self, Write};

use crate::api::ApiRecord;

/// A JSON array of each record's raw JSON, byte for byte, one record per line:
/// `[\n<raw>,\n<raw>\n]\n` (`[]\n` when empty). Valid JSON for `jq` and friends.
pub fn write_json<T: ApiRecord>(records: &[T], w: &mut impl Write) -> io::Result<()> {
    let mut sink = JsonSink::default();
    sink.rows(records, w)?;
    sink.finish(w)
}

/// A JSON array written in parts (pages), the same bytes as [`write_json`] of them all.
#[derive(Debug, Default)]
pub struct JsonSink {
    written: usize,
}

impl JsonSink {
    pub fn rows<T: ApiRecord>(&mut self, records: &[T], w: &mut impl Write) -> io::Result<()> {
        for r in records {
            w.write_all(if self.written == 0 { b"[\n" } else { b",\n" })?;
            w.write_all(r.raw().get().as_bytes())?;
            self.written += 1;
        }
        Ok(())
    }

    pub fn finish(&mut self, w: &mut impl Write) -> io::Result<()> {
        if self.written == 0 {
            w.write_all(b"[]\n")
        } else {
            w.write_all(b"\n]\n")
        }
    }
}

/// JSON Lines: each record's raw JSON on its own line (nothing at all when empty). A record
/// the server spread over several lines is written without its insignificant whitespace.
pub fn write_jsonl<T: ApiRecord>(records: &[T], w: &mut impl Write) -> io::Result<()> {
    for r in records {
        let raw = r.raw().get();
        if raw.contains(['\n', '\r']) {
            w.write_all(super::text::minify_json(raw).as_bytes())?;
        } else {
            w.write_all(raw.as_bytes())?;
        }
        w.write_all(b"\n")?;
    }
    Ok(())
}

/// One record's raw JSON and a newline: what `create` and `reschedule` print.
pub fn write_json_one<T: ApiRecord>(record: &T, w: &mut impl Write) -> io::Result<()> {
    w.write_all(record.raw().get().as_bytes())?;
    w.write_all(b"\n")
}
