//! Projects on the dashboard: the tab's key, its columns and cells, and the typed query built
//! from a tab's spec.

use super::{Column, ColumnId, Tab, col, includes_of, right, sort_of};
use crate::api::{Project, ProjectQuery};
use crate::app::table::record::{
    Cell, CellFormat, TableRecord, related_cell, status_cell, time_cell,
};
use crate::app::table::spec::QuerySpec;

pub(super) const TAB: Tab = Tab { columns: COLUMNS };

const COLUMNS: &[Column] = &[
    col(ColumnId::Name, 10, 28, 0, Some("name"), None),
    col(ColumnId::Status, 6, 11, 1, Some("status"), None),
    col(ColumnId::Start, 10, 16, 3, Some("start_date"), None),
    col(ColumnId::End, 10, 16, 4, Some("end_date"), None),
    col(ColumnId::Owner, 8, 18, 2, None, Some("owner")),
    right(col(ColumnId::Members, 7, 7, 5, None, Some("members"))),
    col(ColumnId::Updated, 16, 16, 6, Some("updated_at"), None),
];

pub(super) fn query(spec: &QuerySpec) -> ProjectQuery {
    ProjectQuery {
        name: spec.text("name"),
        status: spec.text("status"),
        sort_by: sort_of(spec),
        sort_direction: Some(spec.direction),
        include: includes_of(spec),
        paging: spec.paging(),
    }
}

impl TableRecord for Project {
    fn cell(&self, column: ColumnId, format: &CellFormat) -> Cell {
        let zone = &format.zone;
        match column {
            ColumnId::Name => Cell::opt(self.name.as_ref()),
            ColumnId::Status => status_cell(self.status.as_deref()),
            ColumnId::Start => time_cell(self.start_date.as_ref(), zone),
            ColumnId::End => time_cell(self.end_date.as_ref(), zone),
            ColumnId::Owner | ColumnId::Assignee => related_cell(self.owner.as_ref()),
            ColumnId::Members => Cell::opt(self.members.as_ref().map(|m| m.len().to_string())),
            ColumnId::Created => time_cell(self.created_at.as_ref(), zone),
            ColumnId::Updated => time_cell(self.updated_at.as_ref(), zone),
            _ => Cell::missing(),
        }
    }

    fn status(&self) -> Option<&str> {
        self.status.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use crate::app::resources::{Descriptor, Resource};

    #[test]
    fn columns_need_the_seed_includes() {
        assert_eq!(
            Descriptor::of(Resource::Projects).default_includes(),
            ["members", "owner"]
        );
    }
}
