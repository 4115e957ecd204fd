//! The resources the dashboard shows, one file each (`contacts`, `deals`, `projects`): its
//! columns, filters, typed sort keys and includes, cells and query builder. This module is
//! the registry the tabs iterate: adding a resource is a variant of `TabKind`, its file, and
//! its arm in `Resource::of` and `QuerySpec::with_query`. The tabs are one generic paged
//! table (`app::table`) driven by these descriptors, not copies of a table.

mod columns;
mod contacts;
mod deals;
mod projects;

use serde::{Deserialize, Serialize};

pub use columns::project;

use crate::api::ListQuery;
use crate::app::keymap::Action;
use crate::app::table::record::TableRecord;
use crate::app::table::spec::QuerySpec;

/// Declares the tabs once: the enum, in display order, and `ALL` from the same list (so no
/// count is written anywhere).
macro_rules! tabs {
    ($($variant:ident),+ $(,)?) => {
        /// The dashboard's tabs, in display order.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum TabKind { $($variant),+ }

        impl TabKind {
            /// Every tab, in display order.
            pub const ALL: [TabKind; [$(TabKind::$variant),+].len()] = [$(TabKind::$variant),+];
        }
    };
}

tabs!(Contacts, Deals, Projects);

impl TabKind {
    /// The tab shown on a first run (nothing remembered).
    pub const FIRST_RUN: TabKind = TabKind::Deals;

    /// Its position in the tab bar (and in `App::tabs`).
    pub fn index(self) -> usize {
        self as usize
    }

    /// The next tab to the right, wrapping around.
    pub fn next(self) -> TabKind {
        TabKind::ALL[(self.index() + 1) % TabKind::ALL.len()]
    }

    /// The next tab to the left, wrapping around.
    pub fn prev(self) -> TabKind {
        let n = TabKind::ALL.len();
        TabKind::ALL[(self.index() + n - 1) % n]
    }

    /// The tab a key-map action switches to (`1`, `2`, `3` by default).
    pub fn for_action(action: Action) -> Option<TabKind> {
        TabKind::ALL
            .into_iter()
            .find(|k| k.names().switch_action == action)
    }

    fn names(self) -> &'static Names {
        match self {
            TabKind::Contacts => &contacts::NAMES,
            TabKind::Deals => &deals::NAMES,
            TabKind::Projects => &projects::NAMES,
        }
    }

    /// As in the tab bar: "Contacts".
    pub fn title(self) -> &'static str {
        self.names().title
    }

    /// Lower-case plural, as in "No deals match status=won".
    pub fn noun(self) -> &'static str {
        self.names().noun
    }

    /// One record, as in the detail pane's title: "Contact 7".
    pub fn singular(self) -> &'static str {
        self.names().singular
    }

    /// What the key map's help says the switching action does: "Contacts tab".
    pub fn switch_description(self) -> &'static str {
        self.names().switch_description
    }
}

/// How a resource is named on screen.
pub(crate) struct Names {
    pub title: &'static str,
    pub noun: &'static str,
    pub singular: &'static str,
    /// The key-map action that switches to its tab, and how help describes it.
    pub switch_action: Action,
    pub switch_description: &'static str,
}

/// What a column shows; the record types know how to fill each one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ColumnId {
    Name,
    Email,
    Phone,
    Accounts,
    Account,
    Assignee,
    Status,
    Value,
    Start,
    End,
    Owner,
    Members,
    Created,
    Updated,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// A table column: how wide it likes to be, and which one goes first when space runs out.
#[derive(Debug, Clone, Copy)]
pub struct Column {
    pub id: ColumnId,
    pub title: &'static str,
    /// Narrowest useful width; below it the column is hidden instead.
    pub min: u16,
    /// Width it gets when there is room.
    pub ideal: u16,
    /// 0 is kept longest; higher numbers are hidden first on narrow terminals.
    pub priority: u8,
    pub align: Align,
    /// Sort key a header click selects.
    pub sort: Option<&'static str>,
    /// Other sort keys whose order this column shows (contacts' `first_name` in Name): the
    /// header's arrow is on it for them too.
    pub also_sorts: &'static [&'static str],
    /// Include this column needs to show anything.
    pub include: Option<&'static str>,
}

/// How a filter field reads its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilterKind {
    /// Sent as typed.
    Text,
    /// The CLI's time grammar; an inline error on bad input.
    Date,
    /// Free text, with the values seen so far offered.
    Status,
}

#[derive(Debug, Clone, Copy)]
pub struct FilterField {
    /// Query parameter name.
    pub key: &'static str,
    pub label: &'static str,
    pub kind: FilterKind,
}

/// Everything the generic table needs to know about one resource.
#[derive(Debug, Clone)]
pub struct Resource {
    pub kind: TabKind,
    pub columns: &'static [Column],
    /// Exactly the seed's sort keys, in its order (the wire names of the typed keys).
    pub sort_keys: Vec<&'static str>,
    pub filters: &'static [FilterField],
    /// Exactly the seed's relations (the wire names of the typed includes).
    pub includes: Vec<&'static str>,
    /// Whether the seed promises `meta` (contacts: not said).
    pub paginated: bool,
}

impl Resource {
    pub fn of(kind: TabKind) -> Resource {
        match kind {
            TabKind::Contacts => contacts::resource(),
            TabKind::Deals => deals::resource(),
            TabKind::Projects => projects::resource(),
        }
    }

    /// The includes the columns need: what a tab requests until the user picks others.
    pub fn default_includes(&self) -> Vec<&'static str> {
        let mut v: Vec<&'static str> = self.columns.iter().filter_map(|c| c.include).collect();
        v.sort();
        v.dedup();
        v
    }

    /// The `&'static` spelling of a sort key read back from a file.
    pub fn sort_key(&self, name: &str) -> Option<&'static str> {
        self.sort_keys.iter().copied().find(|k| *k == name)
    }

    pub fn include(&self, name: &str) -> Option<&'static str> {
        self.includes.iter().copied().find(|k| *k == name)
    }
}

/// Something done with a resource's typed list query, whatever the resource: fetching a
/// page, exporting every page. `QuerySpec::with_query` builds the query and calls `run`.
pub trait WithQuery {
    type Output;
    fn run<Q>(self, query: Q) -> Self::Output
    where
        Q: ListQuery + crate::mirror::MirrorQuery + Send + Sync + 'static,
        Q::Item: TableRecord + Send + 'static;
}

impl QuerySpec {
    /// Builds this spec's typed query (its resource's builder) and hands it to `w`.
    pub fn with_query<W: WithQuery>(&self, w: W) -> W::Output {
        match self.kind {
            TabKind::Contacts => w.run(contacts::query(self)),
            TabKind::Deals => w.run(deals::query(self)),
            TabKind::Projects => w.run(projects::query(self)),
        }
    }
}

/// A closed set of wire values from `api::query` (sort keys, includes).
trait Wire: Copy + 'static {
    const ALL: &'static [Self];
    fn wire(self) -> &'static str;
}

macro_rules! wire {
    ($($t:ty),+) => {$(
        impl Wire for $t {
            const ALL: &'static [Self] = <$t>::ALL;
            fn wire(self) -> &'static str {
                self.as_str()
            }
        }
    )+};
}

wire!(
    crate::api::ContactSort,
    crate::api::ContactInclude,
    crate::api::DealSort,
    crate::api::DealInclude,
    crate::api::ProjectSort,
    crate::api::ProjectInclude
);

/// The wire names of a typed list, for the descriptor.
fn names<T: Wire>() -> Vec<&'static str> {
    T::ALL.iter().map(|v| v.wire()).collect()
}

/// A descriptor whose sort keys and includes are the typed lists `S` and `I`.
fn describe<S: Wire, I: Wire>(
    kind: TabKind,
    columns: &'static [Column],
    filters: &'static [FilterField],
    paginated: bool,
) -> Resource {
    Resource {
        kind,
        columns,
        sort_keys: names::<S>(),
        filters,
        includes: names::<I>(),
        paginated,
    }
}

/// The typed value of a name. The table keys queries by wire name (the cache hashes them,
/// the state file stores them), and every name it holds came from `names::<T>()` (a
/// remembered one is checked by `Resource::sort_key` / `include`), so this always finds it.
fn typed<T: Wire>(name: &str) -> Option<T> {
    T::ALL.iter().copied().find(|v| v.wire() == name)
}

/// The sort of a spec, typed.
fn sort_of<T: Wire>(spec: &QuerySpec) -> Option<T> {
    typed(spec.sort_by)
}

/// The includes of a spec, typed.
fn includes_of<T: Wire>(spec: &QuerySpec) -> Vec<T> {
    spec.includes.iter().filter_map(|i| typed(i)).collect()
}

const fn col(
    id: ColumnId,
    title: &'static str,
    min: u16,
    ideal: u16,
    priority: u8,
    sort: Option<&'static str>,
    include: Option<&'static str>,
) -> Column {
    Column {
        id,
        title,
        min,
        ideal,
        priority,
        align: Align::Left,
        sort,
        also_sorts: &[],
        include,
    }
}

/// The column also shows the order of these sort keys.
const fn also_sorts(mut c: Column, keys: &'static [&'static str]) -> Column {
    c.also_sorts = keys;
    c
}

impl Column {
    /// Whether the table is sorted by what this column shows; `Some(true)` when by its own
    /// key, `Some(false)` by another it shows (then the header names the key).
    pub fn sorted_by(&self, key: &str) -> Option<bool> {
        if self.sort == Some(key) {
            Some(true)
        } else if self.also_sorts.contains(&key) {
            Some(false)
        } else {
            None
        }
    }
}

const fn right(mut c: Column) -> Column {
    c.align = Align::Right;
    c
}

/// The timestamp columns contacts and deals share (projects rank `Updated` differently).
const CREATED: Column = col(
    ColumnId::Created,
    "Created",
    16,
    16,
    6,
    Some("created_at"),
    None,
);
const UPDATED: Column = col(
    ColumnId::Updated,
    "Updated",
    16,
    16,
    5,
    Some("updated_at"),
    None,
);

/// The filters deals and projects share.
const NAME_STATUS_FILTERS: &[FilterField] = &[
    FilterField {
        key: "name",
        label: "Name",
        kind: FilterKind::Text,
    },
    FilterField {
        key: "status",
        label: "Status",
        kind: FilterKind::Status,
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors_use_the_seed_lists() {
        for r in TabKind::ALL.map(Resource::of) {
            assert_eq!(TabKind::ALL[r.kind.index()], r.kind);
            for c in r.columns {
                if let Some(s) = c.sort {
                    assert!(r.sort_keys.contains(&s), "{s} is not a seed sort key");
                }
                for s in c.also_sorts {
                    assert!(r.sort_keys.contains(s), "{s} is not a seed sort key");
                }
                if let Some(i) = c.include {
                    assert!(r.includes.contains(&i), "{i} is not a seed include");
                }
            }
        }
    }

    #[test]
    fn tabs_cycle_through_every_resource() {
        let mut k = TabKind::ALL[0];
        for _ in TabKind::ALL {
            assert_eq!(k.next().prev(), k);
            k = k.next();
        }
        assert_eq!(k, TabKind::ALL[0]);
        for k in TabKind::ALL {
            assert_eq!(TabKind::for_action(k.names().switch_action), Some(k));
        }
    }

    /// A sort key is shown by at most one column (its header carries the arrow the title
    /// speaks of); on Contacts, where `s` steps through first and last name, by exactly one.
    #[test]
    fn every_sort_key_has_at_most_one_column() {
        for r in TabKind::ALL.map(Resource::of) {
            for key in &r.sort_keys {
                let shown = r
                    .columns
                    .iter()
                    .filter(|c| c.sorted_by(key).is_some())
                    .count();
                let want = if r.kind == TabKind::Contacts {
                    1..=1
                } else {
                    0..=1
                };
                assert!(
                    want.contains(&shown),
                    "{:?} sort key {key}: {shown}",
                    r.kind
                );
            }
        }
    }
}
