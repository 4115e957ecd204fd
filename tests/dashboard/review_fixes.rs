//! Fixes from the review of the mirror, profiles and views: late answers of a profile switched
//! away from are dropped, its readings stop, no switch while the token is looked up, and no
//! mirror without a base URL.

use std::sync::Arc;

use crmdash::api::Client;
use crmdash::app::effects::NewClient;
use crmdash::app::jobs::JobEvent;
use crmdash::app::mirror::MirrorMessage;
use crmdash::app::{Effect, Message};
use crmdash::mirror::Resource;
use crossterm::event::KeyCode;
use secrecy::SecretString;

use crate::dashboard_support::{FakeData, Harness, test_config};

/// A sync job's progress report: 10 of 100 contacts.
fn progress() -> JobEvent {
    JobEvent::Progress {
        done: 10,
        total: Some(100),
        unit: Resource::Contacts.noun(),
        records: None,
    }
}

fn client_of_b() -> NewClient {
    NewClient(
        Client::new(
            "http://127.0.0.1:9",
            SecretString::from("tok_b".to_string()),
        )
        .unwrap(),
    )
}

#[test]
fn a_late_sync_report_of_another_profile_leaves_no_syncing_for_good() {
    let mut h = Harness::new((100, 30));
    h.app.set_mirror(true, None);
    // No sync of this profile runs: a report of another sync job changes nothing.
    h.send(Message::Job {
        id: crmdash::app::RequestId(7_777),
        event: progress(),
    });
    assert!(h.app.mirror.syncing.is_none());
    assert!(!h.render().contains("syncing"), "{}", h.render());
}

#[test]
fn rows_read_from_the_mirror_of_a_profile_switched_away_from_are_dropped() {
    let mut h = Harness::new((100, 30));
    h.app.set_mirror(true, None);
    h.answer_all();
    let spec = h.app.tab().spec();
    let before = h.app.tab().records()[0].id.clone();
    let mut page = h.data.page(&spec);
    page.records.reverse();
    let stale_generation = h.app.mirror.generation;
    h.send(Message::ProfileSwitched {
        profile: "b".into(),
        result: Box::new(Ok(client_of_b())),
    });
    assert_ne!(h.app.mirror.generation, stale_generation);
    h.send(Message::Mirror(MirrorMessage::Rows {
        spec: h.app.tab().spec(),
        result: Ok(Some(Arc::new(page))),
        generation: stale_generation,
    }));
    // Profile b's tab shows nothing of profile a's mirror.
    assert!(
        h.app.tab().shown.is_none() || h.app.tab().records()[0].id == before,
        "a's rows painted into b"
    );
}

#[test]
fn a_profile_switch_stops_the_old_profiles_pipeline_and_timeline_readings() {
    let mut h = Harness::with((100, 30), FakeData::new(60), test_config());
    h.answer_all();
    let fx = h.ch('P');
    let pipeline = fx
        .iter()
        .find_map(|e| match e {
            Effect::Summarize { id, .. } => Some(*id),
            _ => None,
        })
        .expect("P reads");
    let fx = h.send(Message::ProfileSwitched {
        profile: "b".into(),
        result: Box::new(Ok(client_of_b())),
    });
    assert!(fx.contains(&Effect::Cancel(pipeline)), "{fx:?}");
}

#[test]
fn no_profile_switch_while_the_token_is_looked_up() {
    // The palette tests' workspace: profiles `default` (active) and `work`.
    let mut h = crate::palette::harness();
    h.app.status.awaiting_token = true;
    h.ch(':');
    h.type_str("profile work");
    let fx = h.key(KeyCode::Enter);
    assert!(
        !fx.iter().any(|e| matches!(e, Effect::SwitchProfile { .. })),
        "{fx:?}"
    );
    let note = crate::dashboard_support::note_of(&h.app);
    assert!(note.contains("Still looking up"), "{note}");
}

#[test]
fn no_mirror_is_attached_without_a_base_url() {
    use crmdash::config::Settings;
    use crmdash::runtime::{DashboardOptions, attach_mirror, build_engine};
    let dir = tempfile::tempdir().unwrap();
    let mut settings = Settings::default();
    settings.cache.dir = Some(dir.path().join("mirror"));
    let opts = DashboardOptions {
        profile: "default".into(),
        base_url: String::new(),
        client: None,
        settings,
        state_file: None,
        log_path: None,
        demo: false,
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let _guard = rt.enter();
    let e = attach_mirror(build_engine(&opts, (80, 24)), &opts);
    assert!(e.mirror().is_none());
}
