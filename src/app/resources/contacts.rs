//! Contacts on the dashboard: the tab's key, its columns and cells, and the typed query built
//! from a tab's spec.

use super::{CREATED, Column, ColumnId, Tab, UPDATED, also_sorts, col, includes_of, sort_of};
use crate::api::{Contact, ContactQuery};
use crate::app::table::record::{
    Cell, CellFormat, TableRecord, assignee, related_list_cell, time_cell,
};
use crate::app::table::spec::QuerySpec;

pub(super) const TAB: Tab = Tab { columns: COLUMNS };

const COLUMNS: &[Column] = &[
    also_sorts(
        col(ColumnId::Name, 10, 24, 0, Some("last_name"), None),
        &["first_name"],
    ),
    col(ColumnId::Email, 10, 28, 1, Some("email"), None),
    col(ColumnId::Phone, 8, 16, 4, None, None),
    col(ColumnId::Accounts, 8, 22, 3, None, Some("accounts")),
    col(ColumnId::Assignee, 8, 18, 2, None, Some("assigned_user")),
    CREATED,
    UPDATED,
];

pub(super) fn query(spec: &QuerySpec) -> ContactQuery {
    ContactQuery {
        email: spec.text("email"),
        full_name: spec.text("full_name"),
        created_after: spec.instant("created_after"),
        updated_after: spec.instant("updated_after"),
        sort_by: sort_of(spec),
        sort_direction: Some(spec.direction),
        include: includes_of(spec),
        paging: spec.paging(),
    }
}

impl TableRecord for Contact {
    fn cell(&self, column: ColumnId, format: &CellFormat) -> Cell {
        let zone = &format.zone;
        match column {
            ColumnId::Name => Cell::plain(self.full_name()),
            ColumnId::Email => Cell::opt(self.email.as_ref()),
            ColumnId::Phone => Cell::opt(self.phone.as_ref()),
            ColumnId::Accounts | ColumnId::Account => related_list_cell(self.accounts.as_ref()),
            ColumnId::Assignee | ColumnId::Owner => {
                assignee(self.assigned_user.as_ref(), self.assigned_users.as_ref())
            }
            ColumnId::Created => time_cell(self.created_at.as_ref(), zone),
            ColumnId::Updated => time_cell(self.updated_at.as_ref(), zone),
            _ => Cell::missing(),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::app::resources::{Descriptor, Resource};

    #[test]
    fn columns_need_the_seed_includes() {
        assert_eq!(
            Descriptor::of(Resource::Contacts).default_includes(),
            ["accounts", "assigned_user"]
        );
    }
}
