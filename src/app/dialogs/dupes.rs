//! `:dupes` (`D`): the near duplicate contacts of the local mirror as clusters, best first,
//! each with its members and the reasons that link them. The finder runs off the UI thread
//! (`Effect::Mirror(Dupes)`, on its own connection). `Enter` opens a cluster side by side,
//! the fields that differ marked; there `Enter` opens the selected member as a record (`Esc`
//! comes back). `e` exports the clusters as `contacts dupes` writes them; `r` looks again.

use std::sync::Arc;

use crossterm::event::KeyEvent;

use crate::api::{ApiRecord, Contact};
use crate::app::dialogs::{Dialog, DialogCx, DialogResult, Outcome};
use crate::app::effects::{Effect, RequestId};
use crate::app::keymap::{Action, Hint};
use crate::app::message::Message;
use crate::app::mirror::{LinkKind, MirrorEffect, MirrorMessage, RecordRef};
use crate::insights::dupes::Cluster;
use crate::insights::dupes::mirrored::{DupesReport, Finder};
use crate::resource::Resource;

/// One field of the members of an open cluster, side by side.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareRow {
    pub field: &'static str,
    /// One value per member, in the cluster's order (empty when missing).
    pub values: Vec<String>,
    /// The members do not all have the same value.
    pub differ: bool,
}

/// A cluster opened side by side.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenCluster {
    /// Index into the report's clusters.
    pub cluster: usize,
    /// The member selected (index into the cluster's members).
    pub member: usize,
    pub rows: Vec<CompareRow>,
    /// The members' records as stored, once read.
    pub records: Vec<Option<Arc<str>>>,
    /// The read of the records in flight.
    pub reading: Option<RequestId>,
}

/// A cluster's two lines in the list, made once when the clusters arrive: a frame draws
/// the few in view from them (100,000 contacts can make thousands of clusters).
#[derive(Debug, Clone, PartialEq)]
pub struct ListEntry {
    /// The score and the members' names (`0.97  Jon Smith · John Smith`).
    pub head: String,
    /// How many and the best pair's reasons (`        2 contacts · same phone`).
    pub why: String,
}

impl ListEntry {
    fn of(r: &DupesReport, c: &Cluster) -> ListEntry {
        let names: Vec<&str> = c
            .members
            .iter()
            .map(|&i| {
                let p = &r.people[i];
                if p.name.trim().is_empty() {
                    p.email.as_deref().unwrap_or(&p.id)
                } else {
                    &p.name
                }
            })
            .collect();
        let why = c
            .pairs
            .first()
            .map(|p| p.reasons.join(", "))
            .unwrap_or_default();
        ListEntry {
            head: format!("{:.2}  {}", c.score, names.join(" · ")),
            why: format!("        {} contacts · {why}", c.members.len()),
        }
    }
}

pub struct DupesView {
    pub finder: Finder,
    pub pending: Option<RequestId>,
    /// `Ok(None)`: no mirror.
    pub result: Option<Result<Option<Arc<DupesReport>>, String>>,
    /// The report's clusters as list lines, one entry a cluster (empty without a report).
    pub list: Vec<ListEntry>,
    /// The cluster selected in the list.
    pub selected: usize,
    pub open: Option<OpenCluster>,
}

impl DupesView {
    /// The view, waiting for the finder's answer to `id`.
    pub fn new(finder: Finder, id: RequestId) -> DupesView {
        DupesView {
            finder,
            pending: Some(id),
            result: None,
            list: Vec::new(),
            selected: 0,
            open: None,
        }
    }

    /// The effect that runs the finder for this view.
    pub fn effect(&self, id: RequestId) -> Effect {
        Effect::Mirror(MirrorEffect::Dupes {
            id,
            finder: self.finder.clone(),
        })
    }

    pub fn report(&self) -> Option<&Arc<DupesReport>> {
        match &self.result {
            Some(Ok(Some(r))) => Some(r),
            _ => None,
        }
    }

    fn cluster_count(&self) -> usize {
        self.report().map_or(0, |r| r.clusters.len())
    }

    /// Opens the selected cluster side by side and asks for its members' records (the
    /// fields beyond the compared ones, and what `Enter` opens).
    fn open_cluster(&mut self, cx: &mut DialogCx) -> Outcome {
        let Some(r) = self.report() else {
            return Outcome::Handled;
        };
        let Some(c) = r.clusters.get(self.selected) else {
            return Outcome::Handled;
        };
        let ids: Vec<String> = c.members.iter().map(|&i| r.people[i].id.clone()).collect();
        let mut open = OpenCluster {
            cluster: self.selected,
            member: 0,
            rows: Vec::new(),
            records: vec![None; ids.len()],
            reading: None,
        };
        open.rows = compare_rows(r, open.cluster, &open.records);
        let id = cx.request_id();
        open.reading = Some(id);
        self.open = Some(open);
        Outcome::Effects(vec![Effect::Mirror(MirrorEffect::ContactRecords {
            id,
            ids,
        })])
    }

    /// The selected member of the open cluster as a record to open (once read).
    fn member_record(&self) -> Option<RecordRef> {
        let open = self.open.as_ref()?;
        let r = self.report()?;
        let i = *r.clusters.get(open.cluster)?.members.get(open.member)?;
        let p = &r.people[i];
        let raw = open.records.get(open.member).cloned().flatten()?;
        Some(RecordRef {
            kind: LinkKind::Record(Resource::Contacts),
            id: p.id.clone(),
            label: if p.name.is_empty() {
                p.email.clone().unwrap_or_else(|| p.id.clone())
            } else {
                p.name.clone()
            },
            detail: p.email.clone().unwrap_or_default(),
            raw,
            note: Some("from the local mirror"),
        })
    }

    fn on_list_key(&mut self, key: &KeyEvent, cx: &mut DialogCx) -> Outcome {
        let n = self.cluster_count();
        match cx.keymap.action(key) {
            Some(Action::Down) if n > 0 => self.selected = (self.selected + 1).min(n - 1),
            Some(Action::Up) => self.selected = self.selected.saturating_sub(1),
            Some(Action::First) => self.selected = 0,
            Some(Action::Last) => self.selected = n.saturating_sub(1),
            Some(Action::NextPage) if n > 0 => self.selected = (self.selected + 10).min(n - 1),
            Some(Action::PrevPage) => self.selected = self.selected.saturating_sub(10),
            Some(Action::Detail) => return self.open_cluster(cx),
            Some(Action::Export) => {
                if let Some(r) = self.report().filter(|r| !r.clusters.is_empty()) {
                    return Outcome::Apply(DialogResult::ExportDupes(r.clone()));
                }
            }
            Some(Action::Refresh) if self.pending.is_none() => {
                let id = cx.request_id();
                self.pending = Some(id);
                return Outcome::Effects(vec![self.effect(id)]);
            }
            Some(Action::Back) => return Outcome::Close,
            Some(Action::Quit) => return Outcome::Ignored,
            _ => {}
        }
        Outcome::Handled
    }

    fn on_cluster_key(&mut self, key: &KeyEvent, cx: &mut DialogCx) -> Outcome {
        let Some(open) = &mut self.open else {
            return Outcome::Handled;
        };
        let n = open.rows.first().map_or(0, |r| r.values.len());
        match cx.keymap.action(key) {
            Some(Action::ScrollRight | Action::NextTab | Action::Down) if n > 0 => {
                open.member = (open.member + 1).min(n - 1)
            }
            Some(Action::ScrollLeft | Action::PrevTab | Action::Up) => {
                open.member = open.member.saturating_sub(1)
            }
            Some(Action::Detail) => {
                if let Some(r) = self.member_record() {
                    return Outcome::Apply(DialogResult::OpenRecord(r));
                }
            }
            Some(Action::Back) => self.open = None,
            Some(Action::Quit) => return Outcome::Ignored,
            _ => {}
        }
        Outcome::Handled
    }
}

/// A row a field of the cluster's members: the compared facts, then (once read) the
/// records' names, accounts and times; fields every member lacks are left out.
fn compare_rows(r: &DupesReport, cluster: usize, records: &[Option<Arc<str>>]) -> Vec<CompareRow> {
    let c = &r.clusters[cluster];
    let people: Vec<_> = c.members.iter().map(|&i| &r.people[i]).collect();
    let contacts: Vec<Option<Contact>> =
        records.iter().map(|x| x.clone().and_then(decode)).collect();
    let text = |f: &dyn Fn(&Contact) -> Option<String>| -> Vec<String> {
        contacts
            .iter()
            .map(|c| c.as_ref().and_then(f).unwrap_or_default())
            .collect()
    };
    let of = |f: &dyn Fn(&crate::insights::dupes::Person) -> Option<String>| -> Vec<String> {
        people.iter().map(|p| f(p).unwrap_or_default()).collect()
    };
    let rows: Vec<(&'static str, Vec<String>)> = vec![
        ("id", of(&|p| Some(p.id.clone()))),
        ("name", of(&|p| Some(p.name.clone()))),
        ("first name", text(&|c| c.first_name.clone())),
        ("last name", text(&|c| c.last_name.clone())),
        ("email", of(&|p| p.email.clone())),
        ("phone", of(&|p| p.phone.clone())),
        ("account ids", of(&|p| Some(p.accounts.join(", ")))),
        (
            "accounts",
            text(&|c| {
                let labels: Vec<String> = c
                    .accounts
                    .iter()
                    .flatten()
                    .map(crate::api::Related::label)
                    .collect();
                Some(labels.join(", "))
            }),
        ),
        (
            "created",
            of(&|p| p.created_at.map(|t| t.format("%Y-%m-%d %H:%M").to_string())),
        ),
        (
            "updated",
            text(&|c| {
                c.updated_at
                    .as_ref()
                    .and_then(crate::api::Timestamp::instant)
                    .map(|t| t.format("%Y-%m-%d %H:%M").to_string())
            }),
        ),
        (
            "why",
            c.members
                .iter()
                .map(|&i| crate::insights::dupes::output::member_reasons(c, i))
                .collect(),
        ),
    ];
    rows.into_iter()
        .filter(|(_, v)| v.iter().any(|s| !s.is_empty()))
        .map(|(field, values)| CompareRow {
            differ: field != "id" && field != "why" && values.iter().any(|v| v != &values[0]),
            field,
            values,
        })
        .collect()
}

fn decode(raw: Arc<str>) -> Option<Contact> {
    let raw = serde_json::value::RawValue::from_string(raw.to_string()).ok()?;
    Contact::from_raw(raw).ok()
}

impl Dialog for DupesView {
    fn hints(&self) -> &'static [Hint] {
        const LIST: &[Hint] = &[
            Hint::new(&[Action::Down, Action::Up], "select", 0),
            Hint::new(&[Action::Detail], "compare", 0),
            Hint::new(&[Action::Export], "export", 1),
            Hint::new(&[Action::Refresh], "again", 2),
            Hint::new(&[Action::Back], "close", 0),
        ];
        const CLUSTER: &[Hint] = &[
            Hint::new(&[Action::ScrollLeft, Action::ScrollRight], "member", 0),
            Hint::new(&[Action::Detail], "open", 0),
            Hint::new(&[Action::Back], "back", 0),
        ];
        // Reading; or nothing to list (no mirror yet, an error): read again.
        const READING: &[Hint] = &[Hint::new(&[Action::Back], "close", 0)];
        const AGAIN: &[Hint] = &[
            Hint::new(&[Action::Refresh], "again", 1),
            Hint::new(&[Action::Back], "close", 0),
        ];
        match (&self.open, self.report()) {
            (Some(_), _) => CLUSTER,
            (None, Some(_)) => LIST,
            (None, None) if self.pending.is_some() => READING,
            (None, None) => AGAIN,
        }
    }

    fn on_key(&mut self, key: &KeyEvent, cx: &mut DialogCx) -> Outcome {
        if cx.app_key(key) {
            return Outcome::Ignored;
        }
        if self.open.is_some() {
            self.on_cluster_key(key, cx)
        } else {
            self.on_list_key(key, cx)
        }
    }

    fn on_message(&mut self, msg: &Message, _cx: &mut DialogCx) -> Outcome {
        match msg {
            Message::Mirror(MirrorMessage::ContactRecords { id, result })
                if self.open.as_ref().is_some_and(|o| o.reading == Some(*id)) =>
            {
                let report = self.report().cloned();
                if let (Some(open), Some(r)) = (&mut self.open, report) {
                    open.reading = None;
                    if let Ok(Some(records)) = result {
                        open.records = records.clone();
                        open.rows = compare_rows(&r, open.cluster, &open.records);
                    }
                }
                Outcome::Handled
            }
            Message::Mirror(MirrorMessage::Dupes { id, result }) if self.pending == Some(*id) => {
                self.pending = None;
                self.result = Some(result.clone());
                self.list = match result {
                    Ok(Some(r)) => r.clusters.iter().map(|c| ListEntry::of(r, c)).collect(),
                    _ => Vec::new(),
                };
                self.selected = 0;
                self.open = None;
                Outcome::Handled
            }
            _ => Outcome::Ignored,
        }
    }

    fn busy(&self) -> bool {
        self.pending.is_some() || self.open.as_ref().is_some_and(|o| o.reading.is_some())
    }
}

impl crate::app::App {
    /// `D`, `:dupes`: the near duplicate clusters of the local mirror.
    pub(crate) fn open_dupes(&mut self) -> Vec<Effect> {
        if !self.mirror.enabled {
            self.note("Near duplicates come from the local mirror, which is turned off ([cache] enabled = false)");
            return Vec::new();
        }
        let id = self.new_id();
        let view = DupesView::new(self.forms.config.dupes.clone(), id);
        let fx = view.effect(id);
        self.overlays
            .push(crate::app::dialogs::Overlay::Dupes(Box::new(view)));
        self.dirty = true;
        vec![fx]
    }

    /// `e` in `:dupes`: the export dialog for the clusters.
    pub(crate) fn export_dupes(&mut self, report: Arc<DupesReport>) -> Vec<Effect> {
        let spec = self.tab_of(Resource::Contacts).spec();
        let d = crate::app::dialogs::export::ExportDialog::new(
            spec,
            format!("{} clusters of near duplicates", report.clusters.len()),
            self.wall.with_timezone(&chrono::Local),
        )
        .of_dupes(report);
        self.overlays.push(crate::app::dialogs::Overlay::Export(d));
        self.dirty = true;
        Vec::new()
    }
}
