//! The resources as the dashboard shows them, one file each (`contacts`, `deals`,
//! `projects`): the tab's key, its columns and cells, and its typed query builder; the seed's
//! facts (nouns, filters, sort keys, includes) are `crate::resource`'s. Adding a resource is
//! its facts there, its file here, and its arms in `tab_of` and
//! `QuerySpec::with_query`. The tabs are one generic paged table (`app::table`) driven by
//! these descriptors, not copies of a table.

mod columns;
mod contacts;
mod deals;
mod projects;

pub use crate::resource::{ColumnId, FilterField, FilterKind, Resource};
pub use columns::project;

use crate::api::ListQuery;
use crate::app::table::record::TableRecord;
use crate::app::table::spec::QuerySpec;

/// The tab shown on a first run (nothing remembered).
pub const FIRST_TAB: Resource = Resource::Deals;

/// A resource's dashboard file's part.
fn tab_of(kind: Resource) -> &'static Tab {
    match kind {
        Resource::Contacts => &contacts::TAB,
        Resource::Deals => &deals::TAB,
        Resource::Projects => &projects::TAB,
    }
}

/// What a resource's dashboard file adds to its facts: its table's columns (the key-map
/// action that switches to its tab is the key map's, `Action::tab`). The typed query builder is
/// the other part (`QuerySpec::with_query`): its type differs per resource.
pub(crate) struct Tab {
    pub columns: &'static [Column],
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

/// Everything the generic table needs to know about one resource.
#[derive(Debug, Clone)]
pub struct Descriptor {
    pub kind: Resource,
    pub columns: &'static [Column],
    /// The resource's facts, at hand for the table: `kind.sort_keys()` and so on.
    pub sort_keys: &'static [&'static str],
    pub filters: &'static [FilterField],
    pub includes: &'static [&'static str],
    pub paginated: bool,
}

impl Descriptor {
    pub fn of(kind: Resource) -> Descriptor {
        Descriptor {
            kind,
            columns: tab_of(kind).columns,
            sort_keys: kind.sort_keys(),
            filters: kind.filters(),
            includes: kind.includes(),
            paginated: kind.paginated(),
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
        self.kind.sort_key(name)
    }

    pub fn include(&self, name: &str) -> Option<&'static str> {
        self.kind.include(name)
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
            Resource::Contacts => w.run(contacts::query(self)),
            Resource::Deals => w.run(deals::query(self)),
            Resource::Projects => w.run(projects::query(self)),
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

/// The typed value of a name. The table keys queries by wire name (the cache hashes them,
/// the state file stores them), and every name it holds is one of the resource's facts (a
/// remembered one is checked by `Descriptor::sort_key` / `include`), which are the typed
/// lists' wire names (`api::query`'s tests check), so this always finds it.
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
    min: u16,
    ideal: u16,
    priority: u8,
    sort: Option<&'static str>,
    include: Option<&'static str>,
) -> Column {
    Column {
        id,
        title: id.title(),
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
const CREATED: Column = col(ColumnId::Created, 16, 16, 6, Some("created_at"), None);
const UPDATED: Column = col(ColumnId::Updated, 16, 16, 5, Some("updated_at"), None);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::keymap::Action;

    #[test]
    fn descriptors_use_the_seed_lists() {
        for r in Resource::ALL.map(Descriptor::of) {
            assert_eq!(Resource::ALL[r.kind.index()], r.kind);
            // The columns views and the command line name are the ones the table shows.
            let ids: Vec<ColumnId> = r.columns.iter().map(|c| c.id).collect();
            assert_eq!(ids, r.kind.columns(), "{:?}", r.kind);
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
        let mut k = Resource::ALL[0];
        for _ in Resource::ALL {
            assert_eq!(k.next().prev(), k);
            k = k.next();
        }
        assert_eq!(k, Resource::ALL[0]);
        for k in Resource::ALL {
            let switching: Vec<_> = Action::ALL.iter().filter(|a| a.tab() == Some(k)).collect();
            assert_eq!(switching.len(), 1, "{k:?}");
        }
    }

    /// A sort key is shown by at most one column (its header carries the arrow the title
    /// speaks of); on Contacts, where `s` steps through first and last name, by exactly one.
    #[test]
    fn every_sort_key_has_at_most_one_column() {
        for r in Resource::ALL.map(Descriptor::of) {
            for key in r.sort_keys {
                let shown = r
                    .columns
                    .iter()
                    .filter(|c| c.sorted_by(key).is_some())
                    .count();
                let want = if r.kind == Resource::Contacts {
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
