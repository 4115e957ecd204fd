//! Browsing the mirror from dialogs: a record's detail (from search or a related list), the
//! records related to one, and the `Ctrl-F` search dialog.

use super::{LinkKind, MirrorEffect, RecordRef};
use crate::app::App;
use crate::app::dialogs::Overlay;
use crate::app::dialogs::detail::DetailView;
use crate::app::dialogs::related::RelatedView;
use crate::app::effects::Effect;
use crate::app::layout::modal_inner;
use crate::app::table::record::Record;
use crate::resource::Resource;

impl App {
    /// Opens a record's detail pane (from search or a related list) above what is open.
    pub(crate) fn open_record(&mut self, r: RecordRef) -> Vec<Effect> {
        let (w, h) = modal_inner(self.size.0, self.size.1);
        let record = Record {
            id: r.id.clone(),
            label: r.label.clone(),
            cells: Vec::new(),
            status: None,
            raw: r.raw.clone(),
        };
        // An account has no detail layout of its own: it is shown as a contact's would be
        // (its fields, unknown ones kept), under its own title set below.
        let kind = match r.kind {
            LinkKind::Record(kind) => kind,
            LinkKind::Account => Resource::Contacts,
        };
        let mut v = DetailView::new(kind, &record, &self.config.cell_format(), w, h);
        v.link = Some(r.clone());
        if r.kind == LinkKind::Account || r.note.is_some() {
            let note = r.note.map(|n| format!(" ({n})")).unwrap_or_default();
            v.title = format!("{} {} · {}{note}", r.kind.noun(), r.id, r.label);
        }
        self.overlays.push(Overlay::Detail(v));
        self.dirty = true;
        Vec::new()
    }

    /// Opens the list of records related to `of` (read from the mirror).
    pub(crate) fn open_related(&mut self, of: RecordRef) -> Vec<Effect> {
        if !self.mirror.enabled {
            self.note("Related records come from the local mirror, which is turned off ([cache] enabled = false)");
            return Vec::new();
        }
        let id = self.new_id();
        let view = RelatedView::new(of.clone(), id);
        self.overlays.push(Overlay::Related(view));
        self.dirty = true;
        vec![Effect::Mirror(MirrorEffect::Related { id, of })]
    }

    /// `Ctrl-F`: the search dialog.
    pub(crate) fn open_search(&mut self) -> Vec<Effect> {
        let d =
            crate::app::dialogs::search::SearchDialog::new(self.mirror.enabled, self.mirror.exists);
        self.overlays.push(Overlay::Search(Box::new(d)));
        self.dirty = true;
        Vec::new()
    }
}
