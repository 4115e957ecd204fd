//! The import dialog: `:import PATH`'s preview (the column notes, the bad rows named with
//! their line, then every row's fate and what it sends), run with Enter when nothing is
//! bad; and, opened from `:jobs`, a finished run's report per row.

use crossterm::event::KeyEvent;

pub use crate::app::dialogs::rows::Tone;
use crate::app::dialogs::rows::{self, column_widths};
use crate::app::dialogs::{Dialog, DialogCx, Outcome};
use crate::app::effects::RequestId;
use crate::app::import::{
    ImportJob, ImportPreview, ImportReport, dupes_words, preview_words, report_words,
};
use crate::app::jobs::JobSpec;
use crate::app::keymap::{Action, Hint};
use crate::cli::import::Outcome as RowOutcome;

/// What the dialog shows.
#[derive(Debug)]
pub enum ImportMode {
    /// Before a run: what Enter starts (`None`: nothing can run, `why` says why).
    Preview { job: Option<Box<ImportJob>> },
    /// A run's report (the job's id).
    Report { job: RequestId },
}

#[derive(Debug)]
pub struct ImportView {
    pub mode: ImportMode,
    /// `Import people.csv dupes=skip`.
    pub title: String,
    /// Said of the columns before anything is sent (`'Mobile' → phone`).
    pub notes: Vec<String>,
    /// The bad rows, `line 3: email: ...`.
    pub bad: Vec<String>,
    pub header: &'static [&'static str],
    pub rows: Vec<Vec<String>>,
    pub tones: Vec<Tone>,
    /// Each column's widest cell (worked out once, with the rows).
    pub widths: Vec<usize>,
    /// `12 rows: 9 would be created, 3 would be skipped (…)`.
    pub sentence: String,
    /// Why Enter does nothing (shown in place of the sentence).
    pub why: Option<String>,
    /// The first line shown.
    pub scroll: usize,
}

/// The preview's columns.
pub const PREVIEW_COLUMNS: &[&str] = &["line", "will", "email", "name", "phone", "note"];
/// The report's columns.
pub const REPORT_COLUMNS: &[&str] = &["line", "outcome", "id", "email", "detail"];

/// `12 rows: 9 to create, 3 to skip (2 already on the service, 1 duplicate in the file)`.
pub fn preview_sentence(p: &ImportPreview) -> String {
    if let Some(bad) = &p.bad_summary {
        return bad.clone();
    }
    let s = p.counts.sentence(true);
    let s = s.trim_end_matches("; nothing sent (--dry-run)");
    let mut s = s
        .replace(" would be created", " to create")
        .replace(" would be skipped", " to skip")
        .replace("(listed above)", "(named below)");
    if p.counts.failed > 0 {
        s.push_str(&format!(
            ", {} not looked up (tried again by the run)",
            p.counts.failed
        ));
    }
    s
}

impl ImportView {
    /// The preview of an import; Enter starts its run when nothing is bad and a row is to
    /// be sent.
    pub fn preview(p: &ImportPreview) -> ImportView {
        let bad = p.bad.clone();
        let why = if !bad.is_empty() || p.bad_summary.is_some() {
            Some(format!(
                "{}: nothing can run while one is bad (fix the file, then :import again)",
                p.bad_summary.as_deref().unwrap_or("bad rows")
            ))
        } else if p.to_send() == 0 {
            Some(format!(
                "nothing to send: every one of the {} is skipped",
                crate::cli::import::report::plural(p.counts.rows, "row", "rows")
            ))
        } else {
            None
        };
        let mut sentence = preview_sentence(p);
        sentence.push_str(&format!("; {}", dupes_words(p.job.words.options.dupes)));
        let rows: Vec<Vec<String>> = p
            .rows
            .iter()
            .map(|r| {
                vec![
                    r.line.to_string(),
                    preview_words(r.outcome).to_string(),
                    r.email.clone(),
                    r.name.clone(),
                    r.phone.clone(),
                    r.note.clone(),
                ]
            })
            .collect();
        let tones = p
            .rows
            .iter()
            .map(|r| match r.outcome {
                RowOutcome::WouldCreate if r.near => Tone::Warn,
                RowOutcome::WouldCreate | RowOutcome::Created => Tone::Plain,
                RowOutcome::Failed => Tone::Bad,
                _ => Tone::Dim,
            })
            .collect();
        let job = why.is_none().then(|| ImportJob {
            rows: p.counts.rows,
            ..p.job.clone()
        });
        ImportView {
            mode: ImportMode::Preview {
                job: job.map(Box::new),
            },
            title: format!("Import {}{}", p.job.path.display(), p.job.words.describe()),
            notes: p.notes.clone(),
            bad,
            header: PREVIEW_COLUMNS,
            widths: column_widths(PREVIEW_COLUMNS, &rows),
            rows,
            tones,
            sentence,
            why,
            scroll: 0,
        }
    }

    /// A run's report.
    pub fn report(report: &ImportReport, job: RequestId) -> ImportView {
        let rows: Vec<Vec<String>> = report
            .rows
            .iter()
            .map(|r| {
                vec![
                    r.line.to_string(),
                    report_words(r.outcome).to_string(),
                    r.id.clone().unwrap_or_default(),
                    r.email.clone().unwrap_or_default(),
                    r.detail.clone(),
                ]
            })
            .collect();
        let tones = report
            .rows
            .iter()
            .map(|r| match r.outcome {
                RowOutcome::Created => Tone::Good,
                RowOutcome::Failed => Tone::Bad,
                _ => Tone::Dim,
            })
            .collect();
        let mut sentence = report.summary();
        if report.rate_limited > 0 {
            sentence.push_str(&format!(
                "; rate-limited {} times (slowed down, nothing failed for it)",
                report.rate_limited
            ));
        }
        ImportView {
            mode: ImportMode::Report { job },
            title: format!("Import run {}", report.path.display()),
            notes: Vec::new(),
            bad: Vec::new(),
            header: REPORT_COLUMNS,
            widths: column_widths(REPORT_COLUMNS, &rows),
            rows,
            tones,
            sentence,
            why: None,
            scroll: 0,
        }
    }

    /// Whether Enter starts a run.
    pub fn can_run(&self) -> bool {
        matches!(self.mode, ImportMode::Preview { job: Some(_) })
    }

    /// Lines of the body (under the notes and the header): the bad rows, then the table's
    /// rows.
    pub fn len(&self) -> usize {
        self.bad.len() + self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Dialog for ImportView {
    fn hints(&self) -> &'static [Hint] {
        const RUN: &[Hint] = &[
            Hint::new(&[Action::Confirm], "import", 0),
            Hint::new(&[Action::Down], "scroll", 1),
            Hint::new(&[Action::Cancel], "close", 0),
        ];
        if self.can_run() {
            RUN
        } else {
            rows::CLOSE_HINTS
        }
    }

    fn on_key(&mut self, key: &KeyEvent, cx: &mut DialogCx) -> Outcome {
        let len = self.len();
        let mode = &mut self.mode;
        rows::on_key(key, cx, &mut self.scroll, len, |cx| match mode {
            ImportMode::Preview { job } => {
                let job = job.take().map(JobSpec::Import);
                rows::start(job, cx.request_id())
            }
            ImportMode::Report { .. } => Outcome::Close,
        })
    }
}
