//! Keys, mouse and pastes: to the top dialog first, then the filter bar, then the key map.

use crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};

use super::{App, FILTER_DEBOUNCE};
use crate::app::dialogs::detail::DetailView;
use crate::app::dialogs::export::ExportDialog;
use crate::app::dialogs::includes::IncludesPicker;
use crate::app::dialogs::pager::Pager;
use crate::app::dialogs::{DialogCx, Outcome, Overlay};
use crate::app::effects::Effect;
use crate::app::keymap::Action;
use crate::app::layout::{self, modal_inner};
use crate::app::widgets::text_input::InputOutcome;
use crate::resource::Resource;

impl App {
    pub(super) fn on_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        if key.kind == KeyEventKind::Release {
            return Vec::new();
        }
        let ctrl_c =
            key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL);
        if self.too_small() {
            // Only the notice is on screen: no key may act on what cannot be seen, except
            // leaving (as the notice says) and redrawing.
            return match self.keymap.action(&key) {
                _ if ctrl_c => self.request_quit(),
                Some(Action::Quit) => self.request_quit(),
                Some(Action::Redraw) => vec![Effect::Redraw],
                _ => Vec::new(),
            };
        }
        if let Some(top) = self.overlays.len().checked_sub(1) {
            let mut cx = DialogCx::new(
                &self.keymap,
                &self.config.zone,
                self.wall,
                &mut self.next_id,
                &self.requests,
            );
            let out = self.overlays[top].dialog_mut().on_key(&key, &mut cx);
            if !matches!(out, Outcome::Ignored) {
                return self.apply_outcome(top, out);
            }
            // The dialog did not want the key: only the keys that work anywhere remain
            // (Ctrl-C, suspend, and quit from a read-only overlay). Nothing reaches the
            // screen underneath while a dialog is open.
            if ctrl_c {
                return self.request_quit();
            }
            match self.keymap.action(&key) {
                Some(Action::Suspend) => return vec![Effect::Suspend],
                Some(Action::Redraw) => return vec![Effect::Redraw],
                _ => {}
            }
            // `q` goes back one level from a read-only overlay (it quits only from the main
            // view); dialogs with text fields keep `q` for typing.
            if !self.overlays[top].dialog().captures_text()
                && self.keymap.action(&key) == Some(Action::Quit)
            {
                return self.apply_outcome(top, Outcome::Close);
            }
            return Vec::new();
        }
        if ctrl_c {
            return self.request_quit();
        }
        if self.tab().filter_open {
            return self.on_filter_key(key);
        }
        if let Some(fx) = self.user_action_key(&key) {
            return fx;
        }
        let action = self.keymap.action(&key);
        if action != Some(Action::Back) {
            // Only a second Esc in a row clears a large selection.
            self.tab_mut().selection.clear_asked = false;
        }
        match action {
            Some(a) => match self
                .on_pipeline_action(a)
                .or_else(|| self.on_timeline_action(a))
                .or_else(|| self.on_select_action(a))
            {
                Some(fx) => fx,
                None => self.on_action(a),
            },
            None => Vec::new(),
        }
    }

    /// The smallest screen the dashboard draws in (the same for the table, the pipeline and
    /// the timeline: their charts drop parts first).
    pub fn min_size(&self) -> (u16, u16) {
        (layout::MIN_WIDTH, layout::MIN_HEIGHT)
    }

    /// The terminal is below `min_size`: the screen shows only a notice.
    pub fn too_small(&self) -> bool {
        let (w, h) = self.min_size();
        self.size.0 < w || self.size.1 < h
    }

    pub(crate) fn on_action(&mut self, action: Action) -> Vec<Effect> {
        let rows = self.areas().table_rows();
        let (w, h) = modal_inner(self.size.0, self.size.1);
        match action {
            Action::Quit => return self.request_quit(),
            Action::TabContacts | Action::TabDeals | Action::TabProjects => {
                return match action.tab() {
                    Some(kind) => self.switch_to(kind),
                    None => Vec::new(),
                };
            }
            Action::NextTab => return self.switch_to(self.active.next()),
            Action::PrevTab => return self.switch_to(self.active.prev()),
            Action::Down => self.tab_mut().move_selection(1),
            Action::Up => self.tab_mut().move_selection(-1),
            Action::First => self.tab_mut().select(0),
            Action::Last => self.tab_mut().select(usize::MAX),
            Action::Filter => {
                // Always on the tab's first field (full name, name), as a search box opens.
                self.tab_mut().filter_bar.focused = 0;
                self.tab_mut().filter_open = true;
                self.refresh_due_reset();
            }
            Action::SortNext => {
                self.tab_mut().next_sort();
                return self.load(self.active, false);
            }
            Action::SortFlip => {
                self.tab_mut().flip_direction();
                return self.load(self.active, false);
            }
            Action::NextPage | Action::PrevPage => {
                let next = action == Action::NextPage;
                let tab = self.tab_mut();
                if !tab.server_pages() {
                    // The whole list is here: page through it on screen.
                    let step = rows.max(1) as isize;
                    tab.move_selection(if next { step } else { -step });
                } else {
                    let target = if next {
                        tab.page + 1
                    } else {
                        tab.page.saturating_sub(1)
                    };
                    // A flip while loading follows on (the earlier request is cancelled).
                    if tab.go_to_page(target) {
                        return self.load(self.active, false);
                    }
                    return Vec::new();
                }
            }
            Action::PageSizeUp | Action::PageSizeDown => {
                if self.tab_mut().step_per_page(action == Action::PageSizeUp) {
                    return self.load(self.active, false);
                }
                return Vec::new();
            }
            Action::Includes => {
                let t = self.tab();
                let picker = IncludesPicker::new(t.resource.includes, &t.includes);
                self.overlays.push(Overlay::Includes(picker));
            }
            Action::Detail => {
                let kind = self.active;
                if let Some(r) = self.tab().selected_record() {
                    let v = DetailView::new(kind, r, &self.config.cell_format(), w, h).browsing();
                    self.overlays.push(Overlay::Detail(v));
                }
            }
            Action::Refresh => {
                // Offline: the page comes from the mirror again, and the service is asked
                // whether it is back.
                let mut fx = self.load(self.active, true);
                fx.extend(self.probe_now());
                return fx;
            }
            Action::Search => return self.open_search(),
            Action::RequestLog => return self.open_request_log(),
            Action::Today => return self.open_today(),
            Action::Dupes => return self.open_dupes(),
            Action::Related => {
                let kind = self.active;
                if let Some(r) = self.tab().selected_record() {
                    let of = crate::app::mirror::RecordRef {
                        kind: crate::app::mirror::LinkKind::Record(kind),
                        id: r.id.clone(),
                        label: r.label.clone(),
                        detail: String::new(),
                        raw: r.raw.clone(),
                        note: None,
                    };
                    if of.kind.has_related() {
                        return self.open_related(of);
                    }
                    self.note("Related records: from a deal or a contact (projects have none in the mirror)");
                }
                return Vec::new();
            }
            Action::Export => {
                let t = self.tab();
                let scope = {
                    let f = t.filter_summary();
                    let noun = self.active.noun();
                    let sort = format!("sorted by {} {}", t.sort_by, t.direction);
                    if f.is_empty() {
                        format!("all {noun}, {sort}")
                    } else {
                        format!("the {noun} with {f}; {sort}")
                    }
                };
                let local = self.wall.with_timezone(&chrono::Local);
                let marked = &t.selection;
                let d = if marked.is_empty() {
                    ExportDialog::new(t.spec(), scope, local)
                } else {
                    let noun = self.active.noun();
                    let sort = format!("sorted by {} {}", t.sort_by, t.direction);
                    let scope = format!("the {} selected {noun}; {sort}", marked.len());
                    ExportDialog::new(t.spec(), scope, local).only(marked.clone())
                };
                self.overlays.push(Overlay::Export(d));
            }
            Action::CopyJson => {
                if let Some(fx) = self.copy_marked() {
                    return fx;
                }
                if let Some(r) = self.tab().selected_record() {
                    let (json, label) = (r.raw.to_string(), r.label.clone());
                    return self.copy_json(json, &label);
                }
                return Vec::new();
            }
            Action::Help => {
                let facts = self.help_facts();
                let v = Pager::help_with_facts(
                    &self.keymap,
                    self.config.log_path.as_deref(),
                    &facts,
                    w,
                    h,
                )
                .with_messages(&self.status.history, &self.config.zone);
                self.overlays.push(Overlay::Help(v));
            }
            Action::Back => {
                let had_error = self.status.clear_error();
                // Marks first (the last thing made), then the filters.
                if self.clear_marks() {
                    return Vec::new();
                }
                // Filters active: `Esc` clears them (as k9s does); a second press finds none.
                if self.tab().has_filters() {
                    return self.clear_filters();
                }
                if !had_error {
                    return Vec::new();
                }
            }
            Action::ScrollLeft | Action::ScrollRight => {
                // Sideways through the columns a narrow screen drops.
                let width = self.areas().table_inner().width;
                let tab = self.tab_mut();
                let shown = tab.columns_shown(width);
                tab.col_scroll = match action {
                    Action::ScrollRight if shown.more_right => shown.scroll + 1,
                    Action::ScrollRight => shown.scroll,
                    _ => shown.scroll.saturating_sub(1),
                };
            }
            Action::Suspend => return vec![Effect::Suspend],
            Action::Redraw => return vec![Effect::Redraw],
            Action::NewContact => return self.open_contact_form(),
            Action::Reschedule => return self.open_reschedule(),
            Action::Palette => return self.open_palette(),
            Action::OpenWeb => {
                return match self.open_marked() {
                    Some(fx) => fx,
                    None => self.open_web(),
                };
            }
            Action::WriteLog => return self.open_write_log(),
            // With a write in its window `u` took it back before reaching here.
            Action::Undo => self.note("Nothing waits to be sent: there is nothing to take back"),
            // The timeline's own keys, pressed elsewhere, say where they work.
            Action::Scale | Action::ShowSelected => {
                let key = self.keymap.first_key(action);
                let open = self.keymap.first_key(Action::Timeline);
                self.note(format!(
                    "{key} ({}) works in the timeline: {open} opens it",
                    action.description()
                ));
                return Vec::new();
            }
            // `KeyMap::action` never answers with a dialog's action.
            _ => return Vec::new(),
        }
        self.tab_mut().scroll_into_view(rows);
        self.dirty = true;
        Vec::new()
    }

    /// `y`: the record on the clipboard, and a note saying so (table and detail pane alike).
    pub(crate) fn copy_json(&mut self, json: String, label: &str) -> Vec<Effect> {
        self.note(format!("Copied {label} as JSON"));
        vec![Effect::Copy(json)]
    }

    fn refresh_due_reset(&mut self) {
        if let Some(d) = self.config.refresh {
            self.refresh_due = Some(self.now + d);
        }
    }

    fn on_filter_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        self.dirty = true;
        let asked = [
            Action::Cancel,
            Action::Confirm,
            Action::NextField,
            Action::PrevField,
            Action::NextValue,
            Action::PrevValue,
        ];
        match self.keymap.pick(&key, &asked) {
            Some(Action::Cancel) => {
                self.tab_mut().filter_open = false;
                self.refresh_due_reset();
                let fx = self.apply_filters_if_pending(self.active);
                // Closing never hides a refused value: say what was left out.
                if let Some(i) = self.tab().filter_bar.first_error() {
                    let f = &self.tab().filter_bar.fields[i];
                    let msg = format!(
                        "filter {} not applied: {}",
                        f.field.label,
                        f.error.as_deref().unwrap_or_default()
                    );
                    self.note(msg);
                }
                return fx;
            }
            Some(Action::Confirm) => {
                self.tab_mut().debounce_until = Some(self.now);
                let fx = self.apply_filters_if_pending(self.active);
                // An invalid value keeps the bar open on it, its error beside it.
                match self.tab().filter_bar.first_error() {
                    Some(i) => self.tab_mut().filter_bar.focused = i,
                    None => self.tab_mut().filter_open = false,
                }
                return fx;
            }
            Some(Action::NextField) => self.tab_mut().filter_bar.focus_next(),
            Some(Action::PrevField) => self.tab_mut().filter_bar.focus_prev(),
            Some(a @ (Action::NextValue | Action::PrevValue)) => {
                if self
                    .tab_mut()
                    .filter_bar
                    .cycle_status(a == Action::NextValue)
                {
                    self.tab_mut().debounce_until = Some(self.now + FILTER_DEBOUNCE);
                }
            }
            _ => match self
                .tab_mut()
                .filter_bar
                .focused_mut()
                .input
                .handle_key(&key)
            {
                InputOutcome::Changed => {
                    self.tab_mut().debounce_until = Some(self.now + FILTER_DEBOUNCE);
                }
                InputOutcome::Moved => {}
                InputOutcome::Ignored => {
                    match self.keymap.action(&key) {
                        Some(Action::Suspend) => return vec![Effect::Suspend],
                        Some(Action::Redraw) => return vec![Effect::Redraw],
                        _ => {}
                    }
                    self.dirty = false;
                }
            },
        }
        Vec::new()
    }

    /// `Esc` on the table: empties the filter bar and re-queries without filters.
    fn clear_filters(&mut self) -> Vec<Effect> {
        for f in &mut self.tab_mut().filter_bar.fields {
            f.input.clear();
            f.error = None;
        }
        let fx = self.apply_filters(self.active);
        let again = self.keymap.first_key(Action::Filter);
        self.note(format!("Filters cleared ({again} to filter again)"));
        fx
    }

    /// Applies the typed filters now if a debounce is pending (Enter, Esc).
    fn apply_filters_if_pending(&mut self, kind: Resource) -> Vec<Effect> {
        if self.tabs[kind.index()].debounce_until.is_some() {
            return self.apply_filters(kind);
        }
        Vec::new()
    }

    /// Reads the filter bar into the tab's query; re-queries when it changed.
    pub(super) fn apply_filters(&mut self, kind: Resource) -> Vec<Effect> {
        let parser = self.config.date_parser.clone();
        let wall = self.wall;
        let tab = &mut self.tabs[kind.index()];
        tab.debounce_until = None;
        let filters = tab.filter_bar.evaluate(&parser, wall);
        self.dirty = true;
        if filters == tab.filters {
            return Vec::new();
        }
        tab.filters = filters;
        tab.page = 1;
        let mut fx = self.load(kind, false);
        if kind == Resource::Deals {
            self.currency_chip = None;
            fx.extend(self.pipeline_follow_filters());
        }
        if kind == Resource::Projects {
            fx.extend(self.timeline_follow_filters());
        }
        fx
    }

    pub(super) fn on_paste(&mut self, text: &str) -> Vec<Effect> {
        if let Some(top) = self.overlays.len().checked_sub(1) {
            let out = self.overlays[top].dialog_mut().on_paste(text);
            return self.apply_outcome(top, out);
        }
        if self.tab().filter_open
            && self
                .tab_mut()
                .filter_bar
                .focused_mut()
                .input
                .insert_str(text)
                == InputOutcome::Changed
        {
            self.tab_mut().debounce_until = Some(self.now + FILTER_DEBOUNCE);
            self.dirty = true;
        }
        Vec::new()
    }

    pub(super) fn on_mouse(&mut self, m: MouseEvent) -> Vec<Effect> {
        if let Some(top) = self.overlays.len().checked_sub(1) {
            let out = self.overlays[top].dialog_mut().on_mouse(&m);
            return self.apply_outcome(top, out);
        }
        let areas = self.areas();
        let rows = areas.table_rows();
        let chart = self.pipeline_shown().is_some() || self.timeline_shown().is_some();
        match m.kind {
            // A chart view shown instead of the table: the wheel moves its selection, never
            // the hidden table's.
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp if chart => {
                let a = if m.kind == MouseEventKind::ScrollDown {
                    Action::Down
                } else {
                    Action::Up
                };
                for _ in 0..3 {
                    self.on_pipeline_action(a)
                        .or_else(|| self.on_timeline_action(a));
                }
            }
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
                let d = if m.kind == MouseEventKind::ScrollDown {
                    3
                } else {
                    -3
                };
                self.tab_mut().move_selection(d);
                self.tab_mut().scroll_into_view(rows);
                self.dirty = true;
            }
            MouseEventKind::Down(MouseButton::Left) => {
                if m.row == areas.tabs.y {
                    let titles = self.tab_titles();
                    let hit = layout::tab_ranges(&titles)
                        .iter()
                        .position(|(a, b)| m.column >= *a && m.column < *b);
                    if let Some(i) = hit {
                        return self.switch_to(Resource::ALL[i]);
                    }
                    return Vec::new();
                }
                let inner = areas.table_inner();
                // Clicks on a chart view are not the hidden table's header or rows.
                if chart || m.column < inner.x || m.column >= inner.x + inner.width {
                    return Vec::new();
                }
                if m.row == inner.y {
                    let tab = self.tab();
                    let shown = tab.columns_shown(inner.width);
                    let x = (m.column - inner.x).checked_sub(tab.gutter());
                    let Some(col) = x
                        .and_then(|x| layout::column_at(&shown.fitted, x))
                        .map(|c| tab.resource.columns[c])
                    else {
                        return Vec::new();
                    };
                    if let Some(k) = col.sort {
                        self.tab_mut().sort_by_key(k);
                        return self.load(self.active, false);
                    }
                    // A header that cannot sort says so, and what can.
                    let keys = tab.resource.sort_keys.join(", ");
                    let noun = self.active.noun();
                    self.note(format!(
                        "{} cannot sort: the API sorts {noun} only by {keys}",
                        col.title
                    ));
                } else if m.row > inner.y && m.row < inner.y + inner.height {
                    let index = self.tab().offset + (m.row - inner.y - 1) as usize;
                    if index < self.tab().records().len() {
                        self.tab_mut().select(index);
                        self.dirty = true;
                    }
                }
            }
            _ => {}
        }
        Vec::new()
    }
}
