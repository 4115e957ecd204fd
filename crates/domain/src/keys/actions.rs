//! Every action a key can do, its name in the config file, its description in help and its
//! default keys: one table, so a new action is one line here.

macro_rules! actions {
    (
        main { $($variant:ident => $name:literal, $desc:literal, [$($key:literal),*];)+ }
        dialog { $($dvariant:ident => $dname:literal, $ddesc:literal, [$($dkey:literal),*];)+ }
    ) => {
        /// Something a key can do: on the main screen, or in a dialog.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Action { $($variant,)+ $($dvariant,)+ }

        impl Action {
            /// Every action, the main screen's first.
            pub const ALL: &'static [Action] = &[$(Action::$variant,)+ $(Action::$dvariant,)+];

            /// The actions of dialogs and the filter bar (a dialog may use main-screen ones
            /// too: scrolling).
            pub const DIALOG: &'static [Action] = &[$(Action::$dvariant),+];

            /// The name used in the config file.
            pub fn name(self) -> &'static str {
                match self { $(Action::$variant => $name,)+ $(Action::$dvariant => $dname,)+ }
            }

            /// What the action does, for the help overlay.
            pub fn description(self) -> &'static str {
                match self { $(Action::$variant => $desc,)+ $(Action::$dvariant => $ddesc,)+ }
            }

            pub(super) fn default_keys(self) -> &'static [&'static str] {
                match self {
                    $(Action::$variant => &[$($key),*],)+
                    $(Action::$dvariant => &[$($dkey),*],)+
                }
            }

            /// Whether this is one of the dialogs' (and filter bar's) actions; the main screen
            /// ignores them.
            pub fn in_dialogs(self) -> bool {
                Self::DIALOG.contains(&self)
            }
        }
    };
}

actions! {
    main {
        Quit => "quit", "quit", ["q"];
        TabContacts => "tab_contacts", "Contacts tab", ["1"];
        TabDeals => "tab_deals", "Deals tab", ["2"];
        TabProjects => "tab_projects", "Projects tab", ["3"];
        NextTab => "next_tab", "next tab", ["tab"];
        PrevTab => "prev_tab", "previous tab", ["shift-tab"];
        Down => "down", "move down", ["j", "down"];
        Up => "up", "move up", ["k", "up"];
        First => "first", "first row", ["g", "home"];
        Last => "last", "last row", ["G", "end"];
        Filter => "filter", "filter", ["/"];
        SortNext => "sort_next", "next sort key", ["s"];
        SortFlip => "sort_flip", "flip sort direction", ["S"];
        NextPage => "next_page", "next page", ["n", "pagedown"];
        PrevPage => "prev_page", "previous page", ["p", "pageup"];
        PageSizeUp => "page_size_up", "bigger pages", ["+"];
        PageSizeDown => "page_size_down", "smaller pages", ["-"];
        Includes => "includes", "included relations", ["i"];
        Detail => "detail", "detail pane", ["enter"];
        Refresh => "refresh", "refresh (bypass cache)", ["r"];
        Export => "export", "export the view", ["e"];
        CopyJson => "copy_json", "copy record as JSON", ["y"];
        Help => "help", "help", ["?"];
        Back => "back", "close / back", ["esc"];
        Suspend => "suspend", "suspend", ["ctrl-z"];
        Redraw => "redraw", "redraw the whole screen", ["ctrl-l"];
        NewContact => "new_contact", "new contact", ["c"];
        Reschedule => "reschedule", "reschedule an appointment", ["a"];
        Pipeline => "pipeline", "Deals: pipeline view (totals by status and currency) / table", ["P"];
        Timeline => "timeline", "Projects: timeline of every matching project / table", ["T"];
        ScrollLeft => "scroll_left", "table: columns to the left (+N columns); timeline: a screen earlier", ["h", "left"];
        ScrollRight => "scroll_right", "table: the columns dropped for room; timeline: a screen later", ["l", "right"];
        Scale => "scale", "timeline: next scale (day, week, month)", ["z"];
        ShowSelected => "show_selected", "timeline: scroll to the selected project", ["f"];
        Palette => "palette", "command palette (:deals status=open, :view NAME, :help)", [":"];
        OpenWeb => "open_web", "open the selected record in the browser (web_url)", ["o"];
        Search => "search", "search everything in the local mirror", ["ctrl-f"];
        Related => "related", "related records of the selected one (local mirror)", ["R"];
        ToggleMark => "toggle_mark", "mark / unmark the row (multi-select)", ["space"];
        MarkRange => "mark_range", "mark every row from the last marked one to this", ["V"];
        MarkAll => "mark_all", "mark every record matching the tab's filters", ["*"];
        Jobs => "jobs", "jobs: exports, readings, syncs, selections (running and done)", ["J"];
        Undo => "undo", "take back the write waiting to be sent (its countdown is on the status line)", ["u"];
        WriteLog => "write_log", "the write journal: every write sent from this machine (:log)", ["L"];
        RequestLog => "request_log", "request log: this session's last 500 requests (Enter shows one, y copies it as curl)", ["W"];
        Today => "today", "Today: what changed since your last visit (local mirror)", ["t"];
        Dupes => "dupes", "near duplicate contacts (local mirror)", ["D"];
    }
    dialog {
        Submit => "submit", "submit the form (create, preview)", ["ctrl-s"];
        Cancel => "cancel", "cancel / back out of a dialog", ["esc"];
        Confirm => "confirm", "confirm (in forms: next field)", ["enter"];
        NextField => "next_field", "next field", ["tab", "down"];
        PrevField => "prev_field", "previous field", ["shift-tab", "up"];
        Yes => "yes", "answer yes", ["y", "Y"];
        No => "no", "answer no", ["n", "N"];
        AddAnother => "add_another", "create and add another contact", ["a", "A"];
        OpenDuplicate => "open_duplicate", "open the contact with that email", ["ctrl-o"];
        Toggle => "toggle", "toggle the item", ["space"];
        SwitchFormat => "switch_format", "export as CSV / JSON", ["tab", "shift-tab"];
        Later => "later", "start 15 minutes later", ["alt-up"];
        Earlier => "earlier", "start 15 minutes earlier", ["alt-down"];
        NextDay => "next_day", "start a day later", ["alt-right"];
        PrevDay => "prev_day", "start a day earlier", ["alt-left"];
        PickFirst => "pick_first", "the first of a doubled time", ["1"];
        PickSecond => "pick_second", "the second of a doubled time", ["2"];
        NextAppointment => "next_appointment", "reschedule another appointment", ["n"];
        NextValue => "next_value", "filter bar: next status value seen", ["ctrl-n"];
        PrevValue => "prev_value", "filter bar: previous status value seen", ["ctrl-p"];
        Complete => "complete", "palette: complete the word (again: next choice)", ["tab"];
        CompletePrev => "complete_prev", "palette: previous completion", ["shift-tab"];
        HistoryPrev => "history_prev", "palette: earlier command", ["up"];
        HistoryNext => "history_next", "palette: later command", ["down"];
        DeleteItem => "delete_item", "views: delete the saved view", ["d", "delete"];
        RenameItem => "rename_item", "views: rename the saved view", ["r"];
        MoveItemUp => "move_item_up", "columns: move the column up", ["shift-up", "K"];
        MoveItemDown => "move_item_down", "columns: move the column down", ["shift-down", "J"];
        PrevRecord => "prev_record", "related records: back to the previous record", ["backspace"];
        DetailNext => "detail_next", "detail pane: the next record (the pane stays open)", ["j", "]"];
        DetailPrev => "detail_prev", "detail pane: the previous record", ["k", "["];
        StopJob => "stop_job", "jobs: stop the job under the cursor", ["x"];
        MarkSeen => "mark_seen", "Today: mark the selected group seen", ["x"];
    }
}

impl Action {
    /// The tab this action switches to (`1`, `2`, `3` by default), if it is a tab switch.
    pub fn tab(self) -> Option<crate::resource::Resource> {
        use crate::resource::Resource;
        match self {
            Action::TabContacts => Some(Resource::Contacts),
            Action::TabDeals => Some(Resource::Deals),
            Action::TabProjects => Some(Resource::Projects),
            _ => None,
        }
    }
}
