//! The per-row report (text, JSON or CSV, in file order), the summary with its counts, and the
//! progress line on a terminal.

use std::io::Write;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::json;

use crate::api::ApiError;
use crate::output::Format;

/// What happened to a row (or, with `--dry-run`, would happen).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Created,
    /// The service answered with the contact an earlier request under this row's key made.
    Replayed,
    /// Skipped: the service has a contact with this email.
    Exists,
    /// Skipped: an earlier row of the file stands for it.
    Duplicate,
    Failed,
    /// `--dry-run`: would be created.
    WouldCreate,
    /// Skipped (`--dupes skip`): it looks like an earlier row or a mirrored contact.
    NearDuplicate,
}

impl Outcome {
    /// The word in JSON and CSV.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Created => "created",
            Outcome::Replayed => "replayed",
            Outcome::Exists => "exists",
            Outcome::Duplicate => "duplicate",
            Outcome::Failed => "failed",
            Outcome::WouldCreate => "create",
            Outcome::NearDuplicate => "near_duplicate",
        }
    }
}

/// One row of the report.
#[derive(Debug, Clone)]
pub struct RowReport {
    pub line: u64,
    pub outcome: Outcome,
    pub id: Option<String>,
    pub email: Option<String>,
    pub detail: String,
    /// The failure, for the exit code and for stopping on a rejected token.
    pub error: Option<ApiError>,
    /// What the row looks like, when it is a near duplicate (`--dupes warn` or `skip`).
    pub near: Option<super::near::Near>,
}

impl RowReport {
    pub fn new(line: u64, email: Option<String>) -> RowReport {
        RowReport {
            line,
            outcome: Outcome::Failed,
            id: None,
            email,
            detail: String::new(),
            error: None,
            near: None,
        }
    }

    pub fn failed(mut self, e: ApiError) -> RowReport {
        self.outcome = Outcome::Failed;
        self.detail = e.summary();
        self.error = Some(e);
        self
    }

    /// The row as one line of text.
    pub fn text(&self, dry_run: bool) -> String {
        let email = self.email.as_deref().unwrap_or("no email");
        let id = self.id.as_deref().unwrap_or("?");
        let skip = if dry_run { "would skip" } else { "skipped" };
        let what = match self.outcome {
            Outcome::Created => format!("created contact {id} ({email})"),
            Outcome::Replayed => format!(
                "already imported: contact {id} ({email}), created by an earlier run under the same Idempotency-Key"
            ),
            Outcome::Exists if self.id.is_some() => {
                format!("{skip}, {email} exists as contact {id}")
            }
            Outcome::Exists => format!("{skip}, the service already has {email}"),
            Outcome::Duplicate => format!("{skip}, {} ({email})", self.detail),
            Outcome::Failed => format!("failed: {}", self.detail),
            Outcome::WouldCreate => format!("would create ({email})"),
            Outcome::NearDuplicate => format!("{skip}, {}", self.detail),
        };
        match &self.near {
            Some(n) if self.outcome != Outcome::NearDuplicate => {
                format!("line {}: {what}; {}", self.line, n.text())
            }
            _ => format!("line {}: {what}", self.line),
        }
    }

    fn json(&self) -> serde_json::Value {
        let mut v = json!({
            "line": self.line,
            "outcome": self.outcome.name(),
            "id": self.id,
            "email": self.email,
            "detail": (!self.detail.is_empty()).then_some(&self.detail),
        });
        if let Some(n) = &self.near {
            v["near_duplicate"] = json!({"of": n.of, "score": (n.score * 1000.0).round() / 1000.0, "reasons": n.reasons});
        }
        v
    }

    /// The CSV report's detail: the row's own, or its near duplicate.
    fn csv_detail(&self) -> String {
        match (&self.near, self.outcome) {
            (Some(n), o) if o != Outcome::NearDuplicate && self.detail.is_empty() => n.text(),
            _ => self.detail.clone(),
        }
    }
}

/// Counts by outcome.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Counts {
    pub rows: u64,
    pub created: u64,
    pub replayed: u64,
    pub exists: u64,
    pub duplicates: u64,
    pub failed: u64,
    pub would_create: u64,
    /// Skipped as near duplicates (`--dupes skip`).
    pub near_skipped: u64,
    /// Created (or to be created) though a near duplicate was found (`--dupes warn`).
    pub near_warned: u64,
    /// Rows never tried because the import stopped.
    pub not_sent: u64,
    /// Failed rows the service rejected (4xx): they need a fix, not a re-run.
    pub rejected: u64,
}

impl Counts {
    pub fn add(&mut self, r: &RowReport) {
        if r.near.is_some() && r.outcome != Outcome::NearDuplicate {
            self.near_warned += 1;
        }
        match r.outcome {
            Outcome::Created => self.created += 1,
            Outcome::Replayed => self.replayed += 1,
            Outcome::Exists => self.exists += 1,
            Outcome::Duplicate => self.duplicates += 1,
            Outcome::WouldCreate => self.would_create += 1,
            Outcome::NearDuplicate => self.near_skipped += 1,
            Outcome::Failed => {
                self.failed += 1;
                let rejected = r.error.as_ref().is_some_and(|e| e.kind.is_rejection());
                self.rejected += u64::from(rejected);
            }
        }
    }

    pub fn skipped(&self) -> u64 {
        self.exists + self.duplicates + self.near_skipped
    }

    /// `600 rows: 550 created, 47 skipped (40 already on the service, 7 duplicates in the
    /// file), 0 failed`.
    pub fn sentence(&self, dry_run: bool) -> String {
        let mut parts = Vec::new();
        if dry_run {
            parts.push(format!("{} would be created", self.would_create));
        } else {
            parts.push(format!("{} created", self.created));
            if self.replayed > 0 {
                parts.push(format!(
                    "{} already imported by an earlier run",
                    self.replayed
                ));
            }
        }
        let mut why = Vec::new();
        if self.exists > 0 {
            why.push(format!("{} already on the service", self.exists));
        }
        if self.duplicates > 0 {
            why.push(format!(
                "{} in the file",
                plural(self.duplicates, "duplicate", "duplicates")
            ));
        }
        if self.near_skipped > 0 {
            why.push(format!(
                "{} of rows or mirrored contacts",
                plural(self.near_skipped, "near duplicate", "near duplicates")
            ));
        }
        let skipped = if dry_run {
            "would be skipped"
        } else {
            "skipped"
        };
        if why.is_empty() {
            parts.push(format!("{} {skipped}", self.skipped()));
        } else {
            parts.push(format!("{} {skipped} ({})", self.skipped(), why.join(", ")));
        }
        if !dry_run {
            parts.push(format!("{} failed", self.failed));
        }
        if self.not_sent > 0 {
            parts.push(format!("{} not sent", self.not_sent));
        }
        if self.near_warned > 0 {
            let verb = if dry_run {
                "would be created"
            } else {
                "created"
            };
            parts.push(format!(
                "{} {verb} though near duplicates (listed above)",
                self.near_warned
            ));
        }
        let tail = if dry_run {
            "; nothing sent (--dry-run)"
        } else {
            ""
        };
        format!(
            "{}: {}{tail}",
            plural(self.rows, "row", "rows"),
            parts.join(", ")
        )
    }

    fn json(&self, dry_run: bool) -> serde_json::Value {
        let mut v = json!({
            "rows": self.rows,
            "exists": self.exists,
            "duplicates": self.duplicates,
            "skipped": self.skipped(),
            "not_sent": self.not_sent,
            "near_duplicates_skipped": self.near_skipped,
            "near_duplicates_warned": self.near_warned,
        });
        if dry_run {
            v["would_create"] = json!(self.would_create);
        } else {
            v["created"] = json!(self.created);
            v["replayed"] = json!(self.replayed);
            v["failed"] = json!(self.failed);
        }
        v
    }
}

/// `1 row`, `2 rows`.
pub fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Writes the report row by row to stdout, draws progress on a terminal's stderr.
pub struct Reporter {
    format: Format,
    dry_run: bool,
    out: Box<dyn Write + Send + Sync>,
    /// The first JSON row is not preceded by a comma.
    rows_written: u64,
    pub counts: Counts,
    bar: ProgressBar,
    /// Writing failed (a closed pipe): the import goes on, the report stops.
    out_broken: bool,
    /// When the rows started going out (for the rate).
    started: Instant,
}

impl Reporter {
    /// `progress`: draw the progress line (stderr is a terminal); `stdout_tty`: write each
    /// line as it comes instead of in blocks.
    pub fn new(
        format: Format,
        dry_run: bool,
        total: u64,
        progress: bool,
        stdout_tty: bool,
    ) -> Reporter {
        let out = report_out(stdout_tty);
        let bar = rows_bar(total, progress);
        Reporter {
            format,
            dry_run,
            out,
            rows_written: 0,
            counts: Counts {
                rows: total,
                ..Counts::default()
            },
            bar,
            out_broken: false,
            started: Instant::now(),
        }
    }

    /// Before the rows: says what is going on while a scan runs.
    pub fn note(&self, message: String) {
        self.bar.set_message(message);
    }

    fn write(&mut self, text: &str) {
        if self.out_broken {
            return;
        }
        let out = &mut self.out;
        let bar = &self.bar;
        let result = if bar.is_hidden() {
            out.write_all(text.as_bytes())
        } else {
            bar.suspend(|| out.write_all(text.as_bytes()).and_then(|()| out.flush()))
        };
        self.out_broken = result.is_err();
    }

    pub fn start(&mut self) {
        self.started = Instant::now();
        match self.format {
            Format::Json => {
                let head = format!("{{\"dry_run\":{},\"rows\":[", self.dry_run);
                self.write(&head);
            }
            Format::Csv => self.write("line,outcome,id,email,detail\r\n"),
            Format::Table | Format::Jsonl => {}
        }
    }

    /// One row, in file order; `paused`: new requests wait for a rate limit.
    pub fn row(&mut self, r: &RowReport, paused: bool) {
        self.counts.add(r);
        let text = match self.format {
            Format::Table => format!("{}\n", r.text(self.dry_run)),
            Format::Json => {
                let sep = if self.rows_written == 0 { "\n" } else { ",\n" };
                format!("{sep}{}", r.json())
            }
            Format::Jsonl => format!("{}\n", r.json()),
            Format::Csv => {
                let mut w = crate::output::csv_writer(Vec::new());
                let line = r.line.to_string();
                let _ = w.write_record([
                    line.as_str(),
                    r.outcome.name(),
                    r.id.as_deref().unwrap_or(""),
                    r.email.as_deref().unwrap_or(""),
                    r.csv_detail().as_str(),
                ]);
                String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
            }
        };
        self.write(&text);
        self.rows_written += 1;
        self.bar.inc(1);
        let c = &self.counts;
        let mut msg = if self.dry_run {
            format!("to create {}  to skip {}", c.would_create, c.skipped())
        } else {
            format!(
                "created {}  skipped {}  failed {}",
                c.created + c.replayed,
                c.skipped(),
                c.failed
            )
        };
        let secs = self.started.elapsed().as_secs_f64();
        if secs >= 0.5 {
            msg.push_str(&format!("  {:.0} rows/s", self.rows_written as f64 / secs));
        }
        if paused {
            msg.push_str("  (rate limited: waiting)");
        }
        self.bar.set_message(msg);
    }

    /// The end of the report and the summary (on stdout, except after CSV or JSON-lines rows: stderr).
    pub fn finish(mut self, not_sent: u64) -> Counts {
        self.bar.finish_and_clear();
        self.counts.not_sent = not_sent;
        let sentence = self.counts.sentence(self.dry_run);
        match self.format {
            Format::Json => {
                let tail = format!("\n],\"summary\":{}}}\n", self.counts.json(self.dry_run));
                self.write(&tail);
            }
            // Only rows on stdout (one shape per line): the summary goes to stderr.
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

/// Where a batch's report goes: stdout, line by line on a terminal, in large writes otherwise.
pub(crate) fn report_out(stdout_tty: bool) -> Box<dyn Write + Send + Sync> {
    let stdout = crate::output::stdout();
    if stdout_tty {
        Box::new(std::io::LineWriter::new(stdout))
    } else {
        Box::new(std::io::BufWriter::with_capacity(64 * 1024, stdout))
    }
}

/// A batch's progress bar over `total` rows on stderr (hidden when `show` is false).
pub(crate) fn rows_bar(total: u64, show: bool) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{bar:24} {pos}/{len} rows  {msg}  ETA {eta}") {
        bar.set_style(style);
    }
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::ErrorKind;

    #[test]
    fn the_summary_uses_correct_plurals_and_names_each_reason() {
        let mut c = Counts {
            rows: 1,
            created: 1,
            ..Counts::default()
        };
        assert_eq!(c.sentence(false), "1 row: 1 created, 0 skipped, 0 failed");
        c = Counts {
            rows: 12,
            created: 9,
            exists: 1,
            duplicates: 1,
            failed: 1,
            ..Counts::default()
        };
        assert_eq!(
            c.sentence(false),
            "12 rows: 9 created, 2 skipped (1 already on the service, 1 duplicate in the file), 1 failed"
        );
        c.would_create = 9;
        assert_eq!(
            c.sentence(true),
            "12 rows: 9 would be created, 2 would be skipped (1 already on the service, 1 duplicate in the file); nothing sent (--dry-run)"
        );
    }

    #[test]
    fn each_outcome_reads_as_a_sentence() {
        let mut r = RowReport::new(3, Some("ada@example.com".into()));
        r.outcome = Outcome::Created;
        r.id = Some("1001".into());
        assert_eq!(
            r.text(false),
            "line 3: created contact 1001 (ada@example.com)"
        );
        r.outcome = Outcome::Exists;
        assert_eq!(
            r.text(true),
            "line 3: would skip, ada@example.com exists as contact 1001"
        );
    }

    /// A row the client refused before sending (an email too long to look up) needs a fix,
    /// exit 5, as a plan's row does; it used to count as a network failure (exit 6).
    #[test]
    fn a_row_refused_before_sending_is_rejected_a_server_error_is_not() {
        let failed_with = |kind| {
            let mut r = RowReport::new(3, Some("ada@example.com".into()));
            r.error = Some(ApiError::new(kind, "x"));
            let mut c = Counts::default();
            c.add(&r);
            (c.failed, c.rejected)
        };
        assert_eq!(failed_with(ErrorKind::InvalidRequest), (1, 1));
        assert_eq!(failed_with(ErrorKind::Server), (1, 0));
    }
}
