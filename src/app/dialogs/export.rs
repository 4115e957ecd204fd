//! The `e` dialog: asks where to write (a timestamped default in the current directory), then
//! runs the export of the view it opened on and shows its progress; `cancel` stops it.

use std::path::PathBuf;

use crossterm::event::KeyEvent;

use crate::app::dialogs::{Dialog, DialogCx, Outcome};
use crate::app::effects::{Effect, ExportFormat, RequestId};
use crate::app::keymap::{Action, Hint};
use crate::app::message::{ExportEvent, Message};
use crate::app::resources::TabKind;
use crate::app::table::spec::QuerySpec;
use crate::app::widgets::text_input::{InputOutcome, TextInput};

#[derive(Debug, Clone, PartialEq)]
pub enum ExportStage {
    Asking,
    Running {
        id: RequestId,
        records: usize,
        page: u32,
        last_page: Option<u32>,
    },
    Finished(String),
    Failed(String),
}

pub struct ExportDialog {
    pub kind: TabKind,
    /// The view to export, from its first page (taken when the dialog opens).
    pub spec: QuerySpec,
    pub path: TextInput,
    pub format: ExportFormat,
    pub stage: ExportStage,
    /// What the export covers, e.g. "status=won, sorted by value desc".
    pub scope: String,
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
        }
    }

    /// Starts writing to the typed path: the effect that runs the export.
    fn start(&mut self, cx: &mut DialogCx) -> Outcome {
        let path = self.path.value().trim().to_string();
        if path.is_empty() {
            return Outcome::Handled;
        }
        let id = cx.request_id();
        self.stage = ExportStage::Running {
            id,
            records: 0,
            page: 0,
            last_page: None,
        };
        Outcome::Effects(vec![Effect::Export {
            id,
            spec: self.spec.clone(),
            format: ExportFormat::from_path_or(&self.path, self.format),
            path: PathBuf::from(path),
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
    kind: TabKind,
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
        match self.stage {
            ExportStage::Asking => ASKING,
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
                        _ => Outcome::Handled,
                    },
                }
            }
            ExportStage::Running { id, .. } => match keys.pick(key, &[Action::Cancel]) {
                Some(_) => Outcome::Effects(vec![Effect::CancelExport(*id)]),
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
                self.stage = ExportStage::Finished(format!(
                    "Wrote {records} {} to {}",
                    self.kind.noun(),
                    path.display()
                ));
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
        self.stage == ExportStage::Asking
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
