//! The dashboard's async loop: a `biased` `select!` over a cancellation token (signals), the
//! terminal's events (`terminal::events`, read on this thread), the app's message channel and
//! one timer (the app's next deadline). Every queued message is handled, then the screen is drawn once, and only when
//! something changed. Idle, the loop sleeps: no tick runs without a deadline.

mod dupes;
mod engine;
mod export;
pub mod feed;
mod jobs;
mod login;
pub mod mirror;
pub mod opener;
mod pipeline;
mod profiles;
mod requests;
mod reschedule_log;
mod source;
mod state_file;
mod token_lookup;
mod user_action;
pub mod workspace;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crossterm::event::Event;
use futures::StreamExt;
use tokio_util::sync::CancellationToken;

pub use engine::{Engine, TermAction};
pub use login::{LoginContext, TokenLookupFuture};
pub use source::{ClientSource, DataSource};
pub use state_file::{read_state, write_state};
pub use token_lookup::token_lookup;

use crate::app::dialogs::FormsConfig;
use crate::app::keymap::KeyMap;
use crate::app::table::filter::DateParser;
use crate::app::{App, AppConfig, DisplayZone, Message, Now};
use crate::terminal::{self, Term};
use crate::timeparse::Zone;

/// What the binary hands the dashboard.
pub struct DashboardOptions {
    pub profile: String,
    pub base_url: String,
    /// `None`: no token yet; every request then reports how to log in.
    pub client: Option<crate::api::Client>,
    pub settings: crate::config::Settings,
    /// Remembered tab, sorts, page sizes and includes (JSON).
    pub state_file: Option<PathBuf>,
    /// Shown in the help overlay.
    pub log_path: Option<PathBuf>,
    /// Running against the embedded sandbox.
    pub demo: bool,
}

use crate::config::host_label as host_of;

/// The app's configuration from the options and the environment (`NO_COLOR`).
pub fn app_config(opts: &DashboardOptions) -> AppConfig {
    dashboard_config(opts).0
}

/// Everything the app is configured with, read from the options in one step: the settings'
/// zone is parsed once, for the dates shown, the filters typed and the reschedule dialog.
pub fn dashboard_config(opts: &DashboardOptions) -> (AppConfig, FormsConfig) {
    // The config file's own warnings first, then what the key map refused.
    let mut warnings = opts.settings.warnings.clone();
    let mut zone_of = |name: &str| -> Zone {
        name.parse().unwrap_or_else(|e| {
            warnings.push(format!("{e}"));
            Zone::Local
        })
    };
    // The display clock (every time shown, the filters typed) and the zone reschedule times
    // are typed in (the same unless `[reschedule] timezone` sets it apart).
    let shown = zone_of(opts.settings.display_zone());
    let zone = zone_of(opts.settings.reschedule_zone());
    let parser: DateParser = Arc::new(move |text: &str, now| {
        crate::timeparse::parse_instant(text, &shown, now).map_err(|e| e.to_string())
    });
    let (keymap, key_warnings) = KeyMap::from_settings(&opts.settings.keys);
    warnings.extend(key_warnings);
    warnings.extend(crate::user_actions::from_settings(&opts.settings.actions, &keymap).1);
    let ui = &opts.settings.ui;
    let no_color = std::env::var("NO_COLOR").ok();
    let profile = if opts.demo {
        format!("{} (demo)", opts.profile)
    } else {
        opts.profile.clone()
    };
    let app = AppConfig {
        profile,
        host: host_of(&opts.base_url),
        per_page: ui.per_page,
        refresh: (ui.refresh_seconds > 0).then(|| Duration::from_secs(ui.refresh_seconds)),
        zone: DisplayZone::from(shown),
        currency: ui.currency.clone(),
        date_parser: parser,
        log_path: opts.log_path.clone(),
        keymap,
        colors: crate::ui::theme::color_mode(&ui.theme, no_color.as_deref()),
        warnings,
    };
    let forms = FormsConfig {
        reschedule: opts.settings.reschedule.clone(),
        zone,
        log_path: reschedule_log_path(opts.demo),
        dupes: crate::insights::dupes::mirrored::Finder::of(&opts.settings),
    };
    (app, forms)
}

/// The reschedule log the dashboard writes and lists: the one log of real profiles, or a
/// `--demo` run's own in its folder (thrown away with it; a demo never sees nor adds to
/// a real profile's reschedules).
pub(crate) fn reschedule_log_path(demo: bool) -> Option<PathBuf> {
    crate::reschedule::log::path(demo)
}

#[cfg(test)]
mod demo_tests {
    use super::*;

    fn options(demo: bool) -> DashboardOptions {
        DashboardOptions {
            profile: if demo { "demo" } else { "default" }.into(),
            base_url: "http://127.0.0.1:1".into(),
            client: None,
            settings: crate::config::Settings::default(),
            state_file: None,
            log_path: None,
            demo,
        }
    }

    #[test]
    fn a_demo_reschedules_into_its_own_folder_never_the_real_log() {
        let real = crate::reschedule::log::default_path();
        let (_, forms) = dashboard_config(&options(false));
        assert_eq!(forms.log_path, real);
        let (_, forms) = dashboard_config(&options(true));
        let demo_log = forms.log_path.expect("a demo has its log");
        let demo_root = crate::mirror::paths::demo_root().unwrap();
        assert!(demo_log.starts_with(&demo_root), "{demo_log:?}");
        assert_ne!(Some(demo_log), real);
        crate::mirror::paths::discard_demo();
    }
}

/// The write gate's settings: each profile's flags (none for a `--demo` run, whose sandbox
/// is no one's live service), the undo window, and the write journal.
pub fn safety_config(opts: &DashboardOptions) -> crate::app::SafetyConfig {
    let s = &opts.settings;
    // The flags follow the service: each profile gets the strictest of every profile at its
    // base URL (the active one at the base URL it runs with: `--base-url`, CRMDASH_BASE_URL).
    let flags = if opts.demo {
        Default::default()
    } else {
        let mut flags: std::collections::BTreeMap<_, _> = s
            .profiles
            .iter()
            .map(|(name, p)| {
                let url = p.base_url.as_deref().unwrap_or_default();
                (name.clone(), crate::safety::flags_for_service(s, name, url))
            })
            .collect();
        flags.insert(
            opts.profile.clone(),
            crate::safety::flags_for_service(s, &opts.profile, &opts.base_url),
        );
        flags
    };
    crate::app::SafetyConfig {
        flags,
        undo: Duration::from_secs(s.safety.undo_seconds),
        journal: crate::journal::path(opts.demo),
    }
}

/// Builds the engine (app + effect runner) for these options, without touching the terminal.
pub fn build_engine(opts: &DashboardOptions, size: (u16, u16)) -> Engine {
    build_engine_with(opts, size, None)
}

/// [`build_engine`] with the client still to be found by `lookup` (when `opts.client` is
/// `None`): the engine starts it after the first frame and opens the login dialog only if it
/// finds no token.
pub fn build_engine_with(
    opts: &DashboardOptions,
    size: (u16, u16),
    lookup: Option<TokenLookupFuture>,
) -> Engine {
    let (config, forms) = dashboard_config(opts);
    let format = config.cell_format();
    let remembered = opts
        .state_file
        .as_deref()
        .map(read_state)
        .unwrap_or_default();
    let mut app = App::new(config, &remembered, size, Now::current());
    let ui = &opts.settings.ui;
    let config_per_page = ui.per_page_set.then_some(ui.per_page);
    crate::app::persist::settle_page_sizes(&mut app.tabs, &remembered, config_per_page);
    app.set_forms_config(forms);
    app.set_safety(safety_config(opts));
    app.set_user_actions(crate::user_actions::from_settings(&opts.settings.actions, &app.keymap).0);
    let views_path = crate::config::views::views_path();
    app.set_workspace(workspace_of(opts, views_path.as_deref()));
    app.start_today = ui.start.as_deref() == Some("today");
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let source: Option<Arc<dyn DataSource>> = opts.client.clone().map(|c| {
        Arc::new(ClientSource::new(c, format.clone(), Some(tx.clone()))) as Arc<dyn DataSource>
    });
    let reason = if opts.base_url.is_empty() {
        format!(
            "Not logged in: profile '{p}' has no base URL - restart crmdash to log in, or run `crmdash login --profile {p} --base-url URL`",
            p = opts.profile
        )
    } else {
        token_lookup::not_logged_in(&opts.profile)
    };
    let mut engine = Engine::new(app, source, reason, opts.state_file.clone())
        .with_channel(tx, rx)
        .with_config_per_page(config_per_page)
        .with_client(opts.client.clone())
        .with_workspace(workspace::WorkspaceContext {
            settings: opts.settings.clone(),
            keyring: crate::credentials::Keyring::platform(),
            opener: opener::Opener::from_settings(opts.settings.ui.opener.as_deref()),
        });
    let lookup = lookup.filter(|_| opts.client.is_none());
    let looking_up = lookup.is_some();
    if let Some(lookup) = lookup {
        engine = engine.with_token_lookup(lookup);
    }
    setup_login(engine, opts, looking_up)
}

/// The saved views (from `views_path`, problems shown once), the config's profiles with
/// their web UI templates, the active profile.
pub fn workspace_of(
    opts: &DashboardOptions,
    views_path: Option<&std::path::Path>,
) -> crate::app::workspace::Workspace {
    let file = views_path
        .map(crate::config::views::load_views)
        .unwrap_or_default();
    let mut profiles: std::collections::BTreeMap<String, Option<String>> = opts
        .settings
        .profiles
        .iter()
        .map(|(name, p)| (name.clone(), p.web_url.clone()))
        .collect();
    profiles.entry(opts.profile.clone()).or_insert(None);
    crate::app::workspace::Workspace {
        views: file.views,
        views_path: views_path.map(std::path::Path::to_path_buf),
        profiles,
        profile: opts.profile.clone(),
        history: Vec::new(),
        problems: file.problems,
        touched: Default::default(),
    }
}

/// Gives the engine the profile's local mirror (`[cache]`): rows at start, offline mode,
/// search, related records and the background sync. Nothing when `[cache] enabled = false`.
/// Kept apart from `build_engine` so headless runs and tests touch no cache directory unless
/// they ask.
pub fn attach_mirror(engine: Engine, opts: &DashboardOptions) -> Engine {
    // A mirror is one file per profile and base URL: with no base URL yet (the first run's
    // login dialog asks for it) there is none to attach; the next start has it.
    if opts.base_url.trim().is_empty() {
        return engine;
    }
    let cache = &opts.settings.cache;
    let format = engine.app.config.cell_format();
    let Some(m) = mirror::MirrorRuntime::new(cache, &opts.profile, &opts.base_url, format) else {
        return engine;
    };
    let sync_every = (cache.sync_every_minutes > 0)
        .then(|| Duration::from_secs(cache.sync_every_minutes.saturating_mul(60)));
    engine.with_mirror(m, sync_every, opts.client.as_ref())
}

/// Without a token (and none being looked up), the login dialog first; without a token at
/// start, a context to check and keep the one the dialog is given.
fn setup_login(mut engine: Engine, opts: &DashboardOptions, looking_up: bool) -> Engine {
    if opts.client.is_none() && !opts.demo {
        if !looking_up {
            engine.app.open_login();
        }
        let ctx = LoginContext {
            profile: opts.profile.clone(),
            base_url: opts.base_url.clone(),
            options: opts.settings.client_options(),
            keyring: crate::credentials::Keyring::platform(),
            config_path: crate::config::config_path(),
        };
        engine = engine.with_login(ctx);
    }
    engine
}

/// How long the first frame may wait for the mirror's rows.
const PRELOAD_BUDGET: Duration = Duration::from_millis(50);

/// How the dashboard ended.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Ended {
    /// The signal that ended it (SIGTERM, SIGHUP, SIGINT), if one did: the process should
    /// exit with 128 + its number, as a program killed by it would.
    pub signal: Option<i32>,
    /// Why the remembered state (tabs, sorts...) could not be saved, if it could not.
    pub state_not_saved: Option<String>,
}

/// Runs the dashboard until the user quits or a signal ends it. The terminal is restored on
/// every way out, errors included. Without `opts.client`, `lookup` (when given) finds the
/// token after the first frame is drawn.
pub async fn run_dashboard(
    opts: DashboardOptions,
    lookup: Option<TokenLookupFuture>,
) -> anyhow::Result<Ended> {
    let started = std::time::Instant::now();
    let size = crossterm::terminal::size().unwrap_or((80, 24));
    let mut engine = attach_mirror(build_engine_with(&opts, size, lookup), &opts);
    // The last known rows, read from the mirror before the first frame (a few ms for a
    // page of 100,000 contacts); a slow disk only delays them to a later frame.
    engine.preload_mirror(PRELOAD_BUDGET).await;
    let mouse = opts.settings.ui.mouse;
    let cancel = CancellationToken::new();
    let caught = Arc::new(std::sync::atomic::AtomicI32::new(0));
    let signals = tokio::spawn(watch_signals(cancel.clone(), caught.clone()));
    let mut term = terminal::enter(mouse)?;
    let result = event_loop(&mut term, &mut engine, &cancel, mouse, started).await;
    // However the loop ended (a quit, a signal, the terminal gone: its input fails or ends),
    // writes still in their undo window are journalled as dropped before the process exits
    // (after a quit there are none left).
    let dropped = engine.app.drop_held_at_exit();
    engine.run(dropped);
    let restored = terminal::restore();
    signals.abort();
    result?;
    restored?;
    let signal = caught.load(std::sync::atomic::Ordering::SeqCst);
    Ok(Ended {
        signal: (signal != 0).then_some(signal),
        state_not_saved: engine.state_save_error(),
    })
}

/// SIGTERM, SIGHUP and SIGINT end the loop through the token (in raw mode Ctrl-C arrives
/// as a key instead); `caught` keeps the signal's number.
async fn watch_signals(cancel: CancellationToken, caught: Arc<std::sync::atomic::AtomicI32>) {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut hup), Ok(mut int)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::hangup()),
        signal(SignalKind::interrupt()),
    ) else {
        return;
    };
    let number = tokio::select! {
        _ = term.recv() => libc::SIGTERM,
        _ = hup.recv() => libc::SIGHUP,
        _ = int.recv() => libc::SIGINT,
    };
    caught.store(number, std::sync::atomic::Ordering::SeqCst);
    cancel.cancel();
}

/// Logs (once) how long after start the first frame with rows was drawn, and where they
/// came from: the start-up measurement of docs/performance.md.
fn first_rows(app: &App, started: std::time::Instant, seen: bool) -> bool {
    if seen {
        return true;
    }
    let Some(shown) = app
        .tab()
        .shown
        .as_ref()
        .filter(|s| !s.page.records.is_empty())
    else {
        return false;
    };
    let from = if shown.page.mirrored.is_some() {
        "mirror"
    } else {
        "service"
    };
    tracing::info!(
        ms = started.elapsed().as_secs_f64() * 1000.0,
        from,
        rows = shown.page.records.len(),
        "first rows drawn"
    );
    true
}

fn to_message(e: Event) -> Option<Message> {
    match e {
        Event::Key(k) => Some(Message::Key(k)),
        Event::Mouse(m) => Some(Message::Mouse(m)),
        Event::Paste(p) => Some(Message::Paste(p)),
        Event::Resize(w, h) => Some(Message::Resize(w, h)),
        Event::FocusGained | Event::FocusLost => None,
    }
}

async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

/// Applies terminal actions; true when the loop must end.
fn act(
    term: &mut Term,
    engine: &mut Engine,
    actions: Vec<TermAction>,
    mouse: bool,
) -> anyhow::Result<bool> {
    for a in actions {
        match a {
            TermAction::Quit => return Ok(true),
            TermAction::Copy(text) => terminal::copy_to_clipboard(&text)?,
            TermAction::Redraw => {
                // `clear` empties the terminal and ratatui's previous buffer, so the next
                // draw writes every cell.
                term.clear()?;
                engine.app.dirty = true;
            }
            TermAction::RunProgram { name, argvs } => {
                let said = terminal::hand_over(term, mouse, || {
                    crate::runtime::user_action::run_in_terminal(&name, &argvs)
                })?;
                let (w, h) = crossterm::terminal::size().unwrap_or(engine.app.size);
                engine.handle(Message::Resize(w, h));
                engine.handle(Message::Notice {
                    text: said.0,
                    error: said.1,
                });
                engine.app.dirty = true;
            }
            TermAction::Suspend => {
                terminal::suspend(term, mouse)?;
                let (w, h) = crossterm::terminal::size().unwrap_or(engine.app.size);
                engine.handle(Message::Resize(w, h));
                engine.app.dirty = true;
            }
        }
    }
    Ok(false)
}

/// How long the dashboard stays quiet (no key, no answer, no job's news) before it hands the
/// heap's freed pages back to the system (`malloc_trim`): what the start, a page of answers or a
/// dialog allocated and freed would otherwise stay resident while the dashboard idles, and the
/// mirror connection's page cache with it (re-read from the system's file cache when next
/// needed). Once per quiet spell: an idle dashboard then sleeps with no timer, as before.
const QUIET_TRIM: Duration = Duration::from_secs(2);

async fn event_loop(
    term: &mut Term,
    engine: &mut Engine,
    cancel: &CancellationToken,
    mouse: bool,
    started: std::time::Instant,
) -> anyhow::Result<()> {
    let mut events = terminal::events();
    // Draw the first frame before any request goes out.
    term.draw(|f| crate::ui::render(&engine.app, f))?;
    engine.app.dirty = false;
    let mut rows_seen = first_rows(&engine.app, started, false);
    // Debug builds only: lets the terminal-restore tests panic with every mode set.
    #[cfg(debug_assertions)]
    if std::env::var_os("CRMDASH_DEBUG_PANIC").is_some_and(|v| v == "1") {
        panic!("CRMDASH_DEBUG_PANIC=1: deliberate panic after the first frame");
    }
    let first = engine.start();
    if act(term, engine, first, mouse)? {
        return Ok(());
    }
    // Whether the heap was handed back since the last message (see `QUIET_TRIM`).
    let mut trimmed = false;
    loop {
        if engine.app.dirty {
            term.draw(|f| crate::ui::render(&engine.app, f))?;
            engine.app.dirty = false;
            rows_seen = first_rows(&engine.app, started, rows_seen);
        }
        let deadline = engine.app.next_deadline();
        // `biased`: polled in this order, not at random. A signal wins over everything (the
        // terminal is restored at once); the user's input comes before the app's own queue,
        // so a burst of answers or progress cannot make keys wait; the timer comes last, as a
        // tick is only due when nothing else happened.
        let msg = tokio::select! {
            biased;
            _ = cancel.cancelled() => Message::Terminate,
            ev = events.next() => match ev {
                Some(Ok(e)) => match to_message(e) {
                    Some(m) => m,
                    None => continue,
                },
                Some(Err(e)) => return Err(e.into()),
                None => return Ok(()),
            },
            Some(m) = engine.recv() => m,
            _ = sleep_until(deadline), if deadline.is_some() => Message::Tick,
            _ = tokio::time::sleep(QUIET_TRIM), if !trimmed => {
                // SQLite's cache first: the pages it frees are then handed back with the rest.
                if let Some(mirror) = engine.mirror() {
                    mirror.release_cache();
                }
                export::give_memory_back();
                trimmed = true;
                continue;
            }
        };
        // A tick alone (a timer) frees little: it does not call for another trim.
        trimmed &= matches!(msg, Message::Tick);
        let actions = engine.handle(msg);
        if act(term, engine, actions, mouse)? {
            return Ok(());
        }
        // Everything already queued is handled before the next draw. Polled inside `select!`
        // (not `now_or_never`) so the stream keeps the task's real waker.
        loop {
            let next = tokio::select! {
                biased;
                ev = events.next() => match ev {
                    Some(Ok(e)) => to_message(e),
                    Some(Err(e)) => return Err(e.into()),
                    None => return Ok(()),
                },
                Some(m) = engine.recv() => Some(m),
                _ = std::future::ready(()) => break,
            };
            if let Some(m) = next {
                let actions = engine.handle(m);
                if act(term, engine, actions, mouse)? {
                    return Ok(());
                }
            }
        }
    }
}
