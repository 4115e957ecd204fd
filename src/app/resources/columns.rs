//! A tab's chosen columns (`:columns`, saved views): which of its resource's columns it
//! shows, in which order. Pages are always built with every column of the descriptor (the
//! cache holds them that way); a tab showing a choice gets each page's cells picked and
//! ordered to match (`project`). The choice stays a `&'static [Column]` like the descriptor's,
//! so the table, its fitting and its header clicks read it unchanged: each distinct choice is
//! built once and kept (a handful per session; a tab has at most a few columns to arrange).

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

use super::{Column, ColumnId, Descriptor, Resource};
use crate::app::table::record::FetchedPage;

type Chosen = HashMap<(Resource, Vec<ColumnId>), &'static [Column]>;

static CHOSEN: LazyLock<Mutex<Chosen>> = LazyLock::new(|| Mutex::new(HashMap::new()));

/// The descriptor's columns with ids `ids`, in that order (unknown ids skipped).
fn chosen(kind: Resource, ids: &[ColumnId]) -> &'static [Column] {
    let all = Descriptor::of(kind).columns;
    if ids.len() == all.len() && ids.iter().zip(all).all(|(i, c)| *i == c.id) {
        return all;
    }
    let mut map = CHOSEN.lock().unwrap_or_else(|e| e.into_inner());
    map.entry((kind, ids.to_vec())).or_insert_with(|| {
        let cols: Vec<Column> = ids
            .iter()
            .filter_map(|id| all.iter().find(|c| c.id == *id).copied())
            .collect();
        Box::leak(cols.into_boxed_slice())
    })
}

impl Descriptor {
    /// Every column the resource has, in the descriptor's order.
    pub fn all_columns(&self) -> &'static [Column] {
        Descriptor::of(self.kind).columns
    }

    /// Shows these columns, in this order (at least one; unknown ids are skipped).
    pub fn choose_columns(&mut self, ids: &[ColumnId]) {
        let cols = chosen(self.kind, ids);
        if !cols.is_empty() {
            self.columns = cols;
        }
    }

    /// Whether the columns are the descriptor's own.
    pub fn default_columns(&self) -> bool {
        std::ptr::eq(self.columns, self.all_columns())
    }

    /// The column ids shown, in order.
    pub fn column_ids(&self) -> Vec<ColumnId> {
        self.columns.iter().map(|c| c.id).collect()
    }
}

/// A page built with every column, its cells picked and ordered for `shown`.
pub fn project(page: &FetchedPage, all: &[Column], shown: &[Column]) -> FetchedPage {
    let at: Vec<Option<usize>> = shown
        .iter()
        .map(|c| all.iter().position(|a| a.id == c.id))
        .collect();
    let mut out = page.clone();
    for r in &mut out.records {
        let cells = std::mem::take(&mut r.cells);
        r.cells = at
            .iter()
            .map(|i| {
                i.and_then(|i| cells.get(i).cloned())
                    .unwrap_or_else(crate::app::table::record::Cell::missing)
            })
            .collect();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_choice_is_built_once_and_the_default_is_the_descriptor() {
        let mut r = Descriptor::of(Resource::Deals);
        assert!(r.default_columns());
        r.choose_columns(&[ColumnId::Value, ColumnId::Name]);
        assert_eq!(r.column_ids(), [ColumnId::Value, ColumnId::Name]);
        let first = r.columns;
        r.choose_columns(&[ColumnId::Value, ColumnId::Name]);
        assert!(std::ptr::eq(first, r.columns));
        r.choose_columns(&r.all_columns().iter().map(|c| c.id).collect::<Vec<_>>());
        assert!(r.default_columns());
        r.choose_columns(&[]);
        assert!(r.default_columns(), "an empty choice is refused");
    }
}
