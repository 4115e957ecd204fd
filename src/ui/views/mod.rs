//! Screens drawn around the shared widgets: the filter bar and the too-small notice.

pub mod filter_bar;
pub mod pipeline;
pub mod timeline;

/// How far a reading went before `Esc` stopped it: "Stopped after 1 page", never "1 pages"
/// nor "after 0 pages".
pub fn stopped_after(pages: u32) -> String {
    match pages {
        0 => "Stopped before the first page came".to_string(),
        1 => "Stopped after 1 page".to_string(),
        n => format!("Stopped after {n} pages"),
    }
}
