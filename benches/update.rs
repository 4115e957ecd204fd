//! `App::update` throughput for the keys a user browses with: row navigation, sort, tab switch
//! (every tab already loaded, so tab keys hit the cache; sort keys ask for a new page).

#[path = "support/mod.rs"]
mod support;

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use crmdash::app::Now;
use crossterm::event::KeyCode;

use support::{Fixture, key_msg};

fn update(c: &mut Criterion) {
    let fixture = Fixture::new();
    let mut group = c.benchmark_group("update");
    group.throughput(Throughput::Elements(1));
    let cases: [(&str, &[KeyCode]); 4] = [
        ("navigate_j_k", &[KeyCode::Char('j'), KeyCode::Char('k')]),
        ("first_last_g_G", &[KeyCode::Char('G'), KeyCode::Char('g')]),
        ("sort_s", &[KeyCode::Char('s')]),
        (
            "tab_1_2_3",
            &[KeyCode::Char('1'), KeyCode::Char('2'), KeyCode::Char('3')],
        ),
    ];
    for (name, keys) in cases {
        let mut app = fixture.loaded_app((160, 45));
        let mut i = 0;
        group.bench_function(name, |b| {
            b.iter(|| {
                let key = keys[i % keys.len()];
                i += 1;
                black_box(app.update(key_msg(key), Now::current()))
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = support::criterion();
    targets = update
}
criterion_main!(benches);
