//! Multi-select and jobs through `App::update`: marks across pages, sorts and refreshes, per
//! tab; `V` ranges; `*` and `:select` on a filter (answered as the runtime's job would);
//! `Esc`; `:copy`, `o` on marks; `:jobs` listing, stopping and reporting (snapshots at
//! 60x16, 80x24 and 160x45). The runtime's side (real HTTP to the sandbox): an export of the
//! marks equals those rows of the view's export, and a cancelled job says so.

use crate::dashboard_support;

use std::sync::Arc;
use std::time::Duration;

use crmdash::app::dialogs::Overlay;
use crmdash::app::jobs::{JobEvent, JobOutput, JobSpec, JobState};
use crmdash::app::selection::IdBatch;
use crmdash::app::{Effect, Message, QuerySpec, Resource};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use dashboard_support::{Harness, note_of};

fn loaded(size: (u16, u16)) -> Harness {
    let mut h = Harness::new(size);
    h.answer_all();
    h
}

fn ids_on_screen(h: &Harness) -> Vec<String> {
    h.app.tab().records().iter().map(|r| r.id.clone()).collect()
}

fn marked(h: &Harness) -> Vec<String> {
    h.app.selected_ids(h.app.active)
}

/// Every id the fake service has for `spec`'s filters (what the runtime's job reads).
fn all_ids(h: &Harness, spec: &QuerySpec) -> Vec<String> {
    let mut out = Vec::new();
    let mut page = 1;
    loop {
        let p = h.data.page(&QuerySpec {
            page,
            per_page: 100,
            ..spec.clone()
        });
        out.extend(p.records.iter().map(|r| r.id.clone()));
        let last = p.meta.and_then(|m| m.last_page).unwrap_or(1);
        if u64::from(page) >= last {
            return out;
        }
        page += 1;
    }
}

fn started_jobs(fx: &[Effect]) -> Vec<(crmdash::app::RequestId, JobSpec)> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::StartJob { id, job } => Some((*id, job.clone())),
            _ => None,
        })
        .collect()
}

fn run(h: &mut Harness, line: &str) -> Vec<Effect> {
    h.ch(':');
    h.type_str(line);
    h.key(KeyCode::Enter)
}

#[test]
fn marks_survive_paging_sorting_and_refresh_per_tab() {
    let mut h = loaded((120, 40));
    let first_page = ids_on_screen(&h);
    h.key(KeyCode::Char(' '));
    h.key(KeyCode::Char(' '));
    assert_eq!(h.app.tab().selected, 2, "space moves on");
    h.ch('n');
    h.answer_all();
    let second_page = ids_on_screen(&h);
    h.key(KeyCode::Char(' '));
    // The same row again unmarks it; once more marks it.
    h.ch('k');
    h.key(KeyCode::Char(' '));
    assert_eq!(h.app.tab().selection.len(), 2);
    h.ch('k');
    h.key(KeyCode::Char(' '));
    let mut want = vec![
        first_page[0].clone(),
        first_page[1].clone(),
        second_page[0].clone(),
    ];
    want.sort();
    let mut got = marked(&h);
    got.sort();
    assert_eq!(got, want);
    // Sorting, refreshing and coming back keep them, and the rows show it.
    h.ch('s');
    h.answer_all();
    h.ch('r');
    h.answer_all();
    assert_eq!(h.app.tab().selection.len(), 3);
    h.ch('3');
    h.answer_all();
    assert!(h.app.tab().selection.is_empty(), "per tab");
    h.ch('2');
    assert_eq!(h.app.tab().selection.len(), 3);
    let screen = h.render();
    assert!(screen.contains("3 selected"), "{screen}");
    // Esc clears the marks before anything else.
    h.key(KeyCode::Esc);
    assert!(h.app.tab().selection.is_empty());
    assert!(
        note_of(&h.app).contains("Selection cleared (3"),
        "{}",
        note_of(&h.app)
    );
}

#[test]
fn v_marks_the_range_from_the_last_marked_row() {
    let mut h = loaded((120, 40));
    let ids = ids_on_screen(&h);
    h.ch('j');
    h.ch('j');
    h.key(KeyCode::Char(' ')); // row 2, the cursor on 3
    h.ch('j');
    h.ch('j');
    h.ch('j'); // row 6
    h.ch('V');
    let mut got = marked(&h);
    got.sort();
    let mut want: Vec<String> = ids[2..=6].to_vec();
    want.sort();
    assert_eq!(got, want);
}

#[test]
fn star_marks_every_match_of_the_tab_filter() {
    let mut h = loaded((120, 40));
    // 15 won deals of 60: one page, marked at once.
    run(&mut h, "deals status=won");
    h.answer_all();
    let fx = h.ch('*');
    assert!(started_jobs(&fx).is_empty(), "the page holds every match");
    assert_eq!(h.app.tab().selection.len(), 15);
    h.key(KeyCode::Esc);
    assert!(h.app.tab().selection.is_empty());
    // Every deal: 60 over 3 pages, read by a job, with progress.
    h.key(KeyCode::Esc);
    h.answer_all();
    let fx = h.ch('*');
    let [(id, JobSpec::MatchingIds { spec })] = &started_jobs(&fx)[..] else {
        panic!("one job reading the ids: {fx:?}")
    };
    assert!(spec.filters.is_empty());
    assert_eq!(h.app.jobs.running(), 1);
    assert!(h.render().contains("1 job"), "counted on the status line");
    h.send(Message::Job {
        id: *id,
        event: JobEvent::Progress {
            done: 1,
            total: Some(1),
            unit: "pages",
            records: None,
        },
    });
    let ids = all_ids(&h, spec);
    let batch: IdBatch = ids.iter().map(String::as_str).collect();
    h.send(Message::Job {
        id: *id,
        event: JobEvent::Done(JobOutput::Ids(Arc::new(batch))),
    });
    assert_eq!(h.app.tab().selection.len(), 60);
    assert_eq!(h.app.jobs.running(), 0);
    assert!(note_of(&h.app).contains("60"), "{}", note_of(&h.app));
}

#[test]
fn select_and_unselect_take_the_filter_grammar() {
    let mut h = loaded((120, 40));
    let fx = run(&mut h, "select status=open");
    let [(id, JobSpec::MatchingIds { spec })] = &started_jobs(&fx)[..] else {
        panic!("a job for the filter: {fx:?}")
    };
    let status: Vec<String> = spec
        .filters
        .iter()
        .map(|(k, v)| format!("{k}={}", v.display()))
        .collect();
    assert_eq!(status, ["status=open"]);
    let open = all_ids(&h, spec);
    assert_eq!(open.len(), 15);
    let batch: IdBatch = open.iter().map(String::as_str).collect();
    h.send(Message::Job {
        id: *id,
        event: JobEvent::Done(JobOutput::Ids(Arc::new(batch.clone()))),
    });
    assert_eq!(h.app.tab().selection.len(), 15);
    // The tab's own filters are unchanged.
    assert!(h.app.tab().filters.is_empty());
    let fx = run(&mut h, "unselect status=open");
    let [(id, _)] = &started_jobs(&fx)[..] else {
        panic!("a job: {fx:?}")
    };
    h.send(Message::Job {
        id: *id,
        event: JobEvent::Done(JobOutput::Ids(Arc::new(batch))),
    });
    assert!(h.app.tab().selection.is_empty());
    // A bad value is said, and nothing starts.
    let fx = run(&mut h, "select sort=name");
    assert!(started_jobs(&fx).is_empty());
}

#[test]
fn copy_ids_of_the_marks_needs_no_reading() {
    let mut h = loaded((120, 40));
    let ids = ids_on_screen(&h);
    h.key(KeyCode::Char(' '));
    h.key(KeyCode::Char(' '));
    let fx = run(&mut h, "copy ids");
    let mut want = [ids[0].clone(), ids[1].clone()];
    want.sort();
    assert!(fx.contains(&Effect::Copy(want.join("\n"))), "{fx:?}");
    // JSON and e-mails read the records (a job), then copy.
    let fx = run(&mut h, "copy json");
    let [(id, JobSpec::SelectionRecords { ids: asked, .. })] = &started_jobs(&fx)[..] else {
        panic!("a job reading the records: {fx:?}")
    };
    assert_eq!(asked.len(), 2);
    let records: Vec<_> = h.app.tab().records().iter().take(2).cloned().collect();
    let fx = h.send(Message::Job {
        id: *id,
        event: JobEvent::Done(JobOutput::Records {
            records: Arc::new(records.clone()),
            missing: 0,
        }),
    });
    let json = format!("[{},{}]", records[0].raw, records[1].raw);
    assert!(fx.contains(&Effect::Copy(json)), "{fx:?}");
}

#[test]
fn o_on_many_marks_asks_first() {
    let mut h = loaded((120, 40));
    h.app.set_workspace(crate::palette::workspace());
    h.app.workspace.profile = "work".into();
    for _ in 0..6 {
        h.key(KeyCode::Char(' '));
    }
    let fx = h.ch('o');
    assert!(fx.is_empty());
    assert!(matches!(
        h.app.overlays.last(),
        Some(Overlay::ConfirmOpen(_))
    ));
    let fx = h.ch('y');
    let opened = fx
        .iter()
        .filter(|e| matches!(e, Effect::OpenUrl { .. }))
        .count();
    assert_eq!(opened, 6);
}

fn jobs_screen(size: (u16, u16)) -> (Harness, crmdash::app::RequestId) {
    let mut h = loaded(size);
    // A finished selection, a failed one and a running one.
    for outcome in [Some(true), Some(false), None] {
        h.key(KeyCode::Esc);
        let fx = h.ch('*');
        let [(id, _)] = &started_jobs(&fx)[..] else {
            panic!("a job: {fx:?}")
        };
        let event = match outcome {
            Some(true) => {
                let batch: IdBatch = ["1000", "1001"].into_iter().collect();
                JobEvent::Done(JobOutput::Ids(Arc::new(batch)))
            }
            Some(false) => JobEvent::Failed("503 Service Unavailable".into()),
            None => JobEvent::Progress {
                done: 2,
                total: Some(3),
                unit: "pages",
                records: None,
            },
        };
        h.send(Message::Job { id: *id, event });
        if outcome.is_none() {
            h.ch('J');
            return (h, *id);
        }
    }
    unreachable!()
}

#[test]
fn jobs_are_listed_stopped_and_reported() {
    for size in [(60, 16), (80, 24), (160, 45)] {
        let (mut h, running) = jobs_screen(size);
        let screen = h.render();
        insta::assert_snapshot!(format!("jobs_{}x{}", size.0, size.1), screen);
        // The running one is first: `x` stops it.
        let fx = h.ch('x');
        assert_eq!(fx, vec![Effect::CancelJob(running)]);
        h.send(Message::Job {
            id: running,
            event: JobEvent::Cancelled,
        });
        let states: Vec<JobState> = h
            .app
            .jobs
            .in_order()
            .iter()
            .map(|j| j.state.clone())
            .collect();
        assert_eq!(
            states,
            [
                JobState::Cancelled,
                JobState::Failed("503 Service Unavailable".into()),
                JobState::Done("2 found".into()),
            ]
        );
        assert_eq!(h.app.jobs.running(), 0);
        // Enter opens any job (issue 44: one without a report could not be opened): its
        // outcome whole, wrapped at every size.
        h.ch('j');
        h.key(KeyCode::Enter);
        assert!(
            matches!(h.app.overlays.last(), Some(Overlay::Notice(_))),
            "{size:?}: the job's outcome opened"
        );
        let screen = h.render();
        assert!(
            screen.contains("503") && screen.contains("Unavailable"),
            "{size:?}\n{screen}"
        );
        h.key(KeyCode::Esc);
        assert!(matches!(h.app.overlays.last(), Some(Overlay::Jobs(_))));
    }
}

#[test]
fn marked_rows_are_drawn_without_colours() {
    for size in [(60, 16), (80, 24), (160, 45)] {
        let mut h = loaded(size);
        h.key(KeyCode::Char(' '));
        h.ch('j');
        h.key(KeyCode::Char(' '));
        h.ch('V');
        let screen = h.render();
        insta::assert_snapshot!(format!("marked_{}x{}", size.0, size.1), screen);
    }
}

fn key(c: char) -> Message {
    Message::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

fn code(c: KeyCode) -> Message {
    Message::Key(KeyEvent::new(c, KeyModifiers::NONE))
}

/// Exports the view (or its marks) through the dialog to `path` and waits for the file.
async fn export_through_dialog(e: &mut crmdash::runtime::Engine, path: &std::path::Path) {
    e.handle(key('e'));
    for c in path.display().to_string().chars() {
        e.handle(key(c));
    }
    e.handle(code(KeyCode::Enter));
    e.settle(Duration::from_millis(300)).await;
    assert!(path.exists(), "{} written", path.display());
    e.handle(code(KeyCode::Esc));
}

#[tokio::test]
async fn an_export_of_the_marks_equals_those_rows_of_the_view() {
    let dir = tempfile::tempdir().unwrap();
    let (_sb, mut e) = dashboard_support::sandbox_engine(None, (120, 40), None).await;
    e.handle(key('2'));
    e.settle(Duration::from_millis(300)).await;
    // Two rows on the first page, one on the second.
    e.handle(key(' '));
    e.handle(key('j'));
    e.handle(key(' '));
    e.handle(key('n'));
    e.settle(Duration::from_millis(300)).await;
    e.handle(key(' '));
    let marked: Vec<String> = e.app.selected_ids(Resource::Deals);
    assert_eq!(marked.len(), 3);
    let only = dir.path().join("marked.json");
    export_through_dialog(&mut e, &only).await;
    e.handle(code(KeyCode::Esc)); // the marks
    assert!(e.app.tab().selection.is_empty());
    let all = dir.path().join("all.json");
    export_through_dialog(&mut e, &all).await;
    let read = |p: &std::path::Path| -> Vec<serde_json::Value> {
        serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
    };
    let want: Vec<serde_json::Value> = read(&all)
        .into_iter()
        .filter(|r| marked.iter().any(|m| r["id"] == m.as_str()))
        .collect();
    assert_eq!(want.len(), 3);
    assert_eq!(read(&only), want);
    // Both listed as jobs, done.
    let exports: Vec<String> = e
        .app
        .jobs
        .in_order()
        .iter()
        .filter(|j| j.kind == crmdash::app::jobs::JobKind::Export)
        .map(|j| j.outcome())
        .collect();
    assert_eq!(exports.len(), 2, "{exports:?}");
    assert!(
        exports.iter().all(|o| o.starts_with("wrote ")),
        "{exports:?}"
    );
}

#[tokio::test]
async fn a_stopped_job_stops_and_says_so() {
    let (_sb, mut e) =
        dashboard_support::sandbox_engine(Some(Duration::from_millis(150)), (120, 40), None).await;
    e.handle(key('1'));
    e.settle(Duration::from_millis(300)).await;
    // Every contact, page by page from the service (no mirror): slow enough to stop.
    e.handle(key('*'));
    assert_eq!(e.app.jobs.running(), 1);
    e.handle(key('J'));
    e.handle(key('x'));
    e.settle(Duration::from_millis(300)).await;
    let j = e.app.jobs.in_order()[0].clone();
    assert_eq!(j.state, JobState::Cancelled);
    assert!(
        e.app.tab().selection.is_empty(),
        "nothing marked by a stopped job"
    );
}

#[tokio::test]
async fn star_reads_the_ids_from_a_complete_mirror_without_a_request() {
    use crate::mirror::{press, started};
    let (_dir, sb, mut e) = started(true).await;
    press(&mut e, KeyCode::Char('1'));
    e.settle(Duration::from_millis(300)).await;
    let before = sb.requests().len();
    press(&mut e, KeyCode::Char('*'));
    e.settle(Duration::from_millis(300)).await;
    let mut got = e.app.selected_ids(Resource::Contacts);
    got.sort();
    let mut want = sb.ids("contacts");
    want.sort();
    assert_eq!(got.len(), want.len());
    assert_eq!(got, want);
    let lists = sb.requests()[before..]
        .iter()
        .filter(|r| r.path == "/public/v1/contacts")
        .count();
    assert_eq!(lists, 0, "read from the mirror");
    // Every contact: a second Esc in a row clears them.
    press(&mut e, KeyCode::Esc);
    assert!(!e.app.tab().selection.is_empty());
    press(&mut e, KeyCode::Esc);
    assert!(e.app.tab().selection.is_empty());
}

#[test]
fn a_user_action_runs_on_the_marked_records_read_by_a_job() {
    use crmdash::user_actions::{ActionConfig, Mode};
    let mut h = loaded((120, 40));
    let mut m = std::collections::BTreeMap::new();
    m.insert(
        "mail".to_string(),
        ActionConfig {
            run: vec!["mutt".into(), "{id}".into()],
            key: Some("M".into()),
            mode: Some("background".into()),
            each: true,
            ..ActionConfig::default()
        },
    );
    let (actions, warnings) =
        crmdash::user_actions::from_settings(&m, &crmdash::app::keymap::KeyMap::default());
    assert!(warnings.is_empty(), "{warnings:?}");
    h.app.set_user_actions(actions);
    let rows = h.app.tab().records().to_vec();
    // Rows 0 and 2 marked; the cursor ends on row 3, which is not.
    h.key(KeyCode::Char(' '));
    h.ch('j');
    h.key(KeyCode::Char(' '));
    let fx = h.ch('M');
    let [(id, JobSpec::SelectionRecords { ids, export, .. })] = &started_jobs(&fx)[..] else {
        panic!("the marks' records are read by a job: {fx:?}")
    };
    assert!(export.is_none());
    let mut asked: Vec<&str> = ids.ids().collect();
    asked.sort();
    let mut want = vec![rows[0].id.as_str(), rows[2].id.as_str()];
    want.sort();
    assert_eq!(asked, want);
    // The job's records (in the tab's order) are what the action runs on, once each.
    let found = vec![rows[0].clone(), rows[2].clone()];
    let fx = h.send(Message::Job {
        id: *id,
        event: JobEvent::Done(JobOutput::Records {
            records: Arc::new(found),
            missing: 0,
        }),
    });
    assert_eq!(
        fx,
        [Effect::RunUserAction {
            name: "mail".into(),
            argvs: vec![
                vec!["mutt".into(), rows[0].id.clone()],
                vec!["mutt".into(), rows[2].id.clone()],
            ],
            mode: Mode::Background,
        }]
    );
}

#[test]
fn esc_on_a_large_selection_asks_for_a_second_esc() {
    let mut h = loaded((120, 40));
    let fx = h.ch('*');
    if let [(id, _)] = &started_jobs(&fx)[..] {
        let ids: Vec<String> = (0..120).map(|i| format!("{}", 5000 + i)).collect();
        let batch: IdBatch = ids.iter().map(String::as_str).collect();
        h.send(Message::Job {
            id: *id,
            event: JobEvent::Done(JobOutput::Ids(Arc::new(batch))),
        });
    }
    let n = h.app.tab().selection.len();
    assert!(n > 50, "{n}");
    h.key(KeyCode::Esc);
    assert_eq!(h.app.tab().selection.len(), n, "kept after one Esc");
    assert!(
        note_of(&h.app).contains("Esc again clears them"),
        "{}",
        note_of(&h.app)
    );
    // Another key in between: the question starts over.
    h.ch('j');
    h.key(KeyCode::Esc);
    assert_eq!(h.app.tab().selection.len(), n);
    h.key(KeyCode::Esc);
    assert!(
        h.app.tab().selection.is_empty(),
        "the second Esc in a row clears"
    );
    // A few marks go at once.
    h.key(KeyCode::Char(' '));
    h.key(KeyCode::Esc);
    assert!(h.app.tab().selection.is_empty());
}
