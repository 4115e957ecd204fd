//! The `e` dialog: asks where to write (a timestamped default in the current directory, the
//! folder shown under the name), asks again before replacing a file that exists (overwrite,
//! a free name such as `contacts-2.csv`, or back to the name), then runs the export of the
//! view it opened on and shows its progress; `cancel` stops it. `~` and `~/` are expanded and
//! every path is made absolute before anything is written.

use std::path::{Component, Path, PathBuf};

use crossterm::event::KeyEvent;

use crate::app::dialogs::{Dialog, DialogCx, Outcome};
use crate::app::effects::{Effect, ExportFormat, RequestId};
use crate::app::jobs::{ExportTo, JobEvent, JobOutput, JobSpec};
use crate::app::keymap::{Action, Hint};
use crate::app::message::{ExportEvent, Message};
use crate::app::table::spec::QuerySpec;
use crate::app::widgets::text_input::{InputOutcome, TextInput};
use crate::resource::Resource;

#[derive(Debug, Clone, PartialEq)]
pub enum ExportStage {
    Asking,
    Running {
        id: RequestId,
        records: usize,
        page: u32,
        last_page: Option<u32>,
    },
    /// `path` exists: overwrite it, write `free` instead, or go back to the name.
    Exists {
        path: PathBuf,
        free: PathBuf,
    },
    Finished(String),
    Failed(String),
}

/// Where relative names and `~` lead: the working directory and the home directory, read
/// when the dialog opens (tests give their own).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Places {
    pub cwd: PathBuf,
    pub home: Option<PathBuf>,
}

impl Places {
    /// The process's working directory and the user's home.
    pub fn current() -> Places {
        Places {
            cwd: std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")),
            home: directories::BaseDirs::new().map(|d| d.home_dir().to_path_buf()),
        }
    }

    /// The absolute path a typed name means: `~` and `~/…` from the home directory, a
    /// relative name from the working directory, `.` components dropped. A name ending in
    /// `/` is a folder: `file_name` is written in it. `Err` says why the name cannot be used.
    pub fn resolve(&self, typed: &str, file_name: &str) -> Result<PathBuf, String> {
        let typed = typed.trim();
        if typed.is_empty() {
            return Err("Type a file name".into());
        }
        let home = || {
            self.home
                .clone()
                .ok_or_else(|| "No home directory is known: type a full path".to_string())
        };
        let mut path = if typed == "~" {
            home()?
        } else if let Some(rest) = typed.strip_prefix("~/") {
            home()?.join(rest)
        } else if typed.starts_with('~') {
            return Err(format!(
                "Only ~ and ~/ are expanded: type a full path instead of {typed}"
            ));
        } else {
            self.cwd.join(typed)
        };
        if typed == "~" || typed.ends_with('/') {
            path.push(file_name);
        }
        Ok(path
            .components()
            .filter(|c| !matches!(c, Component::CurDir))
            .collect())
    }

    /// The folder a typed name writes into, for the line under the field (no file system
    /// access: drawing reads only the state).
    pub fn folder_of(&self, typed: &str) -> Option<PathBuf> {
        let path = self.resolve(typed, "x").ok()?;
        path.parent().map(Path::to_path_buf)
    }
}

/// The first of `name-2.ext`, `name-3.ext`… beside `path` for which `exists` says no.
pub fn free_name(path: &Path, exists: impl Fn(&Path) -> bool) -> PathBuf {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let ext = path
        .extension()
        .map(|e| format!(".{}", e.to_string_lossy()))
        .unwrap_or_default();
    (2u32..)
        .map(|n| path.with_file_name(format!("{stem}-{n}{ext}")))
        .find(|p| !exists(p))
        .expect("some number is free")
}

pub struct ExportDialog {
    pub kind: Resource,
    /// The view to export, from its first page (taken when the dialog opens).
    pub spec: QuerySpec,
    pub path: TextInput,
    pub format: ExportFormat,
    pub stage: ExportStage,
    /// What the export covers, e.g. "status=won, sorted by value desc".
    pub scope: String,
    /// Where relative names and `~` lead.
    pub places: Places,
    /// Why the typed name cannot be used (shown under the field until the next edit).
    pub error: Option<String>,
    /// The dialog's time stamp (`20261122-143000`), for a name typed as a folder.
    now: String,
    /// The file the running export was asked to write (to tell when it wrote another).
    target: Option<PathBuf>,
    /// Only these records (the tab's marks): written by a job of the runtime's runner.
    pub only: Option<std::sync::Arc<crate::app::selection::Selection>>,
    /// Exports these near duplicate clusters (`:dupes`) instead of the view.
    pub dupes: Option<std::sync::Arc<crate::insights::dupes::mirrored::DupesReport>>,
}

impl ExportDialog {
    /// The dialog for the view `spec`; `scope` says it in words.
    pub fn new(spec: QuerySpec, scope: String, now: chrono::DateTime<chrono::Local>) -> Self {
        let format = ExportFormat::Csv;
        let kind = spec.kind;
        // The name is a suggestion, selected: typing a name replaces it.
        let mut path = TextInput::suggested(default_name(kind, format, now));
        path.focus();
        ExportDialog {
            kind,
            spec: spec.at_page(1),
            path,
            format,
            stage: ExportStage::Asking,
            scope,
            places: Places::current(),
            target: None,
            only: None,
            dupes: None,
            error: None,
            now: now.format("%Y%m%d-%H%M%S").to_string(),
        }
    }

    /// Exports only these records (the marked ones).
    pub fn only(mut self, marked: crate::app::selection::Selection) -> Self {
        self.only = Some(std::sync::Arc::new(marked));
        self
    }

    /// The dialog for the clusters of `:dupes` (the same columns and shapes as `contacts
    /// dupes --format csv|json`).
    pub fn of_dupes(
        mut self,
        report: std::sync::Arc<crate::insights::dupes::mirrored::DupesReport>,
    ) -> Self {
        self.dupes = Some(report);
        let name = format!("{}.{}", self.stem(), self.format.extension());
        self.path = TextInput::suggested(name);
        self.path.focus();
        self
    }

    /// What is exported, in words: `contacts`, `near duplicate contacts`.
    pub fn noun(&self) -> &'static str {
        if self.dupes.is_some() {
            "near duplicate contacts"
        } else {
            self.kind.noun()
        }
    }

    /// A file name's start: `contacts-20261122-143000`, `contacts-dupes-20261122-143000`.
    fn stem(&self) -> String {
        let what = if self.dupes.is_some() { "-dupes" } else { "" };
        format!("{}{what}-{}", self.kind.noun(), self.now)
    }

    /// The same dialog resolving names from these places (tests).
    pub fn in_places(mut self, places: Places) -> Self {
        self.places = places;
        self
    }

    /// The format the typed name's extension says, else the one chosen.
    fn chosen_format(&self) -> ExportFormat {
        ExportFormat::from_path_or(&self.path, self.format)
    }

    /// The file name used when the typed name is a folder (`~/`, `exports/`).
    fn file_name_for_folder(&self) -> String {
        format!("{}.{}", self.stem(), self.chosen_format().extension())
    }

    /// The typed name, resolved: an existing file is asked about before anything is written
    /// (the check is one `stat`; the final rename refuses to replace a file that appears
    /// meanwhile, see `runtime::export`).
    fn start(&mut self, cx: &mut DialogCx) -> Outcome {
        let mut path = match self
            .places
            .resolve(self.path.value(), &self.file_name_for_folder())
        {
            Ok(p) => p,
            Err(e) => {
                self.error = Some(e);
                return Outcome::Handled;
            }
        };
        if path.is_dir() {
            path.push(self.file_name_for_folder());
        }
        if let Some(dir) = path.parent().filter(|d| !d.is_dir()) {
            self.error = Some(format!("There is no folder {}", dir.display()));
            return Outcome::Handled;
        }
        if path.exists() {
            let free = free_name(&path, Path::exists);
            self.stage = ExportStage::Exists { path, free };
            return Outcome::Handled;
        }
        self.run(path, false, cx)
    }

    /// The effect that writes `path` (replacing it only when `overwrite`).
    fn run(&mut self, path: PathBuf, overwrite: bool, cx: &mut DialogCx) -> Outcome {
        let id = cx.request_id();
        self.error = None;
        self.target = Some(path.clone());
        self.stage = ExportStage::Running {
            id,
            records: 0,
            page: 0,
            last_page: None,
        };
        if let Some(ids) = &self.only {
            return Outcome::Effects(vec![Effect::StartJob {
                id,
                job: JobSpec::SelectionRecords {
                    spec: self.spec.clone(),
                    ids: ids.clone(),
                    export: Some(ExportTo {
                        path,
                        format: self.chosen_format(),
                        overwrite,
                    }),
                },
            }]);
        }
        let format = self.chosen_format();
        Outcome::Effects(vec![match &self.dupes {
            Some(report) => Effect::ExportDupes {
                id,
                report: report.clone(),
                format,
                path,
                overwrite,
            },
            None => Effect::StartJob {
                id,
                job: JobSpec::Export {
                    spec: self.spec.clone(),
                    to: ExportTo {
                        path,
                        format,
                        overwrite,
                    },
                },
            },
        }])
    }

    /// Preselects a format (`:export json`), the suggested file name following it.
    pub fn set_format(&mut self, format: ExportFormat) {
        if self.format != format {
            self.switch_format();
        }
    }

    fn switch_format(&mut self) {
        self.format = match self.format {
            ExportFormat::Csv => ExportFormat::Json,
            ExportFormat::Json => ExportFormat::Csv,
        };
        let p = self.path.value().to_string();
        if let Some(dot) = p.rfind('.')
            && ["csv", "json"].contains(&p[dot + 1..].to_ascii_lowercase().as_str())
        {
            self.path
                .set(format!("{}.{}", &p[..dot], self.format.extension()));
        }
    }
}

/// `deals-20261122-143000.csv`.
pub fn default_name(
    kind: Resource,
    format: ExportFormat,
    now: chrono::DateTime<chrono::Local>,
) -> String {
    format!(
        "{}-{}.{}",
        kind.noun(),
        now.format("%Y%m%d-%H%M%S"),
        format.extension()
    )
}

impl Dialog for ExportDialog {
    fn hints(&self) -> &'static [Hint] {
        const ASKING: &[Hint] = &[
            Hint::new(&[Action::Confirm], "export", 0),
            Hint::new(&[Action::SwitchFormat], "CSV/JSON", 0),
            Hint::new(&[Action::Cancel], "cancel", 0),
        ];
        const RUNNING: &[Hint] = &[Hint::new(&[Action::Cancel], "stop", 0)];
        const DONE: &[Hint] = &[Hint::new(&[Action::Cancel], "close", 0)];
        const EXISTS: &[Hint] = &[
            Hint::new(&[Action::Yes], "overwrite", 0),
            Hint::new(&[Action::No], "new name", 0),
            Hint::new(&[Action::Cancel], "change the name", 0),
        ];
        match self.stage {
            ExportStage::Asking => ASKING,
            ExportStage::Exists { .. } => EXISTS,
            ExportStage::Running { .. } => RUNNING,
            _ => DONE,
        }
    }

    fn on_key(&mut self, key: &KeyEvent, cx: &mut DialogCx) -> Outcome {
        let keys = cx.keymap;
        match &self.stage {
            ExportStage::Asking => {
                let asked = [
                    Action::Cancel,
                    Action::SwitchFormat,
                    Action::Confirm,
                    Action::Submit,
                ];
                match keys.pick(key, &asked) {
                    Some(Action::Cancel) => Outcome::Close,
                    Some(Action::SwitchFormat) => {
                        self.switch_format();
                        Outcome::Handled
                    }
                    Some(_) => self.start(cx),
                    None => match self.path.handle_key(key) {
                        InputOutcome::Ignored => Outcome::Ignored,
                        _ => {
                            self.error = None;
                            Outcome::Handled
                        }
                    },
                }
            }
            ExportStage::Exists { path, free } => {
                let (path, free) = (path.clone(), free.clone());
                let asked = [Action::Yes, Action::No, Action::Confirm, Action::Cancel];
                match keys.pick(key, &asked) {
                    Some(Action::Yes) => self.run(path, true, cx),
                    // The safe answer is the default: a new name, nothing replaced.
                    Some(Action::No | Action::Confirm) => {
                        self.path.set(free.display().to_string());
                        self.run(free, false, cx)
                    }
                    Some(_) => {
                        self.stage = ExportStage::Asking;
                        Outcome::Handled
                    }
                    // Not an answer: the app's own keys (Ctrl-C, suspend) still work; `q`
                    // does not quit while a question is asked.
                    None => Outcome::Ignored,
                }
            }
            ExportStage::Running { id, .. } => match keys.pick(key, &[Action::Cancel]) {
                // The same stop as `x` in `:jobs` (the runtime finds where it runs).
                Some(_) => Outcome::Effects(vec![Effect::CancelJob(*id)]),
                None => Outcome::Handled,
            },
            ExportStage::Finished(_) | ExportStage::Failed(_) => {
                match keys.pick(key, &[Action::Cancel, Action::Confirm]) {
                    Some(_) => Outcome::Close,
                    None => Outcome::Handled,
                }
            }
        }
    }

    fn on_paste(&mut self, text: &str) -> Outcome {
        if self.stage == ExportStage::Asking {
            self.path.insert_str(text);
            return Outcome::Handled;
        }
        Outcome::Ignored
    }

    fn on_message(&mut self, msg: &Message, _cx: &mut DialogCx) -> Outcome {
        if let Message::Job { id, event } = msg {
            return self.on_job(*id, event);
        }
        // The clusters of `:dupes` are written at once (`Effect::ExportDupes`), and say so
        // with `Message::Export`.
        let Message::Export { id, event } = msg else {
            return Outcome::Ignored;
        };
        let ExportStage::Running {
            id: running,
            records,
            page,
            last_page,
        } = &mut self.stage
        else {
            return Outcome::Ignored;
        };
        if id != running {
            return Outcome::Ignored;
        }
        match event {
            ExportEvent::Progress {
                records: r,
                page: p,
                last_page: l,
            } => {
                *records = *r;
                *page = *p;
                *last_page = *l;
            }
            ExportEvent::Done { records, path } => {
                let mut msg = format!("Wrote {records} {} to {}", self.noun(), path.display());
                if let Some(asked) = self.target.as_ref().filter(|t| *t != path) {
                    msg.push_str(&format!(
                        " ({} appeared while exporting and was left alone)",
                        asked.display()
                    ));
                }
                self.stage = ExportStage::Finished(msg);
            }
            ExportEvent::Failed(e) => self.stage = ExportStage::Failed(e.clone()),
            ExportEvent::Cancelled => {
                self.stage = ExportStage::Failed("Export cancelled; no file was kept".into())
            }
        }
        Outcome::Handled
    }

    fn guards_quit(&self) -> bool {
        matches!(self.stage, ExportStage::Running { .. })
    }

    fn busy(&self) -> bool {
        matches!(self.stage, ExportStage::Running { .. })
    }

    fn captures_text(&self) -> bool {
        matches!(self.stage, ExportStage::Asking | ExportStage::Exists { .. })
    }
}

impl ExportDialog {
    /// The export's job (the tab's, or the marked records'), as it reports.
    fn on_job(&mut self, id: RequestId, event: &JobEvent) -> Outcome {
        let ExportStage::Running {
            id: running,
            records,
            page,
            last_page,
        } = &mut self.stage
        else {
            return Outcome::Ignored;
        };
        if id != *running {
            return Outcome::Ignored;
        }
        match event {
            // The tab's export counts pages and records; the marked records' counts records.
            JobEvent::Progress {
                done,
                total,
                records: Some(r),
                ..
            } => {
                *records = *r as usize;
                *page = u32::try_from(*done).unwrap_or(u32::MAX);
                *last_page = total.map(|t| u32::try_from(t).unwrap_or(u32::MAX));
            }
            JobEvent::Progress { done, .. } => *records = *done as usize,
            JobEvent::Done(JobOutput::Exported {
                records,
                missing,
                path,
            }) => {
                let selected = if self.only.is_some() { "selected " } else { "" };
                let mut msg = format!(
                    "Wrote {records} {selected}{} to {}",
                    self.kind.noun(),
                    path.display()
                );
                if *missing > 0 {
                    msg.push_str(&format!(
                        " ({missing} selected were not found: gone from the service)"
                    ));
                }
                if let Some(asked) = self.target.as_ref().filter(|t| *t != path) {
                    msg.push_str(&format!(
                        " ({} appeared while exporting and was left alone)",
                        asked.display()
                    ));
                }
                self.stage = ExportStage::Finished(msg);
            }
            JobEvent::Done(_) => return Outcome::Ignored,
            JobEvent::Failed(e) => self.stage = ExportStage::Failed(e.clone()),
            JobEvent::Cancelled => {
                self.stage = ExportStage::Failed("Export cancelled; no file was kept".into())
            }
        }
        Outcome::Handled
    }
}

impl ExportFormat {
    /// The format the path's extension names, else the one chosen.
    fn from_path_or(path: &TextInput, chosen: ExportFormat) -> ExportFormat {
        let p = path.value().trim().to_ascii_lowercase();
        if p.ends_with(".json") {
            ExportFormat::Json
        } else if p.ends_with(".csv") {
            ExportFormat::Csv
        } else {
            chosen
        }
    }
}
