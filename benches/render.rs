//! Frame cost: `ui::render` of each tab with a 100-row page, at 80x24 and 200x50, through
//! ratatui's `Terminal::draw` on a `TestBackend` (render into the buffer, diff, flush); and
//! `ratatui_diff_only`, the same draw with the frame copied instead of rendered (the floor);
//! `render_only`, our rendering into the buffer without the diff.

#[path = "support/mod.rs"]
mod support;

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use crmdash::app::{Now, Resource};
use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use support::{Fixture, key_msg};

fn tab_key(kind: Resource) -> char {
    match kind {
        Resource::Contacts => '1',
        Resource::Deals => '2',
        Resource::Projects => '3',
    }
}

fn render(c: &mut Criterion) {
    let fixture = Fixture::new();
    let mut group = c.benchmark_group("render");
    for (w, h) in [(80u16, 24u16), (200, 50)] {
        let mut app = fixture.loaded_app((w, h));
        for kind in Resource::ALL {
            app.update(key_msg(KeyCode::Char(tab_key(kind))), Now::current());
            assert_eq!(app.tab().records().len(), 100, "a 100-row page is shown");
            let mut term = Terminal::new(TestBackend::new(w, h)).expect("terminal");
            // Unchanged screen: the whole frame is drawn and diffed, nothing is flushed.
            group.bench_function(format!("{}/{w}x{h}/same", kind.noun()), |b| {
                b.iter(|| {
                    term.draw(|f| crmdash::ui::render(black_box(&app), f))
                        .expect("draw");
                })
            });
            // Our part alone: the frame rendered into the buffer, without ratatui's diff and
            // flush (the buffer is reset after each, as `draw` resets its spare buffer).
            group.bench_function(format!("{}/{w}x{h}/render_only", kind.noun()), |b| {
                b.iter(|| {
                    let mut frame = term.get_frame();
                    crmdash::ui::render(black_box(&app), &mut frame);
                    term.current_buffer_mut().reset();
                })
            });
            // The selection moves each frame: two rows change, as when browsing.
            let mut down = true;
            group.bench_function(format!("{}/{w}x{h}/move", kind.noun()), |b| {
                b.iter(|| {
                    let key = if down { KeyCode::Down } else { KeyCode::Up };
                    down = !down;
                    app.update(key_msg(key), Now::current());
                    term.draw(|f| crmdash::ui::render(black_box(&app), f))
                        .expect("draw");
                })
            });
        }
        // The floor ratatui itself sets: a draw whose frame is only copied from a finished
        // one (the deals tab), then diffed against the same screen, cell by cell.
        app.update(key_msg(KeyCode::Char('2')), Now::current());
        let mut term = Terminal::new(TestBackend::new(w, h)).expect("terminal");
        let done = term
            .draw(|f| crmdash::ui::render(&app, f))
            .expect("draw")
            .buffer
            .clone();
        group.bench_function(format!("ratatui_diff_only/{w}x{h}"), |b| {
            b.iter(|| {
                term.draw(|f| f.buffer_mut().content.clone_from(&done.content))
                    .expect("draw");
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = support::criterion();
    targets = render
}
criterion_main!(benches);
