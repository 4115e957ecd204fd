//! The three resources of the Public API v1 and the seed's facts about each: its path and
//! nouns, sort keys, filters, includes and whether its list promises `meta`, and the columns a
//! list of it shows. Everything above (the client, the mirror, the sandbox, the command line,
//! the output writers and the dashboard) names a resource with this one enum and reads these
//! facts here, so adding a resource is its facts in this file plus its dashboard file
//! (`app/resources/`: column widths and cells).
//!
//! Nothing here depends on the rest of the crate: it is the floor the other modules stand on.

use serde::{Deserialize, Serialize};

/// A listable resource, in the order the dashboard's tabs show them.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum Resource {
    Contacts,
    Deals,
    Projects,
}

/// How a filter field reads its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilterKind {
    /// Sent as typed.
    Text,
    /// Sent as typed; the service matches whole values only (`email`: `gmail` finds
    /// nothing), which the filter bar and an empty result say.
    WholeText,
    /// An instant: the CLI's time grammar (an inline error on bad input in the dashboard).
    Date,
    /// Free text, with the values seen so far offered.
    Status,
}

/// A list filter of the seed: its query parameter, how it is labelled and read.
#[derive(Debug, Clone, Copy)]
pub struct FilterField {
    /// Query parameter name.
    pub key: &'static str,
    pub label: &'static str,
    pub kind: FilterKind,
}

/// What a column of a list shows. Saved views, `:columns` and the command line's `--view`
/// name columns by their lower-cased [`ColumnId::title`].
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

impl ColumnId {
    /// As in a table header: "Updated".
    pub const fn title(self) -> &'static str {
        match self {
            ColumnId::Name => "Name",
            ColumnId::Email => "Email",
            ColumnId::Phone => "Phone",
            ColumnId::Accounts => "Accounts",
            ColumnId::Account => "Account",
            ColumnId::Assignee => "Assignee",
            ColumnId::Status => "Status",
            ColumnId::Value => "Value",
            ColumnId::Start => "Start",
            ColumnId::End => "End",
            ColumnId::Owner => "Owner",
            ColumnId::Members => "Members",
            ColumnId::Created => "Created",
            ColumnId::Updated => "Updated",
        }
    }
}

/// One resource's facts, as the seed states them (and the columns its lists show).
struct Facts {
    noun: &'static str,
    singular: &'static str,
    title: &'static str,
    title_singular: &'static str,
    sort_keys: &'static [&'static str],
    filters: &'static [FilterField],
    includes: &'static [&'static str],
    paginated: bool,
    columns: &'static [ColumnId],
}

const fn filter(key: &'static str, label: &'static str, kind: FilterKind) -> FilterField {
    FilterField { key, label, kind }
}

/// The filters deals and projects share.
const NAME_STATUS_FILTERS: &[FilterField] = &[
    filter("name", "Name", FilterKind::Text),
    filter("status", "Status", FilterKind::Status),
];

const CONTACTS: Facts = Facts {
    noun: "contacts",
    singular: "contact",
    title: "Contacts",
    title_singular: "Contact",
    sort_keys: &[
        "created_at",
        "updated_at",
        "first_name",
        "last_name",
        "email",
    ],
    filters: &[
        filter("full_name", "Full name", FilterKind::Text),
        filter("email", "Email", FilterKind::WholeText),
        filter("created_after", "Created after", FilterKind::Date),
        filter("updated_after", "Updated after", FilterKind::Date),
    ],
    includes: &["accounts", "assigned_user", "assigned_users"],
    // The seed does not say whether the contacts list carries `meta`.
    paginated: false,
    columns: &[
        ColumnId::Name,
        ColumnId::Email,
        ColumnId::Phone,
        ColumnId::Accounts,
        ColumnId::Assignee,
        ColumnId::Created,
        ColumnId::Updated,
    ],
};

const DEALS: Facts = Facts {
    noun: "deals",
    singular: "deal",
    title: "Deals",
    title_singular: "Deal",
    sort_keys: &["created_at", "updated_at", "name", "status", "value"],
    filters: NAME_STATUS_FILTERS,
    includes: &["account", "contacts", "assigned_user", "assigned_users"],
    paginated: true,
    columns: &[
        ColumnId::Name,
        ColumnId::Status,
        ColumnId::Value,
        ColumnId::Account,
        ColumnId::Assignee,
        ColumnId::Created,
        ColumnId::Updated,
    ],
};

const PROJECTS: Facts = Facts {
    noun: "projects",
    singular: "project",
    title: "Projects",
    title_singular: "Project",
    sort_keys: &[
        "created_at",
        "updated_at",
        "name",
        "status",
        "start_date",
        "end_date",
    ],
    filters: NAME_STATUS_FILTERS,
    includes: &["owner", "members"],
    paginated: true,
    columns: &[
        ColumnId::Name,
        ColumnId::Status,
        ColumnId::Start,
        ColumnId::End,
        ColumnId::Owner,
        ColumnId::Members,
        ColumnId::Updated,
    ],
};

impl Resource {
    /// Every resource, in tab order.
    pub const ALL: [Resource; 3] = [Resource::Contacts, Resource::Deals, Resource::Projects];

    fn facts(self) -> &'static Facts {
        match self {
            Resource::Contacts => &CONTACTS,
            Resource::Deals => &DEALS,
            Resource::Projects => &PROJECTS,
        }
    }

    /// Its position in [`Resource::ALL`] (and in the tab bar).
    pub fn index(self) -> usize {
        self as usize
    }

    /// The next one in tab order, wrapping around.
    pub fn next(self) -> Resource {
        Resource::ALL[(self.index() + 1) % Resource::ALL.len()]
    }

    /// The previous one in tab order, wrapping around.
    pub fn prev(self) -> Resource {
        let n = Resource::ALL.len();
        Resource::ALL[(self.index() + n - 1) % n]
    }

    /// Lower-case plural, also its path under `/public/v1/` and its name in the mirror, in
    /// saved views and on the command line: "deals".
    pub fn noun(self) -> &'static str {
        self.facts().noun
    }

    /// One record, lower-case: "deal".
    pub fn singular(self) -> &'static str {
        self.facts().singular
    }

    /// As in the tab bar and headings: "Deals".
    pub fn title(self) -> &'static str {
        self.facts().title
    }

    /// One record, as in the detail pane's title: "Deal 7".
    pub fn title_singular(self) -> &'static str {
        self.facts().title_singular
    }

    /// The seed's sort keys, in its order.
    pub fn sort_keys(self) -> &'static [&'static str] {
        self.facts().sort_keys
    }

    /// The seed's filters, in its order.
    pub fn filters(self) -> &'static [FilterField] {
        self.facts().filters
    }

    /// The relations the seed lets a list include, in its order.
    pub fn includes(self) -> &'static [&'static str] {
        self.facts().includes
    }

    /// Whether the seed promises `meta` on its list (contacts: not said).
    pub fn paginated(self) -> bool {
        self.facts().paginated
    }

    /// The columns a list of it shows, in their default order.
    pub fn columns(self) -> &'static [ColumnId] {
        self.facts().columns
    }

    /// The `&'static` spelling of a sort key read back from a file or typed by a user.
    pub fn sort_key(self, name: &str) -> Option<&'static str> {
        self.sort_keys().iter().copied().find(|k| *k == name)
    }

    /// The `&'static` spelling of a relation name.
    pub fn include(self, name: &str) -> Option<&'static str> {
        self.includes().iter().copied().find(|k| *k == name)
    }

    /// The resource a word names: `deals`, also `deal` or `Deals` (any case).
    pub fn named(word: &str) -> Option<Resource> {
        let w = word.trim().to_ascii_lowercase();
        Resource::ALL
            .into_iter()
            .find(|r| r.noun() == w || r.singular() == w)
    }

    /// The resources' nouns, for messages and completion.
    pub fn nouns() -> Vec<&'static str> {
        Resource::ALL.iter().map(|r| r.noun()).collect()
    }
}

impl std::fmt::Display for Resource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.noun())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_and_names_are_consistent() {
        for (i, r) in Resource::ALL.into_iter().enumerate() {
            assert_eq!(r.index(), i);
            assert_eq!(r.next().prev(), r);
            assert_eq!(Resource::named(r.noun()), Some(r));
            assert_eq!(Resource::named(r.singular()), Some(r));
            assert_eq!(Resource::named(r.title()), Some(r));
            assert_eq!(r.title().to_ascii_lowercase(), r.noun());
            assert_eq!(r.title_singular().to_ascii_lowercase(), r.singular());
            // The serde and clap spellings are the noun too (the mirror and views store it).
            assert_eq!(
                serde_json::to_string(&r).unwrap(),
                format!("\"{}\"", r.noun())
            );
            let v = clap::ValueEnum::to_possible_value(&r).unwrap();
            assert_eq!(v.get_name(), r.noun());
        }
        assert_eq!(Resource::named("accounts"), None);
    }
}
