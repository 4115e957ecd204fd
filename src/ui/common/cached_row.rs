//! Draws a row from the cache `update()` keeps valid (`app::chrome`): copied while its key
//! holds, drawn anew (and kept) when the key or the area changed.

use std::cell::{Cell, RefCell};

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use crate::app::chrome::{Builds, Row};

/// Which line's build count a fresh draw adds to.
#[derive(Debug, Clone, Copy)]
pub enum Which {
    Status,
    Hint,
}

pub fn draw(
    buf: &mut Buffer,
    area: Rect,
    (slot, key): (&RefCell<Option<Row>>, u64),
    (builds, which): (&Cell<Builds>, Which),
    build: impl Fn(&mut Buffer, Rect),
) {
    let area = area.intersection(buf.area);
    if area.is_empty() {
        return;
    }
    if let Some(row) = slot
        .borrow()
        .as_ref()
        .filter(|r| r.key == key && r.area == area)
    {
        copy_in(buf, area, &row.cells);
        #[cfg(debug_assertions)]
        {
            let mut fresh = Buffer::empty(area);
            build(&mut fresh, area);
            assert_eq!(
                fresh.content, row.cells,
                "a cached row differs from a fresh one: an input is missing from its key (app::chrome)"
            );
        }
        return;
    }
    build(buf, area);
    let cells = (area.y..area.bottom())
        .flat_map(|y| {
            let at = buf.index_of(area.x, y);
            buf.content[at..at + usize::from(area.width)].to_vec()
        })
        .collect();
    *slot.borrow_mut() = Some(Row { key, area, cells });
    let mut b = builds.get();
    match which {
        Which::Status => b.status += 1,
        Which::Hint => b.hint += 1,
    }
    builds.set(b);
}

fn copy_in(buf: &mut Buffer, area: Rect, cells: &[ratatui::buffer::Cell]) {
    let w = usize::from(area.width);
    for (row, y) in cells.chunks(w).zip(area.y..area.bottom()) {
        let at = buf.index_of(area.x, y);
        buf.content[at..at + w].clone_from_slice(row);
    }
}
