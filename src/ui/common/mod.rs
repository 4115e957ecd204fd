//! Reusable widgets: the paged table, tabs, text input, modal frame, status bar, scroll text.

pub mod cached_row;
pub mod cell_text;
pub mod clusters;
pub mod fit;
pub mod form_rows;
pub mod frame_box;
pub mod modal;
pub mod picker_row;
pub mod profile_mark;
pub mod scroll_text;
pub mod status_bar;
pub mod table;
pub mod tabs;
pub mod text_input;
