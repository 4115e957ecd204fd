//! The generic paged table every tab is: one tab's state, its query as data, the rows as
//! shown and the filter bar. Nothing here knows a particular resource (see `resources`).

pub mod filter;
pub mod record;
pub mod spec;
pub mod tab;
