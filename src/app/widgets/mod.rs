//! Widget state shared by the screen and the dialogs: a text input, pre-wrapped scrolling
//! text, and the fields of a form.

pub mod form_fields;
pub mod list_cursor;
pub mod scroll;
pub mod text_input;
