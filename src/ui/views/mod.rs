//! Screens drawn around the shared widgets: the filter bar and the too-small notice.

pub mod filter_bar;
pub mod pipeline;
pub mod timeline;
