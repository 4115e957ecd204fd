//! `:import PATH`: its preview ([`ImportPreviewWork`], the CLI's dry run) and its run
//! ([`ImportRun`]), both with the CLI's engine (`cli::import::engine`): the same layout and
//! checks, the same look-ups of the emails the service has, the same near-duplicate finder,
//! the same governor (a rate limit slows the whole import, no row fails for it) and stable
//! Idempotency-Keys (a re-run or a stopped run re-run never creates anyone twice). Each row
//! sent goes to the write journal. A cancel of the run stops new requests; those under way
//! finish and are reported, so no row is left in doubt by the dashboard.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use futures::future::BoxFuture;

use super::{JobCx, Work};
use crate::api::{Client, Governor};
use crate::app::import::{ImportJob, ImportPreview, ImportReport, ImportRowReport, PreviewRow};
use crate::app::jobs::JobOutput;
use crate::cli::exit::CliError;
use crate::cli::import::decide::{Checked, check_file};
use crate::cli::import::engine::{self, SentRow};
use crate::cli::import::near::Near;
use crate::cli::import::send::{Known, RowJournal, Sender};
use crate::cli::import::{Counts, DupesPolicy, Layout, Outcome};
use crate::insights::dupes::Person;
use crate::journal::{Answer, Who, WriteKind, WriteRecord};
use crate::runtime::mirror::MirrorReader;

/// What the CLI says in flags, in `:import`'s words.
fn in_words(note: &str) -> String {
    note.replace("--delimiter", "delimiter=")
        .replace("--map 'HEADER=FIELD'", "map=HEADER=FIELD")
        .replace("--only-known", "only-known")
        .replace("--dupes", "dupes=")
}

fn client_of(cx: &JobCx) -> Result<Client, String> {
    match cx.pages.source.as_ref().and_then(|s| s.client()) {
        Some(c) => Ok(c),
        None if cx.pages.reason.is_empty() => Err("Not signed in".to_string()),
        None => Err(cx.pages.reason.clone()),
    }
}

/// The file read and checked (the first pass), off the event loop.
enum Read {
    Good(Box<(Layout, Checked)>),
    /// Bad rows (`line 3`, why) and the sentence saying how many.
    Bad(Vec<String>, String),
}

async fn read(path: PathBuf, job: &ImportJob) -> Result<(Read, Vec<String>), String> {
    let opts = job.words.options.clone();
    tokio::task::spawn_blocking(move || {
        let layout = opts.layout(&path).map_err(|e| in_words(&e.to_string()))?;
        let notes: Vec<String> = engine::column_notes(&layout)
            .iter()
            .map(|n| in_words(n))
            .collect();
        match check_file(&layout, opts.allow_duplicate) {
            Ok(checked) => Ok((Read::Good(Box::new((layout, checked))), notes)),
            Err(CliError::Invalid { message, fields }) if !fields.is_empty() => {
                let bad = fields.iter().map(|(l, m)| format!("{l}: {m}")).collect();
                // `people.csv: 2 bad rows; nothing was sent (…)`: the dialog's title names
                // the file, its sentence says what it means for a run.
                let opened = format!("{}: ", path.display());
                let message = message.strip_prefix(&opened).unwrap_or(&message);
                let message = message.replace("; nothing was sent", "");
                Ok((Read::Bad(bad, message), notes))
            }
            Err(e) => Err(e.to_string()),
        }
    })
    .await
    .map_err(|e| format!("The file was not read: {e}"))?
}

/// The mirror's contacts for the near-duplicate finder, or why there are none.
async fn mirrored(reader: Option<MirrorReader>) -> Result<Vec<Person>, String> {
    let none = || "no local mirror (:sync makes one)".to_string();
    let path = reader.ok_or_else(none)?.path().to_path_buf();
    tokio::task::spawn_blocking(move || {
        let opened = crate::mirror::Mirror::open_existing(&path)
            .map_err(|e| e.for_read().to_string())?
            .ok_or_else(none)?;
        crate::insights::dupes::mirrored::people(&opened.mirror)
            .map_err(|e| e.for_read().to_string())
    })
    .await
    .map_err(|e| e.to_string())?
}

/// Everything the second pass needs: the sender (dry run or not), the emails known, the near
/// duplicates found.
struct Ready {
    layout: Layout,
    rows: u64,
    sender: Sender,
    gov: Arc<Governor>,
    known: Known,
    near: HashMap<u64, Near>,
    /// Said when near duplicates are looked for within the file only.
    near_note: Option<String>,
}

async fn ready(
    job: &ImportJob,
    cx: &JobCx,
    layout: Layout,
    checked: Checked,
    dry_run: bool,
    stop: Arc<AtomicBool>,
) -> Result<Ready, String> {
    let opts = &job.words.options;
    let client = client_of(cx)?;
    let gov = Arc::new(Governor::new(opts.jobs));
    let client = client.with_observer(crate::api::governor::observer(
        gov.clone(),
        client.observer(),
    ));
    let journal = match (&job.write_journal, dry_run) {
        (Some(path), false) => Some(RowJournal {
            gate: crate::writes::Gatekeeper {
                flags: job.flags,
                guard: job.profile.clone(),
                requester: crate::writes::Requester::Dashboard,
                journal: crate::journal::JournalFile {
                    path: Some(path.clone()),
                },
            },
            path: path.clone(),
            template: WriteRecord::new(
                WriteKind::Import,
                Who::Dashboard,
                &job.profile,
                client.base_url().as_str(),
                serde_json::Value::Null,
                Answer::default(),
            ),
            file: job
                .path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        }),
        _ => None,
    };
    let sender = Sender {
        client,
        gov: gov.clone(),
        jobs: opts.jobs,
        dry_run,
        stop,
        mirror: None,
        journal,
    };
    let progress = cx.progress.clone();
    let on_page = move |done: u64, total: u64| progress.report(done, Some(total), "pages");
    let known = engine::known(&sender, opts, &checked.emails, &on_page)
        .await
        .map_err(|e| e.summary())?;
    let (mirrored, near_note) = if opts.dupes == DupesPolicy::Create {
        (Vec::new(), None)
    } else {
        match mirrored(cx.pages.mirror.clone()).await {
            Ok(people) => (people, None),
            Err(why) => (
                Vec::new(),
                Some(format!(
                    "near duplicates are looked for within the file only: {why}"
                )),
            ),
        }
    };
    let near = {
        let (dupes, people, finder) = (opts.dupes, checked.people, job.finder.clone());
        tokio::task::spawn_blocking(move || engine::near_of(dupes, people, mirrored, &finder))
            .await
            .map_err(|e| format!("looking for near duplicates stopped: {e}"))?
    };
    Ok(Ready {
        layout,
        rows: checked.rows,
        sender,
        gov,
        known,
        near,
        near_note,
    })
}

/// `Ada Lovelace`.
fn name_of(c: &crate::api::NewContact) -> String {
    [c.first_name.as_deref(), c.last_name.as_deref()]
        .into_iter()
        .flatten()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A row's detail with its look-alike (`dupes=warn`), as the CLI's CSV report has it.
fn detail_of(r: &crate::cli::import::report::RowReport) -> String {
    let id = r.id.as_deref();
    let base = match (r.outcome, id) {
        (Outcome::Exists, Some(id)) => format!("exists as contact {id}"),
        (Outcome::Exists, None) => "the service already has this email".to_string(),
        (Outcome::Replayed, _) => "created by an earlier run (same Idempotency-Key)".to_string(),
        _ => r.detail.clone(),
    };
    match &r.near {
        Some(n) if r.outcome != Outcome::NearDuplicate && base.is_empty() => n.text(),
        Some(n) if r.outcome != Outcome::NearDuplicate => format!("{base}; {}", n.text()),
        _ => base,
    }
}

/// What a second pass over the rows gives back.
struct Pass<T> {
    /// The counts (`not_sent`: the rows never tried).
    counts: Counts,
    /// Each row's line, in the order they were reported.
    rows: Vec<T>,
    ended: engine::Ended,
    /// Times a rate limit held the requests.
    rate_limited: u64,
}

/// The second pass, the preview's and the run's: every row through the CLI's engine
/// (`ready.sender` a dry run or not), counted, made into `row`'s line, progress reported as
/// rows go.
async fn each_row<T>(
    ready: Ready,
    job: &ImportJob,
    cx: &JobCx,
    mut row: impl FnMut(SentRow) -> T,
) -> Pass<T> {
    let total = ready.rows;
    let mut counts = Counts {
        rows: total,
        ..Counts::default()
    };
    let mut rows = Vec::new();
    let keep_contact = ready.sender.dry_run;
    let ended = engine::send_all(
        ready.layout,
        &ready.sender,
        &ready.known,
        &ready.near,
        &job.words.options,
        keep_contact,
        |sent: SentRow| {
            counts.add(&sent.report);
            rows.push(row(sent));
            cx.progress.report(rows.len() as u64, Some(total), "rows");
        },
    )
    .await;
    counts.not_sent = total.saturating_sub(ended.reported);
    Pass {
        counts,
        rows,
        ended,
        rate_limited: ready.gov.times_rate_limited(),
    }
}

/// The preview: the CLI's dry run (look-ups are sent, creates are not).
pub(super) struct ImportPreviewWork {
    pub job: ImportJob,
}

impl Work for ImportPreviewWork {
    fn run(self: Box<Self>, cx: JobCx) -> BoxFuture<'static, Result<JobOutput, String>> {
        let run = async move {
            let job = self.job;
            let path = super::plan::expand_home(&job.path);
            let (read, mut notes) = read(path, &job).await?;
            let (layout, checked) = match read {
                Read::Good(good) => *good,
                Read::Bad(bad, summary) => {
                    return Ok(JobOutput::ImportPreview(Arc::new(ImportPreview {
                        job,
                        notes,
                        bad,
                        bad_summary: Some(summary),
                        rows: Vec::new(),
                        counts: Counts::default(),
                    })));
                }
            };
            let stop = Arc::new(AtomicBool::new(false));
            let r = ready(&job, &cx, layout, checked, true, stop).await?;
            notes.extend(r.near_note.clone());
            let Pass {
                counts,
                rows,
                ended,
                ..
            } = each_row(r, &job, &cx, |SentRow { report, contact }| {
                let c = contact.unwrap_or_default();
                PreviewRow {
                    line: report.line,
                    outcome: report.outcome,
                    name: name_of(&c),
                    email: c.email.clone().unwrap_or_default(),
                    phone: c.phone.clone().unwrap_or_default(),
                    note: detail_of(&report),
                    near: report.near.is_some(),
                }
            })
            .await;
            ended.read.map_err(|e| e.to_string())?;
            if let Some(halt) = ended.halt {
                return Err(halt.summary());
            }
            Ok(JobOutput::ImportPreview(Arc::new(ImportPreview {
                job,
                notes,
                bad: Vec::new(),
                bad_summary: None,
                rows,
                counts,
            })))
        };
        Box::pin(crate::runtime::source::ORIGIN.scope("import", run))
    }
}

/// The run: every row through the CLI's engine; stops itself on a cancel.
pub(super) struct ImportRun {
    pub job: ImportJob,
}

impl Work for ImportRun {
    fn stops_itself(&self) -> bool {
        true
    }

    fn run(self: Box<Self>, cx: JobCx) -> BoxFuture<'static, Result<JobOutput, String>> {
        let run = async move {
            let job = self.job;
            let path = super::plan::expand_home(&job.path);
            let (read, _) = read(path, &job).await?;
            let (layout, checked) = match read {
                Read::Good(good) => *good,
                Read::Bad(_, summary) => {
                    return Err(format!(
                        "the file changed since its preview: {summary} (:import it again)"
                    ));
                }
            };
            let stop = Arc::new(AtomicBool::new(false));
            let watch = {
                let (stop, cancel) = (stop.clone(), cx.cancel.clone());
                tokio::spawn(async move {
                    cancel.cancelled().await;
                    stop.store(true, Ordering::Relaxed);
                })
            };
            let total = checked.rows;
            let r = match ready(&job, &cx, layout, checked, false, stop).await {
                Ok(r) => r,
                // Stopped while the emails were being looked up: nothing was created.
                Err(_) if cx.cancel.is_cancelled() => {
                    watch.abort();
                    return Ok(JobOutput::Import(Arc::new(ImportReport {
                        path: job.path,
                        counts: Counts {
                            rows: total,
                            not_sent: total,
                            ..Counts::default()
                        },
                        stopped: true,
                        ..ImportReport::default()
                    })));
                }
                Err(e) => {
                    watch.abort();
                    return Err(e);
                }
            };
            let Pass {
                counts,
                rows,
                ended,
                rate_limited,
            } = each_row(r, &job, &cx, |SentRow { report, .. }| ImportRowReport {
                line: report.line,
                outcome: report.outcome,
                detail: detail_of(&report),
                id: report.id,
                email: report.email,
            })
            .await;
            watch.abort();
            let halted = match (ended.halt, ended.read) {
                (Some(h), _) => Some(h.summary()),
                (None, Err(e)) => Some(e.to_string()),
                (None, Ok(())) => None,
            };
            Ok(JobOutput::Import(Arc::new(ImportReport {
                path: job.path,
                rows,
                counts,
                stopped: cx.cancel.is_cancelled(),
                halted,
                rate_limited,
            })))
        };
        Box::pin(crate::runtime::source::ORIGIN.scope("import", run))
    }
}
