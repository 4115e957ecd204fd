//! The total of an unfiltered page comes from the counts the schema's triggers keep: it
//! equals a real count after a sync, and after records are marked gone by a full sync.

use crmdash::api::{ContactQuery, Paging};
use crmdash::mirror::sync::SyncOptions;
use crmdash::sandbox::{Change, SandboxConfig};

use crate::mirror_support::Env;

fn totals(m: &crmdash::mirror::Mirror) -> (u64, u64) {
    let page = |q: ContactQuery| m.list(&q).unwrap().page.meta.unwrap().total.unwrap();
    let unfiltered = page(ContactQuery::default());
    // A filter every record passes: counted row by row.
    let counted = page(ContactQuery {
        created_after: Some(chrono::DateTime::UNIX_EPOCH),
        paging: Paging::default(),
        ..ContactQuery::default()
    });
    (unfiltered, counted)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_kept_count_equals_a_real_count_after_syncs_and_deletions() {
    let env = Env::new(SandboxConfig::default()).await;
    env.sync(SyncOptions::default()).await;
    let (kept, counted) = totals(&env.mirror());
    assert_eq!(kept, counted);
    assert!(kept > 0);
    // The sandbox's change generator deletes records; a full sync marks them gone.
    let mut deleted = 0;
    while deleted < 3 {
        for c in env.sb.churn(20) {
            if matches!(
                c,
                Change::Deleted {
                    kind: "contacts",
                    ..
                }
            ) {
                deleted += 1;
            }
        }
    }
    env.sync(SyncOptions {
        full: true,
        ..SyncOptions::default()
    })
    .await;
    let (kept2, counted2) = totals(&env.mirror());
    assert_eq!(kept2, counted2);
    assert_eq!(kept2, env.sb.contact_count() as u64);
}
