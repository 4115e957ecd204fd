//! User actions in the dashboard: their keys on the main screen, `:run NAME`, and the records
//! they apply to. The plan (argv per run) is `crate::user_actions`'; running is the runtime's.

use crossterm::event::KeyEvent;

use crate::app::dialogs::Overlay;
use crate::app::dialogs::confirm_action::ConfirmAction;
use crate::app::{App, Effect};
use crate::user_actions::{self, Target, UserAction};

impl App {
    /// The config's actions (checked against the key map by `user_actions::from_settings`).
    pub fn set_user_actions(&mut self, actions: Vec<UserAction>) {
        self.user_actions = actions;
    }

    /// The record an action applies to without a multi-selection: the row under the cursor.
    /// (With one, the marked records are read by a job and the action runs on them:
    /// [`App::run_action_on_records`].)
    pub(crate) fn action_targets(&self) -> Vec<Target> {
        self.tab()
            .selected_record()
            .map(|r| self.action_target(r))
            .into_iter()
            .collect()
    }

    fn action_target(&self, r: &crate::app::table::record::Record) -> Target {
        let kind = self.active;
        let web = self.workspace.web_url();
        Target {
            kind,
            id: r.id.clone(),
            record: serde_json::from_str(&r.raw).unwrap_or(serde_json::Value::Null),
            web_url: web.and_then(|t| super::web::record_url(t, kind, &r.id).ok()),
        }
    }

    /// The marked records have been read: run the action at `index` on them.
    pub(crate) fn run_action_on_records(
        &mut self,
        index: usize,
        records: &[crate::app::table::record::Record],
        missing: usize,
    ) -> Vec<Effect> {
        let Some(action) = self.user_actions.get(index).cloned() else {
            return Vec::new();
        };
        if missing > 0 {
            self.note(format!(
                "{}: {missing} selected no longer found, left out",
                action.name
            ));
        }
        let targets: Vec<Target> = records.iter().map(|r| self.action_target(r)).collect();
        self.run_action_with(action, targets)
    }

    /// A user action's key on the main screen (of an action for the active tab).
    pub(crate) fn user_action_key(&mut self, key: &KeyEvent) -> Option<Vec<Effect>> {
        let name = self
            .user_actions
            .iter()
            .find(|a| a.on.contains(&self.active) && a.key.is_some_and(|k| k.matches(key)))?
            .name
            .clone();
        Some(self.run_user_action(&name))
    }

    /// `:run NAME` and the action keys: plans the runs over the records the action applies
    /// to; a missing field or a wrong tab is said, and nothing runs.
    pub(crate) fn run_user_action(&mut self, name: &str) -> Vec<Effect> {
        self.dirty = true;
        let Some(action) = self.user_actions.iter().find(|a| a.name == name).cloned() else {
            let names: Vec<&str> = self.user_actions.iter().map(|a| a.name.as_str()).collect();
            self.show_error(if names.is_empty() {
                format!("No action '{name}': none in the config file ([actions.NAME])")
            } else {
                format!("No action '{name}': use {}", names.join(", "))
            });
            return Vec::new();
        };
        if !self.selection(self.active).is_empty()
            && let Some(i) = self.user_actions.iter().position(|a| a.name == action.name)
        {
            return self.selected_records(self.active, crate::app::jobs::SelectionUse::Action(i));
        }
        let targets = self.action_targets();
        self.run_action_with(action, targets)
    }

    fn run_action_with(&mut self, action: UserAction, targets: Vec<Target>) -> Vec<Effect> {
        let name = action.name.clone();
        if targets.is_empty() {
            self.note(format!("{name}: no {} selected", self.active.singular()));
            return Vec::new();
        }
        let profile = self.workspace.profile.clone();
        let argvs = match user_actions::plan(&action, &targets, &profile) {
            Ok(a) => a,
            Err(e) => {
                self.show_error(e);
                return Vec::new();
            }
        };
        let run = Effect::RunUserAction {
            name: action.name.clone(),
            argvs: argvs.clone(),
            mode: action.mode,
        };
        if action.confirm {
            let lines = argvs
                .iter()
                .map(|a| shell_words::join(a.iter().map(String::as_str)))
                .collect();
            self.overlays.push(Overlay::ConfirmAction(ConfirmAction {
                name: action.name,
                lines,
                run,
            }));
            return Vec::new();
        }
        vec![run]
    }

    /// Help rows for the user actions: keys (or `:run NAME`), name, what it does.
    pub fn user_action_help(&self) -> Vec<(String, String, String)> {
        self.user_actions
            .iter()
            .map(|a| {
                let key = a
                    .key
                    .map(|k| k.to_string())
                    .unwrap_or_else(|| format!(":run {}", a.name));
                let on: Vec<&str> = a.on.iter().map(|r| r.noun()).collect();
                (
                    key,
                    format!("actions.{}", a.name),
                    format!("{} ({})", a.description, on.join(", ")),
                )
            })
            .collect()
    }
}
