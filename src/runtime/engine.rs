//! The effect runner without a terminal: owns the `App` and the message channel, and routes
//! what `update` returns to the concern that owns it: requests and their cancellation
//! (`requests`), profiles with their clients and mirrors (`profiles`), the views file and
//! URLs (`workspace`), the state file (`state_file`) and logging in (`login`). What only the
//! terminal can do goes back to the caller as `TermAction`s. Tests and headless runs drive it
//! directly; `run_dashboard` puts the terminal around it.

use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::time::Instant;

use super::login::{Login, TokenLookupFuture};
use super::profiles::Profiles;
use super::requests::{RequestCx, Requests, needs_source};
use super::source::DataSource;
use super::state_file::StateFile;
use super::workspace::Workspace;
use crate::app::{App, Effect, Message, Now};

/// What only the terminal side can do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TermAction {
    /// Put text on the clipboard (OSC 52).
    Copy(String),
    Suspend,
    /// Clear the terminal and redraw every cell.
    Redraw,
    /// Hand the terminal to these programs (a user action in `suspend` mode), one after
    /// another, then take it back.
    RunProgram {
        name: String,
        argvs: Vec<Vec<String>>,
    },
    Quit,
}

pub struct Engine {
    pub app: App,
    tx: UnboundedSender<Message>,
    rx: UnboundedReceiver<Message>,
    requests: Requests,
    profiles: Profiles,
    workspace: Workspace,
    state: StateFile,
    login: Login,
    jobs: super::jobs::Jobs,
}

impl Engine {
    pub fn new(
        app: App,
        source: Option<Arc<dyn DataSource>>,
        no_source_reason: impl Into<String>,
        state_file: Option<PathBuf>,
    ) -> Engine {
        let (tx, rx) = unbounded_channel();
        Engine {
            app,
            tx,
            rx,
            requests: Requests::new(source, no_source_reason.into()),
            profiles: Profiles::default(),
            workspace: Workspace::default(),
            state: StateFile::new(state_file),
            login: Login::default(),
            jobs: super::jobs::Jobs::default(),
        }
    }

    /// Uses this local mirror: rows at start, offline fallback, search, background sync
    /// every `sync_every`. `client` (the one the source was made with, if any) is put in the
    /// foreground lane, the sync's clone in the background lane.
    pub fn with_mirror(
        mut self,
        mirror: super::mirror::MirrorRuntime,
        sync_every: Option<std::time::Duration>,
        client: Option<&crate::api::Client>,
    ) -> Engine {
        let mut mirror = mirror;
        mirror.notify(self.tx.clone());
        self.profiles.set_mirror(mirror);
        self.app.set_mirror(true, sync_every);
        if let Some(c) = client {
            self.install_client(c);
        }
        self
    }

    /// The local mirror's runtime, if on.
    pub fn mirror(&self) -> Option<&super::mirror::MirrorRuntime> {
        self.profiles.mirror()
    }

    /// Paints the active tab's rows from the mirror before anything else, waiting at most
    /// `budget` for the disk (the first frame then has rows; later, they come as a message).
    pub async fn preload_mirror(&mut self, budget: std::time::Duration) {
        let Some(reader) = self.profiles.reader() else {
            return;
        };
        if !self.app.mirror.enabled {
            return;
        }
        let spec = self.app.tab().spec();
        let read_spec = spec.clone();
        let read = reader.run(move |r| r.page(&read_spec));
        if let Ok(result) = tokio::time::timeout(budget, read).await {
            let result = result.map(|p| p.map(Arc::new));
            self.handle(Message::Mirror(crate::app::mirror::MirrorMessage::Rows {
                spec,
                result,
                generation: self.app.mirror.generation,
            }));
        }
    }

    /// The config file's `[ui] per_page` (when it sets one), saved with the state.
    pub fn with_config_per_page(mut self, per_page: Option<u32>) -> Engine {
        self.state.set_config_per_page(per_page);
        self
    }

    /// Lets the palette's effects (views file, `o`, `:profile`) run with this context.
    pub fn with_workspace(mut self, cx: super::workspace::WorkspaceContext) -> Engine {
        self.workspace.set_context(cx);
        self
    }

    /// The source comes from `lookup`, started by `start`; until it answers, requests wait.
    pub fn with_token_lookup(mut self, lookup: TokenLookupFuture) -> Engine {
        self.login.set_lookup(lookup);
        self.app.await_token();
        self
    }

    /// Effects waiting for the token lookup (tests).
    pub fn deferred(&self) -> usize {
        self.requests.deferred()
    }

    /// Lets the login dialog's token be checked and stored with this context.
    pub fn with_login(mut self, ctx: super::login::LoginContext) -> Engine {
        self.login.set_context(ctx);
        self
    }

    /// With a channel made beforehand (so a client observer can already hold its sender).
    pub fn with_channel(
        mut self,
        tx: UnboundedSender<Message>,
        rx: UnboundedReceiver<Message>,
    ) -> Engine {
        self.tx = tx;
        self.rx = rx;
        self
    }

    /// Replaces the source (after a login gave a token); requests already running finish.
    pub fn set_source(&mut self, source: Arc<dyn DataSource>) {
        self.requests.set_source(source);
    }

    pub fn sender(&self) -> UnboundedSender<Message> {
        self.tx.clone()
    }

    /// Starts the token lookup, if any, and loads the first tab.
    pub fn start(&mut self) -> Vec<TermAction> {
        self.login.start_lookup(&self.tx);
        let fx = self.app.start(Now::current());
        self.run(fx)
    }

    /// One message through `update`, then its effects. The concerns look at a message first
    /// only for their own bookkeeping (finished requests, answers `settle` waits for, the
    /// mirror of a profile switched to); what a message means (a token to use, a note to
    /// show) is the app's to decide, and comes back as effects.
    pub fn handle(&mut self, msg: Message) -> Vec<TermAction> {
        self.requests.finished(&msg);
        self.jobs.finished(&msg);
        self.profiles
            .before_update(&msg, &self.app.workspace.profile);
        let fx = self.app.update(msg, Now::current());
        self.run(fx)
    }

    /// The effects held while the token was looked up, now that it is settled: they go out
    /// (or fail with the reason) before anything newer.
    fn release_deferred(&mut self) -> Vec<TermAction> {
        let held = self.requests.take_deferred();
        self.run(held)
    }

    /// The client the source was built with (the dashboard's start).
    pub fn with_client(mut self, client: Option<crate::api::Client>) -> Engine {
        self.profiles.set_client(client);
        self
    }

    /// From now on requests go out with this client's token (a login or the token lookup).
    fn install_client(&mut self, client: &crate::api::Client) {
        let format = self.app.config.cell_format();
        let source = self.profiles.install_client(client, format, &self.tx);
        self.requests.set_source(source);
    }

    /// A queued message, if any (for draining before a draw).
    pub fn try_recv(&mut self) -> Option<Message> {
        self.rx.try_recv().ok()
    }

    pub async fn recv(&mut self) -> Option<Message> {
        self.rx.recv().await
    }

    /// The next message or, when the app's deadline passes first, `Tick`. For running without
    /// a terminal (tests, headless checks).
    pub async fn next_message(&mut self) -> Message {
        let deadline = self.app.next_deadline();
        tokio::select! {
            biased;
            Some(m) = self.rx.recv() => m,
            _ = sleep_until(deadline), if deadline.is_some() => Message::Tick,
        }
    }

    /// Handles messages until no request is in flight and no deadline is due sooner than
    /// `quiet` (tests: let the app settle).
    pub async fn settle(&mut self, quiet: std::time::Duration) -> Vec<TermAction> {
        let mut out = Vec::new();
        loop {
            let horizon = Instant::now() + quiet;
            let idle = self.app.requests_in_flight() == 0
                && !self.requests.reading_log()
                && !self.profiles.busy()
                && !self.jobs.busy()
                && !self.app.busy()
                && self.app.next_deadline().is_none_or(|d| d > horizon)
                && self.rx.is_empty();
            if idle {
                return out;
            }
            let m = self.next_message().await;
            out.extend(self.handle(m));
        }
    }

    /// Runs effects (what `update` returned; dialogs and tests may hand some in directly),
    /// each by the concern that owns it.
    pub fn run(&mut self, fx: Vec<Effect>) -> Vec<TermAction> {
        let mut out = Vec::new();
        for e in fx {
            // While the token is looked up (the keyring may wait on an unlock prompt) the app
            // goes on as usual: keys, tabs, dialogs. Only what needs the service is held, in
            // order, and released by the lookup's `UseClient` / `NoClient`; a cancel removes
            // its held request instead of reaching a task that never started.
            if self.app.status.awaiting_token && needs_source(&e) {
                self.requests.defer(e);
                continue;
            }
            match e {
                Effect::Summarize {
                    id,
                    spec,
                    opts,
                    max_pages,
                    from_service,
                } => {
                    let mirror = self.profiles.reader().filter(|_| !from_service);
                    let pages = self.requests.job_pages(mirror);
                    let tx = self.tx.clone();
                    let task = super::pipeline::summarize(pages, id, spec, opts, max_pages, tx);
                    self.jobs.spawn(id, task);
                }
                Effect::Collect {
                    id,
                    spec,
                    max_pages,
                    from_service,
                } => {
                    let mirror = self.profiles.reader().filter(|_| !from_service);
                    let pages = self.requests.job_pages(mirror);
                    let task =
                        super::pipeline::collect(pages, id, spec, max_pages, self.tx.clone());
                    self.jobs.spawn(id, task);
                }
                Effect::Cancel(id) => {
                    // A request, or a reading run as a job: whichever it is stops.
                    self.jobs.cancel(id);
                    let cx = RequestCx {
                        tx: &self.tx,
                        mirror: self.profiles.reader(),
                        offline: self.app.offline_refusal(),
                        admission: None,
                    };
                    self.requests.run(Effect::Cancel(id), cx);
                }
                Effect::Fetch { .. }
                | Effect::CreateContact { .. }
                | Effect::Reschedule { .. }
                | Effect::RescheduleLog { .. }
                | Effect::RecordWrite { .. }
                | Effect::FindUnsent { .. }
                | Effect::ReadJournal { .. } => {
                    let cx = RequestCx {
                        tx: &self.tx,
                        mirror: self.profiles.reader(),
                        offline: self.app.offline_refusal(),
                        admission: self.app.admission(&e),
                    };
                    self.requests.run(e, cx);
                }
                Effect::StartJob { id, job } => {
                    let env = super::jobs::JobEnv {
                        pages: self.requests.job_pages(self.profiles.reader()),
                        offline: self.app.offline_refusal(),
                        mirror: self.profiles.sync_cx(&self.tx),
                    };
                    self.jobs.start(id, job, env, &self.tx);
                }
                // `x` in `:jobs` and Esc in the export dialog: every kind stops here. A job
                // still held for the token lookup never started: it ends here.
                Effect::CancelJob(id) => {
                    if self.requests.drop_held_job(id) {
                        let _ = self.tx.send(Message::Job {
                            id,
                            event: crate::app::jobs::JobEvent::Cancelled,
                        });
                    }
                    self.jobs.cancel(id)
                }
                Effect::ReadPlan { id, path, words } => {
                    let task = super::jobs::plan::read(
                        id,
                        path,
                        words,
                        &self.app.forms.config,
                        self.requests.source(),
                        &self.tx,
                    );
                    self.jobs.spawn(id, task);
                }
                Effect::Login {
                    id,
                    token,
                    base_url,
                } => {
                    if let Some(task) = self.login.check(id, token.0, base_url, &self.tx) {
                        self.requests.track(id, task);
                    }
                }
                Effect::UseClient(client) => {
                    self.install_client(&client.0);
                    out.extend(self.release_deferred());
                }
                Effect::NoClient { reason } => {
                    self.requests.set_no_source(reason);
                    out.extend(self.release_deferred());
                }
                Effect::ExportDupes {
                    id,
                    report,
                    path,
                    format,
                    overwrite,
                } => super::dupes::export(id, report, path, format, overwrite, &self.tx),
                Effect::Copy(text) => out.push(TermAction::Copy(text)),
                Effect::SaveState(state) => self.state.save(&state),
                Effect::RecordAtExit { path, entries } => {
                    // At once: the process exits right after.
                    for entry in &entries {
                        if let Err(e) = crate::journal::record_durably(&path, entry) {
                            tracing::warn!("the write journal {}: {e}", path.display());
                        }
                    }
                }
                Effect::Suspend => out.push(TermAction::Suspend),
                Effect::RunUserAction { name, argvs, mode } => match mode {
                    crate::user_actions::Mode::Suspend => {
                        out.push(TermAction::RunProgram { name, argvs })
                    }
                    crate::user_actions::Mode::Background => {
                        super::user_action::run_in_background(name, argvs, self.tx.clone())
                    }
                },
                Effect::Redraw => out.push(TermAction::Redraw),
                Effect::EditViews { .. } | Effect::ReadViews { .. } | Effect::OpenUrl { .. } => {
                    out.extend(self.workspace.run(e, &self.tx))
                }
                Effect::SwitchProfile { name } => self.profiles.switch(
                    name,
                    &self.app.workspace.profile,
                    self.workspace.context(),
                    &self.tx,
                ),
                Effect::Mirror(e) => self.profiles.mirror_effect(
                    e,
                    &self.tx,
                    self.app.mirror.generation,
                    self.app.config.cell_format(),
                    self.requests.source(),
                ),
                Effect::Quit => {
                    self.requests.stop_all();
                    self.jobs.stop_all();
                    out.push(TermAction::Quit);
                }
            }
        }
        out
    }

    /// Why the last save of the remembered state failed (`None` after a success), to be
    /// said once the terminal is restored.
    pub fn state_save_error(&self) -> Option<String> {
        self.state.error()
    }
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}
