//! What a palette command does to the app: the same state changes the keys make (a tab's
//! query, its page, page size and includes), plus the saved views, profiles and sync.

use super::PaletteDialog;
use super::grammar::{Command, PaletteContext};
use crate::app::dialogs::Overlay;
use crate::app::dialogs::columns_picker::ColumnsPicker;
use crate::app::dialogs::profiles_picker::ProfilesPicker;
use crate::app::dialogs::views_picker::ViewsPicker;
use crate::app::effects::Effect;
use crate::app::keymap::Action;
use crate::app::resources::ColumnId;
use crate::app::table::tab::clamp_per_page;
use crate::app::views::view_of_tab;
use crate::app::{App, Resource as Kind};
use crate::config::views::ViewEdit;
use crate::view_query::{self as views, ViewQuery};

impl App {
    /// `:` opens the prompt, knowing the names it may offer.
    pub(crate) fn open_palette(&mut self) -> Vec<Effect> {
        let cx = PaletteContext {
            active: self.active,
            views: self.workspace.views.keys().cloned().collect(),
            view_errors: self.workspace.view_errors(),
            profiles: self.workspace.profile_names(),
            active_profile: self.workspace.profile.clone(),
            statuses: self
                .tabs
                .iter()
                .map(|t| t.filter_bar.seen_statuses.iter().cloned().collect())
                .collect(),
        };
        let p = PaletteDialog::new(cx, self.workspace.history.clone());
        self.overlays.push(Overlay::Palette(Box::new(p)));
        self.dirty = true;
        // Views written into the file by hand since start come in while the line is typed.
        match &self.workspace.views_path {
            Some(path) => vec![Effect::ReadViews { path: path.clone() }],
            None => Vec::new(),
        }
    }

    /// The views file read again: views added or changed in it by hand are taken in (one
    /// deleted by hand stays until the next start; `:views` deletes for good), except those
    /// changed in this session. A file that cannot be read at all changes nothing. An open
    /// palette completes the new names.
    pub(crate) fn views_read(&mut self, file: crate::config::views::ViewsFile) -> Vec<Effect> {
        if file.views.is_empty() && !file.problems.is_empty() {
            return Vec::new();
        }
        for (name, view) in file.views {
            if !self.workspace.touched.contains(&name) {
                self.workspace.views.insert(name, view);
            }
        }
        let names: Vec<String> = self.workspace.views.keys().cloned().collect();
        let errors = self.workspace.view_errors();
        for o in &mut self.overlays {
            if let Overlay::Palette(p) = o {
                p.cx.views = names.clone();
                p.cx.view_errors = errors.clone();
            }
        }
        Vec::new()
    }

    /// Runs a command the palette accepted; `line` joins the history.
    pub(crate) fn run_command(&mut self, line: &str, command: Command) -> Vec<Effect> {
        super::remember(&mut self.workspace.history, line);
        self.dirty = true;
        match command {
            Command::Query(q) => self.apply_query(&q, false),
            Command::Page(n) => self.go_to_page_number(n),
            Command::Per(n) => {
                let tab = self.tab_mut();
                if tab.per_page == n {
                    return Vec::new();
                }
                let first = (tab.page.saturating_sub(1)) as u64 * tab.per_page as u64;
                tab.per_page = clamp_per_page(n);
                tab.page = (first / n as u64) as u32 + 1;
                self.load(self.active, false)
            }
            Command::Include(list) => {
                if self.tab().includes == list {
                    return Vec::new();
                }
                self.tab_mut().includes = list;
                self.load(self.active, false)
            }
            Command::Export(format) => {
                let fx = self.on_action(Action::Export);
                if let (Some(f), Some(Overlay::Export(d))) = (format, self.overlays.last_mut()) {
                    d.set_format(f);
                }
                fx
            }
            Command::View(name) => self.open_view(&name),
            Command::Save(name) => self.save_view(name),
            Command::Views => {
                let names = self.workspace.views.keys().cloned().collect();
                let picker = ViewsPicker::new(names, self.workspace.view_errors());
                self.overlays.push(Overlay::Views(Box::new(picker)));
                Vec::new()
            }
            Command::Profile(Some(name)) => self.switch_profile(&name),
            Command::Profile(None) => {
                let picker = ProfilesPicker::new(
                    self.workspace.profile_names(),
                    self.workspace.profile.clone(),
                );
                self.overlays.push(Overlay::Profiles(Box::new(picker)));
                Vec::new()
            }
            Command::Columns(None) => {
                let picker = ColumnsPicker::new(&self.tab().resource);
                self.overlays.push(Overlay::Columns(Box::new(picker)));
                Vec::new()
            }
            Command::Columns(Some(titles)) => {
                let ids = self.column_ids(self.active, &titles);
                self.set_columns(self.active, &ids)
            }
            Command::Sync => self.sync_now(),
            Command::Select {
                filters,
                unmark: true,
            } if filters.is_empty() => {
                if !self.clear_marks() {
                    self.note(format!("No {} selected", self.active.noun()));
                }
                Vec::new()
            }
            Command::Select { filters, unmark } => self.mark_matching(filters, unmark),
            Command::Copy(what) => self.copy_command(what),
            Command::Open => self.on_action(Action::OpenWeb),
            Command::Jobs => self.open_jobs(),
            Command::Plan { path, words } => self.read_plan(path, words),
            Command::Import { path, words } => self.read_import(path, words),
            Command::Log => self.open_write_log(),
            Command::Today => self.open_today(),
            Command::Changes => self.open_changes(),
            Command::Dupes => self.open_dupes(),
            Command::Help => self.on_action(Action::Help),
            Command::Requests => self.open_request_log(),
            Command::Run(name) => self.run_user_action(&name),
            Command::Quit => self.request_quit(),
        }
    }

    /// `:page N`: that page of the active tab, if the list has it.
    fn go_to_page_number(&mut self, n: u32) -> Vec<Effect> {
        let noun = self.active.noun();
        let tab = self.tab_mut();
        if !tab.server_pages() {
            self.note(format!(
                "All {noun} are on one page (the service sends no pages)"
            ));
            return Vec::new();
        }
        if n == tab.page {
            return Vec::new();
        }
        if let Some(last) = tab.last_page()
            && n > last
        {
            let pages = if last == 1 { "page" } else { "pages" };
            self.note(format!(
                "Page {n}: the list has only {last} {pages} of {noun}"
            ));
            return Vec::new();
        }
        tab.page = n;
        self.load(self.active, false)
    }

    /// Puts a checked query on its tab and shows it. `replace_filters` (a view) sets every
    /// filter, clearing those it does not name; a palette line changes the filters only
    /// when it names some.
    pub(crate) fn apply_query(&mut self, q: &ViewQuery, replace_filters: bool) -> Vec<Effect> {
        let kind = q.kind;
        let mut fx = Vec::new();
        if self.active != kind {
            self.active = kind;
            self.pipeline_visible = false;
        }
        let parser = self.config.date_parser.clone();
        let wall = self.wall;
        let tab = &mut self.tabs[kind.index()];
        let before = tab.spec();
        if replace_filters || !q.filters.is_empty() {
            for f in &mut tab.filter_bar.fields {
                let text = q
                    .filters
                    .iter()
                    .find(|(k, _)| *k == f.field.key)
                    .map(|(_, v)| v.as_str())
                    .unwrap_or("");
                f.input.set(text);
            }
            tab.debounce_until = None;
            tab.filters = tab.filter_bar.evaluate(&parser, wall);
        }
        if let Some((key, dir)) = q.sort {
            tab.sort_by = key;
            tab.direction = dir;
        }
        if let Some(inc) = &q.includes {
            tab.includes = inc.clone();
        }
        if let Some(p) = q.per_page {
            tab.per_page = clamp_per_page(p);
        }
        let columns = q.columns.as_ref().map(|titles| {
            titles
                .iter()
                .filter_map(|t| tab.resource.all_columns().iter().find(|c| c.title == *t))
                .map(|c| c.id)
                .collect::<Vec<_>>()
        });
        let changed = tab.spec() != before;
        if let Some(p) = q.page {
            tab.page = p;
        } else if changed {
            tab.page = 1;
        }
        let refused = tab
            .filter_bar
            .first_error()
            .map(|i| &tab.filter_bar.fields[i])
            .map(|f| {
                format!(
                    "filter {} not applied: {}",
                    f.field.label,
                    f.error.as_deref().unwrap_or_default()
                )
            });
        let filters_changed = tab.filters != before.filters;
        // A view without `columns` shows the resource's own.
        if replace_filters || columns.is_some() {
            let all: Vec<ColumnId> = tab.resource.all_columns().iter().map(|c| c.id).collect();
            let ids = columns.unwrap_or(all);
            tab.set_columns(&ids);
            // The view's own relations stand; without them the columns' are requested.
            if q.includes.is_none() {
                tab.include_for_columns();
            }
        }
        let loaded = tab.shown.is_some() || tab.pending.is_some();
        if tab.spec() != before || !loaded {
            fx.extend(self.load(kind, false));
        }
        if kind == Kind::Deals && filters_changed {
            self.currency_chip = None;
            fx.extend(self.pipeline_follow_filters());
        }
        if let Some(r) = refused {
            self.show_error(r);
        }
        let rows = self.areas().table_rows();
        self.tab_mut().scroll_into_view(rows);
        self.dirty = true;
        fx
    }

    /// Column titles (as checked by the grammar) to ids.
    fn column_ids(&self, kind: Kind, titles: &[&'static str]) -> Vec<ColumnId> {
        let all = self.tab_of(kind).resource.all_columns();
        titles
            .iter()
            .filter_map(|t| all.iter().find(|c| c.title == *t))
            .map(|c| c.id)
            .collect()
    }

    /// Shows these columns on the tab; a column whose relation is not requested yet adds
    /// it to the includes (and reloads), so it shows something.
    pub(crate) fn set_columns(&mut self, kind: Kind, ids: &[ColumnId]) -> Vec<Effect> {
        let tab = &mut self.tabs[kind.index()];
        tab.set_columns(ids);
        let added = tab.include_for_columns();
        self.dirty = true;
        if added {
            return self.load(kind, false);
        }
        Vec::new()
    }

    /// `:view NAME`: the saved view on its tab, or what is wrong with it.
    pub(crate) fn open_view(&mut self, name: &str) -> Vec<Effect> {
        let Some(view) = self.workspace.views.get(name) else {
            self.show_error(format!("No view '{name}'"));
            return Vec::new();
        };
        match views::resolve_view(name, view) {
            Ok(q) => {
                let fx = self.apply_query(&q, true);
                if self.status.error.is_none() {
                    let t = self.tab();
                    let f = t.filter_summary();
                    let what = if f.is_empty() {
                        String::new()
                    } else {
                        format!("{f}, ")
                    };
                    self.note(format!(
                        "View {name}: {} {what}sorted by {} {}",
                        t.resource.kind.noun(),
                        t.sort_by,
                        t.direction
                    ));
                }
                fx
            }
            Err(e) => {
                self.show_error(e);
                Vec::new()
            }
        }
    }

    /// `:save NAME`: the active tab's query as a view, kept in the views file.
    fn save_view(&mut self, name: String) -> Vec<Effect> {
        let t = self.tab();
        let columns = (!t.resource.default_columns()).then(|| {
            t.resource
                .columns
                .iter()
                .map(|c| views::column_name(c.title))
                .collect()
        });
        let view = view_of_tab(t, columns);
        self.workspace.touched.insert(name.clone());
        let replaced = self
            .workspace
            .views
            .insert(name.clone(), view.clone())
            .is_some();
        let verb = if replaced { "Replaced" } else { "Saved" };
        let Some(path) = self.workspace.views_path.clone() else {
            self.note(format!(
                "{verb} view {name} (for this session: no config dir)"
            ));
            return Vec::new();
        };
        self.note(format!("{verb} view {name} (views.toml)"));
        vec![Effect::EditViews {
            path,
            edit: ViewEdit::Save { name, view },
        }]
    }

    /// A view deleted or renamed in the `:views` picker: here and in the file.
    pub(crate) fn edit_view(&mut self, edit: ViewEdit) -> Vec<Effect> {
        match &edit {
            ViewEdit::Delete { name } => self.workspace.touched.extend([name.clone()]),
            ViewEdit::Rename { from, to } => {
                self.workspace.touched.extend([from.clone(), to.clone()])
            }
            ViewEdit::Save { name, .. } => self.workspace.touched.extend([name.clone()]),
        }
        match &edit {
            ViewEdit::Delete { name } => {
                self.workspace.views.remove(name);
                self.note(format!("Deleted view {name}"));
            }
            ViewEdit::Rename { from, to } => {
                if let Some(v) = self.workspace.views.remove(from) {
                    self.workspace.views.insert(to.clone(), v);
                }
                self.note(format!("Renamed view {from} to {to}"));
            }
            ViewEdit::Save { name, view } => {
                self.workspace.views.insert(name.clone(), view.clone());
            }
        }
        match self.workspace.views_path.clone() {
            Some(path) => vec![Effect::EditViews { path, edit }],
            None => Vec::new(),
        }
    }
}
