//! What a new user hit trying the local mirror in the dashboard (tmux at 60x16, 80x24 and
//! 160x45 against `crmdash sandbox`): related records' lines and amounts, the offline
//! reschedule's message, the offline probe's retries left on the status line, the hint line while
//! the contact form asks its question, the sync's progress at 80x24, the end of `:sync`.

use crmdash::app::Message;
use crmdash::app::dialogs::Overlay;
use crmdash::app::mirror::{LinkKind, MirrorMessage};
use crmdash::resource::Resource;
use crossterm::event::{KeyCode, KeyModifiers};

use crate::mirror::{
    QUIET, engine, key, press, screen, search_dialog, settings, started, synced_sandbox, typed,
};

/// Opens the related records of the first deal with an account and contacts.
async fn related_of_a_deal(e: &mut crmdash::runtime::Engine) {
    press(e, KeyCode::Char('2'));
    e.settle(QUIET).await;
    let at = e
        .app
        .tab()
        .records()
        .iter()
        .position(|r| r.raw.contains("\"contact_ids\":[\"") && r.raw.contains("\"website\""))
        .expect("a deal whose account has a website, with contacts");
    for _ in 0..at {
        press(e, KeyCode::Char('j'));
    }
    press(e, KeyCode::Char('R'));
    e.settle(QUIET).await;
    assert!(matches!(e.app.overlays.last(), Some(Overlay::Related(_))));
}

#[tokio::test]
async fn related_lines_that_do_not_fit_end_in_an_ellipsis() {
    let (_dir, sb, mut e) = started(true).await;
    e.handle(Message::Resize(60, 16));
    related_of_a_deal(&mut e).await;
    let text = screen(&e);
    let account = text
        .lines()
        .find(|l| l.contains("https://"))
        .unwrap_or_else(|| panic!("the account's line: {text}"));
    // The website and "(as included with the deal)" do not fit in 60 columns: cut with `…`
    // where the dialog's text ends (one column of padding before its border).
    assert!(account.contains("… │"), "cut with …: {account:?}");
    sb.shutdown().await;
}

#[tokio::test]
async fn a_contacts_related_deals_show_amounts_as_the_table_does() {
    let (_dir, sb, mut e) = started(true).await;
    related_of_a_deal(&mut e).await;
    let contact = match e.app.overlays.last() {
        Some(Overlay::Related(r)) => r
            .items()
            .into_iter()
            .position(|i| i.kind == LinkKind::Record(Resource::Contacts))
            .expect("a contact"),
        _ => unreachable!(),
    };
    for _ in 0..contact {
        press(&mut e, KeyCode::Char('j'));
    }
    press(&mut e, KeyCode::Enter);
    press(&mut e, KeyCode::Char('R'));
    e.settle(QUIET).await;
    let deals = match e.app.overlays.last() {
        Some(Overlay::Related(r)) => r
            .items()
            .into_iter()
            .filter(|i| i.kind == LinkKind::Record(Resource::Deals))
            .map(|i| i.detail.clone())
            .collect::<Vec<_>>(),
        _ => panic!("R on the contact lists its deals"),
    };
    assert!(!deals.is_empty());
    for d in &deals {
        // "open · 71,645.00 PLN": two decimals, grouped, the currency after it.
        assert_table_amount(d.rsplit(" · ").next().unwrap(), d);
    }
    sb.shutdown().await;
}

/// The dashboard started on a synced mirror whose service has stopped: offline.
async fn started_offline() -> (tempfile::TempDir, crmdash::runtime::Engine) {
    let dir = tempfile::tempdir().unwrap();
    let sb = synced_sandbox(dir.path(), 0).await;
    let (base, token) = (sb.base_url(), sb.token());
    sb.shutdown().await;
    let mut e = engine(&base, &token, settings(dir.path(), 0));
    e.start();
    e.settle(QUIET).await;
    assert!(e.app.is_offline());
    (dir, e)
}

/// `value` is an amount as the table shows it: `71,645.00 PLN` (exact, grouped, a currency).
fn assert_table_amount(value: &str, whole_line: &str) {
    let (amount, currency) = value.rsplit_once(' ').unwrap_or((value, ""));
    assert!(
        currency.len() == 3 && currency.chars().all(|c| c.is_ascii_uppercase()),
        "a currency after the amount: {whole_line:?}"
    );
    assert!(
        amount.contains('.'),
        "exact, with its cents: {whole_line:?}"
    );
    let whole = amount.split('.').next().unwrap();
    assert!(
        whole.len() <= 3 || whole.contains(','),
        "grouped by thousands: {whole_line:?}"
    );
}

#[tokio::test]
async fn offline_reschedule_message_reads_as_one_sentence() {
    let (_dir, mut e) = started_offline().await;

    press(&mut e, KeyCode::Char('a'));
    typed(&mut e, "apt_000001");
    key(&mut e, KeyCode::Char('s'), KeyModifiers::CONTROL);
    press(&mut e, KeyCode::Enter);
    e.settle(QUIET).await;
    let text = screen(&e);
    assert!(text.contains("nothing was sent"), "{text}");
    assert!(text.contains("Everything is kept"), "{text}");
    assert!(!text.contains(").."), "one full stop: {text}");
}

#[tokio::test]
async fn the_probes_retries_do_not_linger_on_the_status_line() {
    let (_dir, mut e) = started_offline().await;
    // Offline, the probe (`r`, or every 15 s) goes through the client's retries, which the
    // status line shows while they run; its answer "still offline" ends them.
    e.handle(Message::Retrying {
        attempt: 4,
        max_attempts: 4,
        reason: "Network error: 127.0.0.1 cannot be reached".into(),
    });
    assert!(screen(&e).contains("retrying (4/4)"));
    e.handle(Message::Mirror(MirrorMessage::Probed(Err(
        "Network error: 127.0.0.1 cannot be reached".into(),
    ))));
    assert!(e.app.is_offline());
    assert_eq!(e.app.status.retrying, None, "no retry in progress any more");
    let text = screen(&e);
    assert!(!text.contains("retrying"), "{text}");
    assert!(text.contains("offline · data from"), "{text}");
}

#[tokio::test]
async fn the_hint_line_follows_the_contact_forms_question() {
    let (_dir, sb, mut e) = started(true).await;
    press(&mut e, KeyCode::Char('c'));
    typed(&mut e, "Ada");
    let hints = |e: &crmdash::runtime::Engine| screen(e).lines().last().unwrap().to_string();
    assert!(hints(&e).contains("Ctrl-S create"), "{}", hints(&e));
    key(&mut e, KeyCode::Char('s'), KeyModifiers::CONTROL);
    e.settle(QUIET).await;
    let on_confirm = hints(&e);
    assert!(
        on_confirm.contains("Enter/y create") && on_confirm.contains("Esc back"),
        "the question's keys: {on_confirm}"
    );
    assert!(!on_confirm.contains("Ctrl-S"), "{on_confirm}");
    press(&mut e, KeyCode::Esc);
    press(&mut e, KeyCode::Esc);
    let on_discard = hints(&e);
    assert!(
        on_discard.contains("y discard") && on_discard.contains("n keep editing"),
        "{on_discard}"
    );
    sb.shutdown().await;
}

/// The hits `Ctrl-F` lists for `text`, as (resource, detail).
async fn search(e: &mut crmdash::runtime::Engine, text: &str) -> Vec<(String, String)> {
    key(e, KeyCode::Char('f'), KeyModifiers::CONTROL);
    typed(e, text);
    e.settle(QUIET).await;
    search_dialog(e)
        .results
        .iter()
        .flat_map(|r| r.groups.iter())
        .flat_map(|g| {
            g.hits
                .iter()
                .map(|h| (g.resource.noun().to_string(), h.detail.clone()))
        })
        .collect()
}

#[tokio::test]
async fn search_shows_a_deals_value_as_the_table_does() {
    let (_dir, sb, mut e) = started(true).await;
    let deals: Vec<String> = search(&mut e, "becker gmbh")
        .await
        .into_iter()
        .filter(|(r, _)| r == "deals")
        .map(|(_, d)| d)
        .collect();
    assert!(!deals.is_empty());
    for d in &deals {
        // "won · 7,254.26 EUR · Becker GmbH"
        assert_table_amount(d.split(" · ").nth(1).unwrap_or_default(), d);
    }
    sb.shutdown().await;
}

#[tokio::test]
async fn search_results_in_devanagari_leave_no_stray_glyph_in_a_terminal() {
    use crate::display_polish::{Vt, fresh};
    let (_dir, sb, mut e) = started(true).await;
    for size in [(60, 16), (80, 24), (160, 45)] {
        e.handle(Message::Resize(size.0, size.1));
        let mut vt = Vt::new(size);
        vt.draw(&e.app);
        // The seed's account "वर्मा & Sons" is in the hits' lines; each keystroke changes them.
        key(&mut e, KeyCode::Char('f'), KeyModifiers::CONTROL);
        for c in "sons".chars() {
            press(&mut e, KeyCode::Char(c));
            e.settle(QUIET).await;
            let shown = vt.draw(&e.app);
            assert_eq!(shown, fresh(&e.app), "{size:?}, typed up to {c}");
        }
        assert!(
            screen(&e).contains("र्"),
            "a Devanagari hit is on screen at {size:?}: {}",
            screen(&e)
        );
        // Another search over the same lines, then the dialog closed.
        press(&mut e, KeyCode::Backspace);
        e.settle(QUIET).await;
        let shown = vt.draw(&e.app);
        assert_eq!(shown, fresh(&e.app), "{size:?}, after Backspace");
        press(&mut e, KeyCode::Esc);
        let shown = vt.draw(&e.app);
        assert_eq!(shown, fresh(&e.app), "{size:?}, closed");
    }
    sb.shutdown().await;
}

#[tokio::test]
async fn the_background_syncs_progress_shows_at_80x24() {
    use crmdash::app::jobs::JobEvent;
    let (_dir, sb, mut e) = started(true).await;
    e.handle(Message::Resize(80, 24));
    // A sync of this profile runs (reports of another job are not the status line's).
    let id = crmdash::app::RequestId(7_777);
    e.app.mirror.syncing = Some(None);
    e.app.jobs.sync = Some(id);
    e.handle(Message::Job {
        id,
        event: JobEvent::Progress {
            done: 12_000,
            total: Some(100_000),
            unit: crmdash::mirror::Resource::Contacts.noun(),
            records: None,
        },
    });
    let text = screen(&e);
    let status = text.lines().rev().nth(1).unwrap();
    assert!(status.contains("syncing contacts 12%"), "{status}");
    assert!(status.contains("page 1/"), "{status}");
    sb.shutdown().await;
}

#[tokio::test]
async fn sync_from_the_palette_says_when_it_is_done() {
    let (_dir, sb, mut e) = started(true).await;
    press(&mut e, KeyCode::Char(':'));
    typed(&mut e, "sync");
    press(&mut e, KeyCode::Enter);
    let note = |e: &crmdash::runtime::Engine| crate::dashboard_support::note_of(&e.app);
    assert!(
        note(&e).contains("Syncing the local mirror"),
        "{}",
        note(&e)
    );
    let done = tokio::time::timeout(std::time::Duration::from_secs(60), async {
        while e.app.mirror.last_sync.is_none() {
            let m = e.next_message().await;
            e.handle(m);
        }
    })
    .await;
    assert!(done.is_ok(), "the sync ended");
    // Not left at "Syncing…" forever: the end is said, with what it did.
    assert!(
        note(&e).starts_with("Local mirror synced: ") && note(&e).contains("requests"),
        "{}",
        note(&e)
    );
    sb.shutdown().await;
}
