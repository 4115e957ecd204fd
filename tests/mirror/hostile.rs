//! A hostile service and the mirror (issue 43, point 7): one id listed twice in a page is
//! stored once and changes nothing, sync after sync; a record nested past the depth limit is
//! refused before it reaches the mirror.

use crate::mirror_support::{Env, assert_same, mirror_records};

use crmdash::mirror::sync::{self, SyncOptions};
use crmdash::mirror::{ChangeQuery, Resource};
use crmdash::sandbox::{FaultKind, FaultRule, HostileShape, SandboxConfig};

fn config(contacts: usize, shape: HostileShape, depth: usize) -> SandboxConfig {
    SandboxConfig {
        contacts,
        faults: vec![
            FaultRule::new(FaultKind::Hostile { shape, depth })
                .on("GET", "/contacts")
                .always(),
        ],
        ..SandboxConfig::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_id_listed_twice_is_stored_once_and_reports_no_phantom_changes() {
    let env = Env::new(config(120, HostileShape::RepeatedIds, 0)).await;
    env.sync(SyncOptions::default()).await;
    for _ in 0..2 {
        let report = env.sync(SyncOptions::default()).await;
        let contacts = report
            .resources
            .iter()
            .find(|r| r.resource == Resource::Contacts)
            .expect("contacts synced");
        assert_eq!(contacts.updated, 0, "{report:?}");
    }
    let changes = env.mirror().changes(&ChangeQuery::default()).unwrap();
    assert_eq!(changes, vec![], "no phantom change");
    env.sync(SyncOptions {
        full: true,
        ..SyncOptions::default()
    })
    .await;
    assert_eq!(
        env.mirror().changes(&ChangeQuery::default()).unwrap(),
        vec![]
    );
    // The first copy is the one kept: the mirror is the service's true list.
    env.sb.faults().clear();
    let m = env.mirror();
    assert_same(
        &env.server_records(Resource::Contacts),
        &mirror_records(&m, Resource::Contacts),
        "contacts",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_nested_past_the_limit_never_reaches_the_mirror() {
    let env = Env::new(config(30, HostileShape::Deep, 100_000)).await;
    let e = sync::sync(&env.client, &env.location, &SyncOptions::default(), &|_| {})
        .await
        .expect_err("refused");
    let text = e.to_string();
    assert!(text.contains("more than 100 levels deep"), "{text}");
}
