//! What the dashboard's first rows cost on disk (issue 30, "dashboard at 1M: first rows"):
//! opens an existing mirror as the dashboard does (`open_existing`, then the dashboard's
//! connection sizes), reads the first page of deals (the tab a fresh start opens on) and of
//! contacts (sorted by created, updated and first name), and prints each step's time.
//!
//! ```sh
//! cargo run --release --example first_rows -- ~/.cache/crmdash/mirror/default@HOST.sqlite3 [PER_PAGE]
//! ```
//!
//! Run it several times, each a fresh process (as a dashboard start is): the first run after
//! a sync or a reboot also shows the cost of a cold file.

use std::time::Instant;

use crmdash::api::{ContactQuery, ContactSort, DealQuery, Paging};
use crmdash::mirror::Mirror;

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = std::path::PathBuf::from(args.next().expect("the mirror's file"));
    let per_page: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(100);
    let paging = Paging {
        page: Some(1),
        per_page: Some(per_page),
    };
    let t = Instant::now();
    let m = Mirror::open_existing(&path)
        .expect("the mirror opens")
        .expect("a mirror is there")
        .mirror;
    m.tune_for_dashboard().expect("tuned");
    let open = ms(t);
    let t = Instant::now();
    let deals = m
        .list(&DealQuery {
            paging,
            ..DealQuery::default()
        })
        .expect("deals");
    let deal_page = ms(t);
    let mut line = format!(
        "open {open:.2} ms, deals page {deal_page:.2} ms ({} rows)",
        deals.page.data.len()
    );
    for sort in [
        ContactSort::CreatedAt,
        ContactSort::UpdatedAt,
        ContactSort::FirstName,
    ] {
        let t = Instant::now();
        let contacts = m
            .list(&ContactQuery {
                paging,
                sort_by: Some(sort),
                ..ContactQuery::default()
            })
            .expect("contacts");
        line.push_str(&format!(
            ", contacts by {sort:?} {:.2} ms ({} rows)",
            ms(t),
            contacts.page.data.len()
        ));
    }
    println!("{line}");
}
