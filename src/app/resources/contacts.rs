//! Contacts: their columns and filters (name, email, dates), typed sorts and includes, cells
//! and query builder. The seed does not promise `meta` for this list.

use super::{
    CREATED, Column, ColumnId, FilterField, FilterKind, Names, Resource, TabKind, UPDATED,
    also_sorts, col, describe, includes_of, sort_of,
};
use crate::api::{Contact, ContactInclude, ContactQuery, ContactSort};
use crate::app::keymap::Action;
use crate::app::table::record::{
    Cell, CellFormat, TableRecord, assignee, related_list_cell, time_cell,
};
use crate::app::table::spec::QuerySpec;

pub(super) const NAMES: Names = Names {
    title: "Contacts",
    noun: "contacts",
    singular: "Contact",
    switch_action: Action::TabContacts,
    switch_description: "Contacts tab",
};

const COLUMNS: &[Column] = &[
    also_sorts(
        col(ColumnId::Name, "Name", 10, 24, 0, Some("last_name"), None),
        &["first_name"],
    ),
    col(ColumnId::Email, "Email", 10, 28, 1, Some("email"), None),
    col(ColumnId::Phone, "Phone", 8, 16, 4, None, None),
    col(
        ColumnId::Accounts,
        "Accounts",
        8,
        22,
        3,
        None,
        Some("accounts"),
    ),
    col(
        ColumnId::Assignee,
        "Assignee",
        8,
        18,
        2,
        None,
        Some("assigned_user"),
    ),
    CREATED,
    UPDATED,
];

const FILTERS: &[FilterField] = &[
    FilterField {
        key: "full_name",
        label: "Full name",
        kind: FilterKind::Text,
    },
    FilterField {
        key: "email",
        label: "Email",
        kind: FilterKind::Text,
    },
    FilterField {
        key: "created_after",
        label: "Created after",
        kind: FilterKind::Date,
    },
    FilterField {
        key: "updated_after",
        label: "Updated after",
        kind: FilterKind::Date,
    },
];

pub(super) fn resource() -> Resource {
    describe::<ContactSort, ContactInclude>(TabKind::Contacts, COLUMNS, FILTERS, false)
}

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
    use super::*;

    #[test]
    fn columns_need_the_seed_includes() {
        assert_eq!(resource().default_includes(), ["accounts", "assigned_user"]);
    }
}
