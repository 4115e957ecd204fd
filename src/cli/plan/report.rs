//! A plan's report, in file order: one line per row (table), rows and summary (json), rows
//! (jsonl, csv; the summary on stderr), like the import's; a progress bar on a terminal.

use std::io::Write;
use std::time::Instant;

use indicatif::ProgressBar;
use serde_json::json;

use crate::cli::context::Ttys;
use crate::output::Format;
use crate::reschedule::RescheduleTimes;
use crate::reschedule::plan::preview::times_text;
use crate::reschedule::plan::run::{Outcome, RowResult};
use crate::timeparse::Zone;

/// Counts by outcome.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Counts {
    pub rows: u64,
    pub moved: u64,
    pub already_done: u64,
    pub in_doubt: u64,
    pub taken: u64,
    pub failed: u64,
    /// Failed rows the service refused (4xx): they need a fix, not only a re-run.
    pub rejected: u64,
    pub not_sent: u64,
}

impl Counts {
    fn add(&mut self, r: &RowResult) {
        match r.outcome {
            Outcome::Moved => self.moved += 1,
            Outcome::AlreadyDone => self.already_done += 1,
            Outcome::InDoubt => self.in_doubt += 1,
            Outcome::Taken => self.taken += 1,
            Outcome::NotSent => self.not_sent += 1,
            Outcome::Failed => {
                self.failed += 1;
                let rejected = r.error.as_ref().is_some_and(|e| e.kind.is_rejection());
                self.rejected += u64::from(rejected);
            }
        }
    }

    /// `1 row`, `2 rows`.
    pub fn plural(&self, n: u64) -> String {
        format!("{n} {}", if n == 1 { "row" } else { "rows" })
    }

    /// `20 rows: 17 moved, 2 already done by an earlier run, 1 failed`.
    pub fn sentence(&self) -> String {
        let mut parts = vec![format!("{} moved", self.moved)];
        let extra = [
            (self.already_done, "already done by an earlier run"),
            (self.in_doubt, "in doubt (not sent again)"),
            (self.taken, "sent by another run"),
        ];
        for (n, what) in extra {
            if n > 0 {
                parts.push(format!("{n} {what}"));
            }
        }
        parts.push(format!("{} failed", self.failed));
        if self.not_sent > 0 {
            parts.push(format!("{} not sent", self.not_sent));
        }
        format!("{}: {}", self.plural(self.rows), parts.join(", "))
    }

    fn json(&self) -> serde_json::Value {
        json!({
            "rows": self.rows, "moved": self.moved, "already_done": self.already_done,
            "in_doubt": self.in_doubt, "sent_by_another_run": self.taken,
            "failed": self.failed, "not_sent": self.not_sent,
        })
    }
}

/// Writes the report row by row to stdout, draws progress on a terminal's stderr.
pub struct Reporter {
    format: Format,
    out: Box<dyn Write + Send + Sync>,
    rows_written: u64,
    counts: Counts,
    bar: ProgressBar,
    out_broken: bool,
    started: Instant,
    zone: Zone,
}

impl Reporter {
    pub fn new(format: Format, total: u64, tty: Ttys, zone: &Zone) -> Reporter {
        let out = crate::cli::import::report::report_out(tty.stdout);
        let bar = crate::cli::import::report::rows_bar(total, tty.stderr);
        Reporter {
            format,
            out,
            rows_written: 0,
            counts: Counts {
                rows: total,
                ..Counts::default()
            },
            bar,
            out_broken: false,
            started: Instant::now(),
            zone: *zone,
        }
    }

    fn write(&mut self, text: &str) {
        if self.out_broken {
            return;
        }
        let out = &mut self.out;
        let result = if self.bar.is_hidden() {
            out.write_all(text.as_bytes())
        } else {
            self.bar
                .suspend(|| out.write_all(text.as_bytes()).and_then(|()| out.flush()))
        };
        self.out_broken = result.is_err();
    }

    pub fn start(&mut self) {
        self.started = Instant::now();
        match self.format {
            Format::Json => self.write("{\"rows\":["),
            Format::Csv => self.write("line,outcome,id,start,end,updated_at,detail\r\n"),
            Format::Table | Format::Jsonl => {}
        }
    }

    /// One row, in file order, with the times it was moved to.
    pub fn row(&mut self, r: &RowResult, times: Option<RescheduleTimes>) {
        self.counts.add(r);
        let (start, end) = times
            .map(|t| times_text(&t, &self.zone))
            .unwrap_or_default();
        let text = match self.format {
            Format::Table => format!("{}\n", text(r, &start, &end)),
            Format::Json => {
                let sep = if self.rows_written == 0 { "\n" } else { ",\n" };
                format!("{sep}{}", row_json(r, &times))
            }
            Format::Jsonl => format!("{}\n", row_json(r, &times)),
            Format::Csv => {
                let mut w = crate::output::csv_writer(Vec::new());
                let line = r.line.to_string();
                let (s, e) = utc_times(&times);
                let _ = w.write_record([
                    line.as_str(),
                    r.outcome.name(),
                    r.id.as_str(),
                    s.as_str(),
                    e.as_str(),
                    r.updated_at.as_deref().unwrap_or(""),
                    r.detail.as_str(),
                ]);
                String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
            }
        };
        self.write(&text);
        self.rows_written += 1;
        self.bar.inc(1);
        let c = &self.counts;
        let mut msg = format!(
            "moved {}  skipped {}  failed {}",
            c.moved,
            c.already_done + c.in_doubt + c.taken,
            c.failed
        );
        let secs = self.started.elapsed().as_secs_f64();
        if secs >= 0.5 {
            msg.push_str(&format!("  {:.0} rows/s", self.rows_written as f64 / secs));
        }
        self.bar.set_message(msg);
    }

    /// The end of the report and the summary (stdout; stderr after CSV or JSON Lines rows).
    pub fn finish(mut self) -> Counts {
        self.bar.finish_and_clear();
        let reported = self.rows_written;
        self.counts.not_sent += self.counts.rows.saturating_sub(reported);
        let sentence = self.counts.sentence();
        match self.format {
            Format::Json => {
                let tail = format!("\n],\"summary\":{}}}\n", self.counts.json());
                self.write(&tail);
            }
            Format::Csv | Format::Jsonl => {
                let _ = writeln!(std::io::stderr().lock(), "{sentence}");
            }
            Format::Table => self.write(&format!("{sentence}\n")),
        }
        if !self.out_broken {
            let _ = self.out.flush();
        }
        self.counts
    }
}

/// The row as one line of text.
fn text(r: &RowResult, start: &str, end: &str) -> String {
    let to = if end.is_empty() || end.starts_with('(') {
        start.to_string()
    } else {
        format!("{start}–{end}")
    };
    let what = match r.outcome {
        Outcome::Moved if r.detail.is_empty() => format!("moved {} to {to}", r.id),
        Outcome::Moved => format!("moved {} to {to}; {}", r.id, r.detail),
        Outcome::Failed => format!("{} failed: {}", r.id, r.detail),
        _ => format!("{} skipped: {}", r.id, r.detail),
    };
    format!("line {}: {what}", r.line)
}

fn utc_times(times: &Option<RescheduleTimes>) -> (String, String) {
    let t = |x: Option<chrono::DateTime<chrono::FixedOffset>>| {
        x.map(|v| crate::reschedule::send_time(&v))
            .unwrap_or_default()
    };
    (t(times.map(|t| t.start)), t(times.and_then(|t| t.end)))
}

fn row_json(r: &RowResult, times: &Option<RescheduleTimes>) -> serde_json::Value {
    let (start, end) = utc_times(times);
    json!({
        "line": r.line,
        "outcome": r.outcome.name(),
        "id": r.id,
        "start": (!start.is_empty()).then_some(start),
        "end": (!end.is_empty()).then_some(end),
        "updated_at": r.updated_at,
        "detail": (!r.detail.is_empty()).then_some(&r.detail),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::ErrorKind;

    #[test]
    fn the_summary_names_only_what_happened() {
        let c = Counts {
            rows: 3,
            moved: 2,
            already_done: 1,
            ..Counts::default()
        };
        assert_eq!(
            c.sentence(),
            "3 rows: 2 moved, 1 already done by an earlier run, 0 failed"
        );
    }

    /// A row refused before sending needs a fix like a 422 (exit 5), as an import's does; a
    /// server error leaves the row as it was (a re-run, exit 6).
    #[test]
    fn a_row_refused_before_sending_is_rejected_a_server_error_is_not() {
        let failed_with = |kind| {
            let mut c = Counts::default();
            c.add(&RowResult {
                line: 2,
                id: "apt_1".into(),
                outcome: Outcome::Failed,
                detail: String::new(),
                error: Some(crate::api::ApiError::new(kind, "x")),
                updated_at: None,
            });
            (c.failed, c.rejected)
        };
        assert_eq!(failed_with(ErrorKind::InvalidRequest), (1, 1));
        assert_eq!(failed_with(ErrorKind::Server), (1, 0));
    }
}
