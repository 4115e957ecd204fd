//! The import's engine, one for `crmdash contacts import` and the dashboard's `:import`: the
//! options both take ([`ImportOptions`]), what is said about the file's columns before
//! anything is sent ([`column_notes`]), the near duplicates of the rows ([`near_of`]) and the
//! second pass ([`send_all`]): rows read again as a stream, decided in file order, sent
//! `jobs` at a time through the sender's governor (or, with a dry-run sender, looked up and
//! not created), each row's report handed over in file order.

use std::collections::HashMap;
use std::sync::atomic::Ordering;

use futures::StreamExt;

use super::decide::Decider;
use super::layout::{self, Layout, separator_name};
use super::near::{self, DupesPolicy, Near};
use super::read::Rows;
use super::report::{self, RowReport};
use super::send::{ExistingBy, Known, Sender};
use super::{MAX_FAILURE_STREAK, STOPPED};
use crate::api::{ApiError, ErrorKind, NewContact};
use crate::cli::exit::CliError;
use crate::insights::dupes::Person;
use crate::insights::dupes::mirrored::Finder;

/// What an import is asked to do with a file (the CLI's flags, `:import`'s words).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportOptions {
    /// `HEADER=FIELD` pairs (`--map`).
    pub map: Vec<(String, String)>,
    pub key_column: Option<String>,
    pub only_known: bool,
    pub allow_duplicate: bool,
    pub delimiter: Option<u8>,
    /// Requests in flight at once.
    pub jobs: usize,
    pub existing: ExistingBy,
    pub dupes: DupesPolicy,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            map: Vec::new(),
            key_column: None,
            only_known: false,
            allow_duplicate: false,
            delimiter: None,
            jobs: 8,
            existing: ExistingBy::Auto,
            dupes: DupesPolicy::Warn,
        }
    }
}

impl ImportOptions {
    /// The file's layout under these options (its header read and mapped).
    pub fn layout(&self, path: &std::path::Path) -> Result<Layout, CliError> {
        Layout::open_mapped(
            path,
            self.delimiter,
            self.key_column.as_deref(),
            self.only_known,
            &self.map,
        )
    }
}

/// What is said before anything is sent: the separator when detected and not a comma, the
/// columns mapped by a name other than the field's, the columns that are no contact field
/// and what becomes of them. In the CLI's words (`--map`, `--only-known`).
pub fn column_notes(layout: &Layout) -> Vec<String> {
    let mut lines = Vec::new();
    if layout.detected && layout.delimiter != b',' {
        lines.push(format!(
            "columns separated by {} (detected; --delimiter to choose)",
            separator_name(layout.delimiter)
        ));
    }
    if !layout.mapped.is_empty() {
        let mapped: Vec<String> = layout
            .mapped
            .iter()
            .map(|(i, field)| {
                let to = if *field == layout::FULL_NAME {
                    "first_name + last_name (split at the first space)"
                } else {
                    field
                };
                format!("'{}' → {to}", layout.headers[*i])
            })
            .collect();
        lines.push(format!(
            "columns mapped: {} (--map 'HEADER=FIELD' to choose)",
            mapped.join(", ")
        ));
    }
    let unknown = layout.unknown_headers();
    if !unknown.is_empty() {
        let quoted: Vec<String> = unknown
            .iter()
            .map(|h| {
                if h.is_empty() {
                    "(unnamed)".to_string()
                } else {
                    format!("'{h}'")
                }
            })
            .collect();
        let extra = layout.extra_keys();
        let fate = if extra.is_empty() {
            "none is sent".to_string()
        } else if extra.len() == unknown.len() {
            format!(
                "sent as extra attributes: {} (--only-known leaves them out)",
                extra.join(", ")
            )
        } else {
            format!(
                "sent as extra attributes: {}; the others are not sent",
                extra.join(", ")
            )
        };
        let what = if unknown.len() == 1 {
            "1 column is not a contact field".to_string()
        } else {
            format!("{} columns are not contact fields", unknown.len())
        };
        lines.push(format!(
            "{what} (first_name, last_name, email, phone): {}; {fate}",
            quoted.join(", ")
        ));
    }
    lines
}

/// Each row's best near duplicate (an earlier row, or a mirrored contact), unless `--dupes
/// create` (nothing is looked for). Runs on the caller's thread: call it off the event loop.
pub fn near_of(
    dupes: DupesPolicy,
    rows: Vec<Person>,
    mirrored: Vec<Person>,
    finder: &Finder,
) -> HashMap<u64, Near> {
    if dupes == DupesPolicy::Create {
        return HashMap::new();
    }
    near::find_with(rows, mirrored, finder)
}

/// One row's report as the second pass hands it over, in file order.
pub struct SentRow {
    pub report: RowReport,
    /// What the row sends (kept only when asked: a preview shows it).
    pub contact: Option<NewContact>,
}

/// Why the second pass stopped by itself.
#[derive(Debug, Clone)]
pub enum Halt {
    /// The token was refused (401/403): every other row would be too.
    Refused(ApiError),
    /// [`MAX_FAILURE_STREAK`] rows in a row failed for network or server reasons (the last).
    Streak(ApiError),
}

impl Halt {
    /// `20 rows in a row failed (the last: …)`, or the refusal.
    pub fn summary(&self) -> String {
        match self {
            Halt::Refused(e) => e.summary(),
            Halt::Streak(e) => format!(
                "{MAX_FAILURE_STREAK} rows in a row failed (the last: {})",
                e.summary()
            ),
        }
    }
}

/// How the second pass ended.
pub struct Ended {
    /// Rows reported (the others were never tried: the import stopped).
    pub reported: u64,
    /// The first reason it stopped by itself.
    pub halt: Option<Halt>,
    /// Reading the file again failed.
    pub read: Result<(), CliError>,
}

/// A row of the second pass: planned, or bad (the file changed since the first pass).
enum Item {
    Row(super::decide::Planned),
    Bad(RowReport),
}

/// The second pass: the rows of `layout` read again and decided in file order, each sent
/// (or, with a dry-run sender, looked up) through `sender`; `on_row` hears every row's
/// report in file order. Rows not tried because the sender's `stop` was set are not
/// reported. A refused token stops it at once; [`MAX_FAILURE_STREAK`] transient failures
/// in a row stop it too.
pub async fn send_all(
    layout: Layout,
    sender: &Sender,
    known: &Known,
    near: &HashMap<u64, Near>,
    opts: &ImportOptions,
    keep_contact: bool,
    mut on_row: impl FnMut(SentRow),
) -> Ended {
    let stop = sender.stop.clone();
    let skip_near = opts.dupes == DupesPolicy::Skip;
    let (tx, rx) = tokio::sync::mpsc::channel::<Item>(1024);
    let producer = {
        let stop = stop.clone();
        let allow = opts.allow_duplicate;
        tokio::task::spawn_blocking(move || -> Result<(), CliError> {
            let mut decider = Decider::new(allow);
            for raw in Rows::open(&layout)? {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let item = match raw
                    .parsed
                    .and_then(|p| decider.decide(raw.line, p).map_err(|m| vec![m]))
                {
                    Ok(p) => Item::Row(p),
                    Err(problems) => {
                        Item::Bad(RowReport::new(raw.line, None).failed(ApiError::new(
                            ErrorKind::InvalidRequest,
                            format!("the file changed while importing: {}", problems.join("; ")),
                        )))
                    }
                };
                if tx.blocking_send(item).is_err() {
                    break;
                }
            }
            Ok(())
        })
    };
    let items = futures::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|item| (item, rx))
    });
    let results = items
        .map(|item| async move {
            match item {
                Item::Row(p) => {
                    let contact = keep_contact.then(|| p.contact.clone());
                    let look_alike = near.get(&p.line).cloned();
                    let report = match look_alike {
                        Some(n) if skip_near && p.duplicate_of.is_none() => {
                            let mut r = RowReport::new(p.line, p.email.clone());
                            r.outcome = report::Outcome::NearDuplicate;
                            r.detail = n.text();
                            r.near = Some(n);
                            r
                        }
                        look_alike => {
                            let mut r = sender.row(p, known).await;
                            if matches!(
                                r.outcome,
                                report::Outcome::Created | report::Outcome::WouldCreate
                            ) {
                                r.near = look_alike;
                            }
                            r
                        }
                    };
                    SentRow { report, contact }
                }
                Item::Bad(report) => SentRow {
                    report,
                    contact: None,
                },
            }
        })
        // Answers are taken in file order; up to this many rows are under way meanwhile
        // (their requests still wait for the governor's permits).
        .buffered(opts.jobs.max(1) * 8);
    let mut results = std::pin::pin!(results);

    let mut halt: Option<Halt> = None;
    let mut streak = 0u32;
    let mut reported = 0u64;
    while let Some(row) = results.next().await {
        let r = &row.report;
        if r.error.as_ref().is_some_and(|e| e.message == STOPPED) {
            continue;
        }
        reported += 1;
        match &r.error {
            Some(e)
                if matches!(
                    e.kind,
                    ErrorKind::Unauthorized | ErrorKind::Forbidden | ErrorKind::NotJournaled
                ) =>
            {
                if halt.is_none() {
                    halt = Some(Halt::Refused(e.clone()));
                }
                stop.store(true, Ordering::Relaxed);
            }
            Some(e) if e.is_transient() => {
                streak += 1;
                if streak >= MAX_FAILURE_STREAK && halt.is_none() {
                    halt = Some(Halt::Streak(e.clone()));
                    stop.store(true, Ordering::Relaxed);
                }
            }
            _ => streak = 0,
        }
        on_row(row);
    }
    let read = producer
        .await
        .map_err(|e| CliError::other(format!("reading the file stopped: {e}")))
        .and_then(|r| r);
    Ended {
        reported,
        halt,
        read,
    }
}

/// How existing emails will be found, said before a scan starts (`on_page(done, total)`).
pub async fn known(
    sender: &Sender,
    opts: &ImportOptions,
    emails: &std::collections::HashSet<u128>,
    on_page: &(dyn Fn(u64, u64) + Sync),
) -> Result<Known, ApiError> {
    sender
        .known(opts.existing, opts.allow_duplicate, emails, on_page)
        .await
}
