//! The plan dialog: `:plan PATH`'s preview (the bad rows named with their line, then every
//! row's old and new times in the configured zone and what a run does with it), run with
//! Enter when nothing is bad; and, opened from `:jobs`, a finished run's report per row.

use std::sync::Arc;

use crossterm::event::KeyEvent;

use crate::app::dialogs::rows::{self, Tone, column_widths};
use crate::app::dialogs::{Dialog, DialogCx, Outcome};
use crate::app::effects::RequestId;
use crate::app::jobs::JobSpec;
use crate::app::keymap::{Action, Hint};
use crate::app::plan::{PlanJob, PlanLoaded, PlanReport};
use crate::reschedule::plan::preview::{self, PreviewRow};

/// What the dialog shows.
#[derive(Debug)]
pub enum PlanMode {
    /// Before a run: what Enter starts (`None`: nothing can run, `why` says why).
    Preview { job: Option<PlanJob> },
    /// A run's report (the job's id).
    Report { job: RequestId },
}

#[derive(Debug)]
pub struct PlanView {
    pub mode: PlanMode,
    /// `Plan monday.csv shift=+1d`.
    pub title: String,
    /// The bad rows, `line 3: start: ...`, first.
    pub bad: Vec<String>,
    pub header: &'static [&'static str],
    pub rows: Vec<Vec<String>>,
    /// Each row's tone: a report's failed rows stand out, skipped rows are dimmed.
    pub tones: Vec<Tone>,
    /// Each column's widest cell (worked out once, with the rows).
    pub widths: Vec<usize>,
    /// `20 rows: 17 to send, 2 done by an earlier run (times in Europe/Berlin)`.
    pub sentence: String,
    /// Why Enter does nothing (shown in place of the sentence's advice).
    pub why: Option<String>,
    /// The first line shown.
    pub scroll: usize,
}

/// The preview's columns (the CLI's, old end left to the note's width).
pub const PREVIEW_COLUMNS: &[&str] = &["line", "id", "old start", "new start", "new end", "note"];
/// The report's columns.
pub const REPORT_COLUMNS: &[&str] = &["line", "id", "outcome", "detail"];

impl PlanView {
    /// The preview of a plan read; `base` is the job Enter starts (its rows filled in here).
    pub fn preview(loaded: PlanLoaded, base: PlanJob) -> PlanView {
        let bad: Vec<String> = loaded
            .bad
            .iter()
            .map(|b| format!("line {}: {}", b.line, b.message))
            .collect();
        let to_send = loaded.preview.iter().filter(|r| r.skip.is_none()).count();
        let why = if !bad.is_empty() {
            let n = bad.len();
            Some(format!(
                "{n} bad {}: nothing can run while one is bad (fix the file, then :plan again)",
                if n == 1 { "row" } else { "rows" }
            ))
        } else if to_send == 0 {
            Some("nothing to send: every row is done or in doubt".into())
        } else {
            None
        };
        let sentence = if loaded.preview.is_empty() {
            format!("no good rows (times in {})", loaded.zone)
        } else {
            format!(
                "{} (times in {})",
                preview::sentence(&loaded.preview),
                loaded.zone
            )
        };
        let rows: Vec<Vec<String>> = loaded.preview.iter().map(preview_cells).collect();
        let tones = rows
            .iter()
            .map(|r| match r[5].contains("earlier run") {
                true => Tone::Dim,
                false => Tone::Plain,
            })
            .collect();
        let widths = column_widths(PREVIEW_COLUMNS, &rows);
        let job = why.is_none().then(|| PlanJob {
            path: loaded.path.clone(),
            rows: loaded.rows,
            journal: loaded.journal,
            ..base
        });
        PlanView {
            mode: PlanMode::Preview { job },
            title: format!("Plan {}{}", loaded.path.display(), loaded.words.describe()),
            bad,
            header: PREVIEW_COLUMNS,
            rows,
            tones,
            widths,
            sentence,
            why,
            scroll: 0,
        }
    }

    /// A run's report (`running`: it is still under way; this is what it had when it ended).
    pub fn report(report: Arc<PlanReport>, job: RequestId, running: bool) -> PlanView {
        let rows: Vec<Vec<String>> = report
            .rows
            .iter()
            .map(|r| {
                vec![
                    r.line.to_string(),
                    r.id.clone(),
                    r.outcome.name().replace('_', " "),
                    r.detail.clone(),
                ]
            })
            .collect();
        let tones = rows
            .iter()
            .map(|r| match r[2].as_str() {
                "failed" | "in doubt" => Tone::Bad,
                "moved" => Tone::Good,
                _ => Tone::Dim,
            })
            .collect();
        let widths = column_widths(REPORT_COLUMNS, &rows);
        let mut sentence = report.summary();
        if report.rate_limited > 0 {
            sentence.push_str(&format!(
                "; rate-limited {} times (slowed down, nothing failed for it)",
                report.rate_limited
            ));
        }
        PlanView {
            mode: PlanMode::Report { job },
            title: format!(
                "Plan run {}{}",
                report.path.display(),
                if running { " (running)" } else { "" }
            ),
            bad: Vec::new(),
            header: REPORT_COLUMNS,
            rows,
            tones,
            widths,
            sentence,
            why: None,
            scroll: 0,
        }
    }

    /// Whether Enter starts a run.
    pub fn can_run(&self) -> bool {
        matches!(self.mode, PlanMode::Preview { job: Some(_) })
    }

    /// Lines of the body: the bad rows, then the table's rows.
    pub fn len(&self) -> usize {
        self.bad.len() + self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn preview_cells(r: &PreviewRow) -> Vec<String> {
    let old = match &r.old {
        Some((start, end)) if end.is_empty() => start.clone(),
        Some((start, end)) => format!("{start}–{end}"),
        None => "(new to crmdash)".into(),
    };
    vec![
        r.line.to_string(),
        r.id.clone(),
        old,
        r.start.clone(),
        r.end.clone(),
        r.note.clone(),
    ]
}

impl Dialog for PlanView {
    fn hints(&self) -> &'static [Hint] {
        const RUN: &[Hint] = &[
            Hint::new(&[Action::Confirm], "run the plan", 0),
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
            PlanMode::Preview { job } => {
                let job = job.take().map(|j| JobSpec::Plan(Box::new(j)));
                rows::start(job, cx.request_id())
            }
            PlanMode::Report { .. } => Outcome::Close,
        })
    }
}
