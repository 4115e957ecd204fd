//! Deals on the dashboard: the tab's key, its columns and cells, and the typed query built
//! from a tab's spec.

use super::{CREATED, Column, ColumnId, Tab, UPDATED, col, includes_of, right, sort_of};
use crate::api::{Deal, DealQuery};
use crate::app::table::record::{
    Cell, CellFormat, TableRecord, assignee, money_cell, related_cell, status_cell, time_cell,
};
use crate::app::table::spec::QuerySpec;

pub(super) const TAB: Tab = Tab { columns: COLUMNS };

const COLUMNS: &[Column] = &[
    col(ColumnId::Name, 10, 28, 0, Some("name"), None),
    col(ColumnId::Status, 6, 11, 1, Some("status"), None),
    right(col(ColumnId::Value, 10, 18, 1, Some("value"), None)),
    col(ColumnId::Account, 8, 22, 3, None, Some("account")),
    col(ColumnId::Assignee, 8, 18, 4, None, Some("assigned_user")),
    CREATED,
    UPDATED,
];

pub(super) fn query(spec: &QuerySpec) -> DealQuery {
    DealQuery {
        name: spec.text("name"),
        status: spec.text("status"),
        sort_by: sort_of(spec),
        sort_direction: Some(spec.direction),
        include: includes_of(spec),
        paging: spec.paging(),
    }
}

impl TableRecord for Deal {
    fn cell(&self, column: ColumnId, format: &CellFormat) -> Cell {
        let zone = &format.zone;
        match column {
            ColumnId::Name => Cell::opt(self.name.as_ref()),
            ColumnId::Status => status_cell(self.status.as_deref()),
            ColumnId::Value => money_cell(self.value.as_ref(), self.currency(format).as_deref()),
            ColumnId::Account | ColumnId::Accounts => related_cell(self.account.as_ref()),
            ColumnId::Assignee | ColumnId::Owner => {
                assignee(self.assigned_user.as_ref(), self.assigned_users.as_ref())
            }
            ColumnId::Created => time_cell(self.created_at.as_ref(), zone),
            ColumnId::Updated => time_cell(self.updated_at.as_ref(), zone),
            _ => Cell::missing(),
        }
    }

    fn status(&self) -> Option<&str> {
        self.status.as_deref()
    }

    fn currency(&self, format: &CellFormat) -> Option<String> {
        self.value.as_ref()?;
        crate::insights::pipeline::deal_currency(self, format.currency.as_deref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{DealInclude, DealSort};
    use crate::api::{ListQuery, SortDirection, decode_page};
    use crate::app::layout::{column_at, fit_columns};
    use crate::app::resources::{Descriptor, Resource};
    use crate::app::table::record::{CellStyle, DisplayZone, StatusTone, build_page};
    use crate::app::table::spec::FilterValue;

    #[test]
    fn descriptor_uses_the_seed_lists() {
        let d = Descriptor::of(Resource::Deals);
        assert_eq!(
            d.sort_keys,
            ["created_at", "updated_at", "name", "status", "value"]
        );
        assert_eq!(d.default_includes(), ["account", "assigned_user"]);
    }

    #[test]
    fn spec_becomes_the_typed_query() {
        let spec = QuerySpec {
            kind: Resource::Deals,
            filters: vec![("status", FilterValue::Text("won".into()))],
            sort_by: "value",
            direction: SortDirection::Desc,
            includes: vec!["account", "assigned_user"],
            page: 2,
            per_page: 50,
        };
        let q = query(&spec);
        assert_eq!(q.sort_by, Some(DealSort::Value));
        assert_eq!(q.include, [DealInclude::Account, DealInclude::AssignedUser]);
        assert_eq!(q.status.as_deref(), Some("won"));
        assert!(q.to_pairs().unwrap().contains(&("page", "2".to_string())));
        assert_eq!(spec.filter_summary(), "status=won");
    }

    #[test]
    fn cells_format_money_dates_and_status() {
        let body = br#"{"data":[{"id":"7","name":"Big\nDeal","status":"won","value":"1200.5",
            "updated_at":"2026-01-02 03:04:05","account":{"id":"a1","name":"Acme"}}],
            "meta":{"current_page":1,"last_page":1,"per_page":25,"total":1}}"#;
        let page = decode_page::<Deal>(body).unwrap();
        let cols = [
            ColumnId::Name,
            ColumnId::Status,
            ColumnId::Value,
            ColumnId::Account,
            ColumnId::Updated,
            ColumnId::Created,
        ];
        let p = build_page(page, &cols, DisplayZone::Named(chrono_tz::Tz::UTC));
        let texts: Vec<&str> = p.records[0].cells.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "Big Deal",
                "won",
                "1,200.50",
                "Acme",
                "2026-01-02 03:04",
                "-"
            ]
        );
        assert_eq!(
            p.records[0].cells[1].style,
            CellStyle::Status(StatusTone::Good)
        );
        assert_eq!(p.meta.unwrap().total, Some(1));
    }

    #[test]
    fn narrow_terminals_hide_low_priority_columns() {
        let deals = Descriptor::of(Resource::Deals);
        let wide = fit_columns(deals.columns, 158);
        assert_eq!(wide.len(), 7);
        assert_eq!(wide.iter().map(|c| c.1).sum::<u16>() + 6, 158);
        let narrow = fit_columns(deals.columns, 78);
        let names: Vec<&str> = narrow
            .iter()
            .map(|(i, _)| deals.columns[*i].title)
            .collect();
        assert!(names.starts_with(&["Name", "Status", "Value"]), "{names:?}");
        assert!(!names.contains(&"Created"));
        let used: u16 = narrow.iter().map(|c| c.1).sum::<u16>() + narrow.len() as u16 - 1;
        assert!(used <= 78);
        assert_eq!(column_at(&narrow, 0), Some(0));
    }
}
