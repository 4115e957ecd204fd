//! One descriptor per tab: columns, sort keys, filters and includes, as data. The three tabs are
//! one generic paged table driven by these descriptors, not three copies of a table.

use serde::{Deserialize, Serialize};

use crate::api::{ContactInclude, ContactSort, DealInclude, DealSort, ProjectInclude, ProjectSort};

/// The dashboard's tabs, in display order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TabKind {
    Contacts,
    Deals,
    Projects,
}

impl TabKind {
    pub const ALL: [TabKind; 3] = [TabKind::Contacts, TabKind::Deals, TabKind::Projects];

    pub fn index(self) -> usize {
        match self {
            TabKind::Contacts => 0,
            TabKind::Deals => 1,
            TabKind::Projects => 2,
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            TabKind::Contacts => "Contacts",
            TabKind::Deals => "Deals",
            TabKind::Projects => "Projects",
        }
    }

    /// Lower-case plural, as in "No deals match status=won".
    pub fn noun(self) -> &'static str {
        match self {
            TabKind::Contacts => "contacts",
            TabKind::Deals => "deals",
            TabKind::Projects => "projects",
        }
    }
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
    /// Exactly the seed's sort keys, in its order.
    pub sort_keys: Vec<&'static str>,
    pub filters: &'static [FilterField],
    /// Exactly the seed's relations.
    pub includes: Vec<&'static str>,
    /// Whether the seed promises `meta` (contacts: not said).
    pub paginated: bool,
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
        include,
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

const CONTACT_COLUMNS: &[Column] = &[
    col(ColumnId::Name, "Name", 10, 24, 0, Some("last_name"), None),
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

const DEAL_COLUMNS: &[Column] = &[
    col(ColumnId::Name, "Name", 10, 28, 0, Some("name"), None),
    col(ColumnId::Status, "Status", 6, 11, 1, Some("status"), None),
    right(col(ColumnId::Value, "Value", 8, 14, 1, Some("value"), None)),
    col(
        ColumnId::Account,
        "Account",
        8,
        22,
        3,
        None,
        Some("account"),
    ),
    col(
        ColumnId::Assignee,
        "Assignee",
        8,
        18,
        4,
        None,
        Some("assigned_user"),
    ),
    CREATED,
    UPDATED,
];

const PROJECT_COLUMNS: &[Column] = &[
    col(ColumnId::Name, "Name", 10, 28, 0, Some("name"), None),
    col(ColumnId::Status, "Status", 6, 11, 1, Some("status"), None),
    col(
        ColumnId::Start,
        "Start",
        10,
        16,
        3,
        Some("start_date"),
        None,
    ),
    col(ColumnId::End, "End", 10, 16, 4, Some("end_date"), None),
    col(ColumnId::Owner, "Owner", 8, 18, 2, None, Some("owner")),
    right(col(
        ColumnId::Members,
        "Members",
        7,
        7,
        5,
        None,
        Some("members"),
    )),
    col(
        ColumnId::Updated,
        "Updated",
        16,
        16,
        6,
        Some("updated_at"),
        None,
    ),
];

const CONTACT_FILTERS: &[FilterField] = &[
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

impl Resource {
    pub fn of(kind: TabKind) -> Resource {
        match kind {
            TabKind::Contacts => Resource {
                kind,
                columns: CONTACT_COLUMNS,
                sort_keys: ContactSort::ALL.iter().map(|s| s.as_str()).collect(),
                filters: CONTACT_FILTERS,
                includes: ContactInclude::ALL.iter().map(|s| s.as_str()).collect(),
                paginated: false,
            },
            TabKind::Deals => Resource {
                kind,
                columns: DEAL_COLUMNS,
                sort_keys: DealSort::ALL.iter().map(|s| s.as_str()).collect(),
                filters: NAME_STATUS_FILTERS,
                includes: DealInclude::ALL.iter().map(|s| s.as_str()).collect(),
                paginated: true,
            },
            TabKind::Projects => Resource {
                kind,
                columns: PROJECT_COLUMNS,
                sort_keys: ProjectSort::ALL.iter().map(|s| s.as_str()).collect(),
                filters: NAME_STATUS_FILTERS,
                includes: ProjectInclude::ALL.iter().map(|s| s.as_str()).collect(),
                paginated: true,
            },
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors_use_the_seed_lists() {
        let d = Resource::of(TabKind::Deals);
        assert_eq!(
            d.sort_keys,
            ["created_at", "updated_at", "name", "status", "value"]
        );
        assert_eq!(d.default_includes(), ["account", "assigned_user"]);
        let c = Resource::of(TabKind::Contacts);
        assert_eq!(c.default_includes(), ["accounts", "assigned_user"]);
        let p = Resource::of(TabKind::Projects);
        assert_eq!(p.default_includes(), ["members", "owner"]);
        for r in TabKind::ALL.map(Resource::of) {
            for c in r.columns {
                if let Some(s) = c.sort {
                    assert!(r.sort_keys.contains(&s), "{s} is not a seed sort key");
                }
                if let Some(i) = c.include {
                    assert!(r.includes.contains(&i), "{i} is not a seed include");
                }
            }
        }
    }
}
