//! `:import PATH [dupes=skip] [existing=scan] [key=COL] [map=HEADER=FIELD] ...`: the CLI's
//! contact import from the dashboard, in two jobs. The preview (`JobSpec::ImportPreview`)
//! is the CLI's dry run: the file checked (bad rows named with their line; nothing can run
//! while one is bad), the emails the service has looked up, near duplicates found as
//! `--dupes` finds them, each row's fate and what it sends. Enter in the preview passes the
//! write gate (a read-only profile refuses, a protected one asks its name, the undo window
//! holds it) and starts the run (`JobSpec::Import`): the CLI's engine, its governor, its
//! stable Idempotency-Keys and the write journal, `n/N rows` in `:jobs`, `x` to stop it,
//! and a per-row report `:jobs` opens.

use std::path::PathBuf;
use std::sync::Arc;

use crate::app::App;
use crate::app::dialogs::Overlay;
use crate::app::dialogs::import::ImportView;
use crate::app::effects::{Effect, RequestId};
use crate::app::jobs::{JobOutput, JobReport, JobSpec};
use crate::cli::import::{Counts, DupesPolicy, ExistingBy, ImportOptions, Outcome};
use crate::insights::dupes::mirrored::Finder;

/// The words `:import` takes after the file, as the CLI's flags.
pub const WORDS: &[(&str, &str)] = &[
    ("dupes=", "warn|skip|create: near duplicates (--dupes)"),
    ("existing=", "auto|search|scan: how known emails are found"),
    ("key=", "COL: the column each row's key derives from"),
    ("map=", "HEADER=FIELD: a column's contact field"),
    ("delimiter=", "C|tab: the column separator"),
    ("jobs=", "N: requests in flight (1-64)"),
    ("only-known", "send only the contact fields"),
    ("allow-duplicate", "create rows whose email exists"),
];

/// `:import`'s words after the file: the CLI's options, and the words as typed (titles).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ImportWords {
    pub options: ImportOptions,
    pub typed: Vec<String>,
}

impl ImportWords {
    /// `dupes=skip existing=scan key=external_id map='Handy=phone' delimiter=; jobs=16
    /// only-known allow-duplicate` (each once but `map=`).
    pub fn parse(args: &[String]) -> Result<ImportWords, String> {
        let mut o = ImportOptions::default();
        let mut seen: Vec<String> = Vec::new();
        for a in args {
            let (key, raw) = match a.split_once('=') {
                Some((k, v)) => (k.trim().to_ascii_lowercase().replace('_', "-"), Some(v)),
                None => (a.trim().to_ascii_lowercase().replace('_', "-"), None),
            };
            if key != "map" && seen.contains(&key) {
                return Err(format!("{key} is given twice"));
            }
            seen.push(key.clone());
            let value = |what: &str| -> Result<String, String> {
                match raw.map(str::trim) {
                    Some(v) if !v.is_empty() => Ok(v.to_string()),
                    _ => Err(format!("{key}= needs {what}")),
                }
            };
            match key.as_str() {
                "dupes" => {
                    o.dupes = clap::ValueEnum::from_str(&value("warn, skip or create")?, true)
                        .map_err(|_| "dupes= takes warn, skip or create".to_string())?;
                }
                "existing" => {
                    o.existing = clap::ValueEnum::from_str(&value("auto, search or scan")?, true)
                        .map_err(|_| "existing= takes auto, search or scan".to_string())?;
                }
                "key" | "key-column" => o.key_column = Some(value("a column's name")?),
                "map" => o
                    .map
                    .push(crate::cli::import::parse_map(&value("HEADER=FIELD")?)?),
                "delimiter" => {
                    o.delimiter = Some(
                        crate::cli::import::parse_delimiter(&value("one character or tab")?)
                            .map_err(|e| format!("delimiter=: {e}"))?,
                    )
                }
                "jobs" => {
                    o.jobs = value("a number from 1 to 64")?
                        .parse::<usize>()
                        .ok()
                        .filter(|n| (1..=64).contains(n))
                        .ok_or("jobs= takes a number from 1 to 64")?;
                }
                "only-known" | "allow-duplicate" if raw.is_some() => {
                    return Err(format!("{key} takes no value: write it alone"));
                }
                "only-known" => o.only_known = true,
                "allow-duplicate" => o.allow_duplicate = true,
                other => {
                    let known: Vec<&str> = WORDS.iter().map(|(w, _)| *w).collect();
                    return Err(format!(
                        ":import takes {} after the file, not {other}",
                        known.join(" ")
                    ));
                }
            }
        }
        Ok(ImportWords {
            options: o,
            typed: args.to_vec(),
        })
    }

    /// ` dupes=skip jobs=16`, for titles.
    pub fn describe(&self) -> String {
        self.typed.iter().map(|w| format!(" {w}")).collect()
    }
}

/// An import the runtime previews or runs (`JobSpec::ImportPreview`, `JobSpec::Import`).
#[derive(Debug, Clone, PartialEq)]
pub struct ImportJob {
    /// As typed (titles, reports).
    pub path: PathBuf,
    pub words: ImportWords,
    /// Rows of the file (known once previewed; 0 before).
    pub rows: u64,
    /// `[dupes]` and `[ui] region`: the near-duplicate finder.
    pub finder: Finder,
    /// The write journal (`:log`): one entry per row sent.
    pub write_journal: Option<PathBuf>,
    pub profile: String,
    /// The profile's safety flags: the gate each row passes in the runtime.
    pub flags: crate::safety::ProfileSafety,
}

/// One row of a preview: what the CLI's dry run says of it, and what it sends.
#[derive(Debug, Clone, PartialEq)]
pub struct PreviewRow {
    pub line: u64,
    pub outcome: Outcome,
    /// `First Last`.
    pub name: String,
    pub email: String,
    pub phone: String,
    /// Why it is skipped, its look-alike, or why its look-up failed.
    pub note: String,
    /// A near duplicate was found (created anyway under `dupes=warn`).
    pub near: bool,
}

/// The preview (`JobOutput::ImportPreview`).
#[derive(Debug, Clone, PartialEq)]
pub struct ImportPreview {
    pub job: ImportJob,
    /// What is said of the columns before anything is sent (and of the mirror).
    pub notes: Vec<String>,
    /// `line 3: email: …`: every bad row (nothing can run while one is).
    pub bad: Vec<String>,
    /// `2 bad rows; nothing was sent (the first 200 problems listed)`.
    pub bad_summary: Option<String>,
    pub rows: Vec<PreviewRow>,
    /// The dry run's counts.
    pub counts: Counts,
}

impl ImportPreview {
    /// Rows the run would create, or try again (their look-up failed).
    pub fn to_send(&self) -> u64 {
        self.counts.would_create + self.counts.failed
    }
}

/// One row of a run's report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportRowReport {
    pub line: u64,
    pub outcome: Outcome,
    pub id: Option<String>,
    pub email: Option<String>,
    pub detail: String,
}

/// A run's report (`JobOutput::Import`): every row's outcome, in file order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportReport {
    pub path: PathBuf,
    pub rows: Vec<ImportRowReport>,
    pub counts: Counts,
    /// Stopped from `:jobs`: rows not sent yet were not sent.
    pub stopped: bool,
    /// Why it stopped by itself (the token refused, too many failures in a row).
    pub halted: Option<String>,
    /// How many times a rate limit slowed it down.
    pub rate_limited: u64,
}

impl ImportReport {
    /// `12 rows: 9 created, 2 skipped (…), 1 failed` (then `stopped` or why it halted).
    pub fn summary(&self) -> String {
        let mut s = self.counts.sentence(false);
        if self.stopped {
            s.push_str("; stopped (:import the file again to send the rest)");
        } else if let Some(why) = &self.halted {
            s.push_str(&format!("; halted: {why}"));
        }
        s
    }
}

/// The words of the preview's outcome column.
pub fn preview_words(o: Outcome) -> &'static str {
    match o {
        Outcome::WouldCreate | Outcome::Created => "create",
        Outcome::Exists => "skip: exists",
        Outcome::Duplicate => "skip: in file",
        Outcome::NearDuplicate => "skip: near",
        Outcome::Replayed => "done before",
        Outcome::Failed => "look-up failed",
    }
}

/// The words of the report's outcome column.
pub fn report_words(o: Outcome) -> &'static str {
    match o {
        Outcome::Created | Outcome::WouldCreate => "created",
        Outcome::Replayed => "done before",
        Outcome::Exists => "exists",
        Outcome::Duplicate => "duplicate",
        Outcome::NearDuplicate => "near duplicate",
        Outcome::Failed => "failed",
    }
}

impl ImportJob {
    /// `people.csv (12 rows)` or, before the preview, `people.csv`.
    pub fn title(&self, preview: bool) -> String {
        if preview {
            format!("preview {}{}", self.path.display(), self.words.describe())
        } else {
            format!(
                "{} ({} {})",
                self.path.display(),
                self.rows,
                if self.rows == 1 { "row" } else { "rows" }
            )
        }
    }
}

impl App {
    /// `:import PATH ...`: the preview runs as a job (look-ups go to the service).
    pub(crate) fn read_import(&mut self, path: PathBuf, words: ImportWords) -> Vec<Effect> {
        let id = self.new_id();
        self.note(format!(
            "Checking {} (nothing is sent until you confirm)…",
            path.display()
        ));
        let job = ImportJob {
            path,
            words,
            rows: 0,
            finder: self.forms.config.dupes.clone(),
            write_journal: self.safety.config.journal.clone(),
            profile: self.workspace.profile.clone(),
            flags: self.profile_safety(),
        };
        vec![Effect::StartJob {
            id,
            job: JobSpec::ImportPreview(Box::new(job)),
        }]
    }

    /// The preview read: its dialog (Enter runs it when nothing is bad).
    pub fn import_previewed(&mut self, preview: Arc<ImportPreview>) -> Vec<Effect> {
        self.status.note = None;
        let view = ImportView::preview(&preview);
        self.overlays.push(Overlay::Import(Box::new(view)));
        self.dirty = true;
        Vec::new()
    }

    /// A finished import job: the preview opens; a run's report is kept for `:jobs`.
    pub(crate) fn import_job_done(&mut self, id: RequestId, out: &JobOutput) -> Vec<Effect> {
        match out {
            JobOutput::ImportPreview(p) => self.import_previewed(p.clone()),
            JobOutput::Import(report) => {
                if let Some(j) = self.jobs.get_mut(id) {
                    j.report = Some(JobReport::Import(report.clone()));
                }
                let key = self.keymap.first_key(crate::app::keymap::Action::Jobs);
                self.note(format!("Import: {} · {key} for each row", report.summary()));
                if report.counts.created > 0 {
                    // The Contacts tab shows them (its cached pages are from before).
                    self.load(crate::resource::Resource::Contacts, true)
                } else {
                    Vec::new()
                }
            }
            _ => Vec::new(),
        }
    }
}

/// `--dupes`'s words, for the preview's sentence.
pub fn dupes_words(d: DupesPolicy) -> &'static str {
    match d {
        DupesPolicy::Warn => "near duplicates are created and named",
        DupesPolicy::Skip => "near duplicates are skipped",
        DupesPolicy::Create => "near duplicates are not looked for",
    }
}

/// `--existing`'s words.
pub fn existing_words(e: ExistingBy) -> &'static str {
    match e {
        ExistingBy::Auto => "auto",
        ExistingBy::Search => "search",
        ExistingBy::Scan => "scan",
    }
}
