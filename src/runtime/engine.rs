//! The effect runner without a terminal: owns the `App`, the message channel and the running
//! tasks. `update` results become spawned requests (aborted when superseded), export jobs,
//! state-file writes and terminal actions for the caller. Tests and headless runs drive it
//! directly; `run_dashboard` puts the terminal around it.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::task::AbortHandle;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::source::DataSource;
use crate::app::dialogs::login::TokenLookup;
use crate::app::effects::NewClient;
use crate::app::persist::PersistedState;
use crate::app::{App, Effect, ExportEvent, Message, Now, RequestId};

/// What only the terminal side can do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TermAction {
    /// Put text on the clipboard (OSC 52).
    Copy(String),
    Suspend,
    /// Clear the terminal and redraw every cell.
    Redraw,
    Quit,
}

pub struct Engine {
    pub app: App,
    tx: UnboundedSender<Message>,
    rx: UnboundedReceiver<Message>,
    source: Option<Arc<dyn DataSource>>,
    /// Why there is no source (shown as the error of every request).
    no_source_reason: String,
    tasks: HashMap<RequestId, AbortHandle>,
    exports: HashMap<RequestId, CancellationToken>,
    state_file: Option<PathBuf>,
    /// The last failure to save the state file.
    state_error: Option<String>,
    /// Where a token from the login dialog is checked and kept (no token at start).
    login: Option<super::login::LoginContext>,
    /// The token lookup `start` runs (after the first frame: the keyring may be slow).
    lookup: Option<TokenLookupFuture>,
    /// Effects that need the service, held while the token is looked up (from
    /// `with_token_lookup` until its answer, i.e. while `app.status.awaiting_token`).
    deferred: Vec<Effect>,
    /// `[ui] per_page` when the config file sets it: saved with the remembered state, so a
    /// later change of the file is told from an old value.
    config_per_page: Option<u32>,
    /// Reschedule-log reads on the blocking pool whose answer has not been handled yet (so
    /// `settle` waits for them).
    log_reads: usize,
    /// Views file, opener and profiles for the palette's effects (`runtime::workspace`).
    workspace: Option<super::workspace::WorkspaceContext>,
    /// Profile switches whose client is still being made (so `settle` waits for them).
    switches: usize,
    /// The client requests go out with now, and those of the profiles switched away from
    /// (by profile name): going back reuses a profile's own client, bound to its own host.
    current_client: Option<crate::api::Client>,
    profile_clients: HashMap<String, crate::api::Client>,
    /// The local mirror (`None` when `[cache] enabled = false`).
    mirror: Option<super::mirror::MirrorRuntime>,
    /// Mirror reads, searches and probes whose answer has not been handled yet.
    mirror_work: usize,
    /// The mirrors of the profiles switched away from (by profile name).
    parked_mirrors: HashMap<String, super::mirror::MirrorRuntime>,
}

/// Finds the token and makes the client (the keyring read, off the loop).
pub type TokenLookupFuture = futures::future::BoxFuture<'static, TokenLookup>;

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
            source,
            no_source_reason: no_source_reason.into(),
            tasks: HashMap::new(),
            exports: HashMap::new(),
            state_file,
            state_error: None,
            login: None,
            lookup: None,
            deferred: Vec::new(),
            config_per_page: None,
            log_reads: 0,
            workspace: None,
            switches: 0,
            current_client: None,
            profile_clients: HashMap::new(),
            mirror: None,
            mirror_work: 0,
            parked_mirrors: HashMap::new(),
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
        self.mirror = Some(mirror);
        self.app.set_mirror(true, sync_every);
        if let Some(c) = client {
            self.install_client(c);
        }
        self
    }

    /// The local mirror's runtime, if on.
    pub fn mirror(&self) -> Option<&super::mirror::MirrorRuntime> {
        self.mirror.as_ref()
    }

    /// Paints the active tab's rows from the mirror before anything else, waiting at most
    /// `budget` for the disk (the first frame then has rows; later, they come as a message).
    pub async fn preload_mirror(&mut self, budget: std::time::Duration) {
        let Some(m) = &self.mirror else { return };
        if !self.app.mirror.enabled {
            return;
        }
        let reader = m.reader();
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
        self.config_per_page = per_page;
        self
    }

    /// Lets the palette's effects (views file, `o`, `:profile`) run with this context.
    pub fn with_workspace(mut self, cx: super::workspace::WorkspaceContext) -> Engine {
        self.workspace = Some(cx);
        self
    }

    /// The source comes from `lookup`, started by `start`; until it answers, requests wait.
    pub fn with_token_lookup(mut self, lookup: TokenLookupFuture) -> Engine {
        self.lookup = Some(lookup);
        self.app.await_token();
        self
    }

    /// Effects waiting for the token lookup (tests).
    pub fn deferred(&self) -> usize {
        self.deferred.len()
    }

    /// Lets the login dialog's token be checked and stored with this context.
    pub fn with_login(mut self, ctx: super::login::LoginContext) -> Engine {
        self.login = Some(ctx);
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
        self.source = Some(source);
    }

    pub fn sender(&self) -> UnboundedSender<Message> {
        self.tx.clone()
    }

    /// Starts the token lookup, if any, and loads the first tab.
    pub fn start(&mut self) -> Vec<TermAction> {
        if let Some(lookup) = self.lookup.take() {
            let tx = self.tx.clone();
            tokio::spawn(async move {
                let _ = tx.send(Message::TokenLookup(Box::new(lookup.await)));
            });
        }
        let fx = self.app.start(Now::current());
        self.run(fx)
    }

    /// One message through `update`, then its effects. The engine looks at a message first
    /// only for its own bookkeeping (finished tasks and exports, log reads `settle` waits
    /// for); what a message means (a token to use, a note to show) is the app's to decide,
    /// and comes back as effects.
    pub fn handle(&mut self, msg: Message) -> Vec<TermAction> {
        match &msg {
            Message::Fetched { id, .. }
            | Message::ContactCreated { id, .. }
            | Message::Rescheduled { id, .. }
            | Message::LoggedIn { id, .. } => {
                self.tasks.remove(id);
            }
            Message::Summary { id, event }
                if !matches!(event, crate::app::message::SummaryEvent::Progress { .. }) =>
            {
                self.tasks.remove(id);
            }
            Message::Collected { id, event }
                if !matches!(event, crate::app::message::CollectEvent::Progress { .. }) =>
            {
                self.tasks.remove(id);
            }
            Message::Export { id, event } if !matches!(event, ExportEvent::Progress { .. }) => {
                self.exports.remove(id);
            }
            Message::RescheduleLog { .. } => {
                self.log_reads = self.log_reads.saturating_sub(1);
            }
            Message::ProfileSwitched { profile, result } => {
                self.switches = self.switches.saturating_sub(1);
                if let Ok(client) = result.as_ref() {
                    self.switch_mirror(profile, client.0.base_url().as_str());
                }
            }
            Message::Mirror(
                crate::app::mirror::MirrorMessage::Rows { .. }
                | crate::app::mirror::MirrorMessage::Search { .. }
                | crate::app::mirror::MirrorMessage::Related { .. }
                | crate::app::mirror::MirrorMessage::Probed(_),
            ) => {
                self.mirror_work = self.mirror_work.saturating_sub(1);
            }
            _ => {}
        }
        let fx = self.app.update(msg, Now::current());
        self.run(fx)
    }

    /// The effects held while the token was looked up, now that it is settled: they go out
    /// (or fail with the reason) before anything newer.
    fn release_deferred(&mut self) -> Vec<TermAction> {
        let held = std::mem::take(&mut self.deferred);
        self.run(held)
    }

    /// From now on requests go out with this client's token (a login or the token lookup).
    /// The client the source was built with (the dashboard's start).
    pub fn with_client(mut self, client: Option<crate::api::Client>) -> Engine {
        self.current_client = client;
        self
    }

    fn install_client(&mut self, client: &crate::api::Client) {
        self.current_client = Some(client.clone());
        let format = self.app.config.cell_format();
        let client = match &mut self.mirror {
            Some(m) => m.adopt_client(client),
            None => client.clone(),
        };
        let source = super::ClientSource::new(client, format, Some(self.tx.clone()));
        self.source = Some(Arc::new(source));
    }

    /// `:profile NAME`: a profile used before in this session gets its own client back at
    /// once; another is looked up (`runtime::workspace::switch_profile`).
    fn switch_profile(&mut self, name: String) {
        if let Some(client) = self.profile_clients.remove(&name) {
            self.park_client();
            let _ = self.tx.send(Message::ProfileSwitched {
                profile: name,
                result: Box::new(Ok(NewClient(client))),
            });
            return;
        }
        let Some(cx) = self.workspace.clone() else {
            let _ = self.tx.send(Message::ProfileSwitched {
                profile: name,
                result: Box::new(Err("profiles cannot be switched here".into())),
            });
            return;
        };
        self.park_client();
        self.switches += 1;
        super::workspace::switch_profile(self.tx.clone(), cx, name);
    }

    /// Each profile has its own mirror (one file per profile and base URL): the active one's
    /// sync stops (it resumes next time) and it is kept for a return; the new profile's is
    /// taken from the kept ones or made. The app then reads its rows (`App::mirror_switched`).
    fn switch_mirror(&mut self, profile: &str, base_url: &str) {
        let Some(mut current) = self.mirror.take() else {
            return;
        };
        current.stop();
        let next = self
            .parked_mirrors
            .remove(profile)
            .or_else(|| current.for_profile(profile, base_url));
        let previous = self.app.workspace.profile.clone();
        self.parked_mirrors.insert(previous, current);
        self.mirror = next;
    }

    /// Keeps the active profile's client for a return to it (`:profile`). Requests go on with
    /// it until the app installs the next profile's.
    fn park_client(&mut self) {
        if let Some(c) = &self.current_client {
            let profile = self.app.workspace.profile.clone();
            self.profile_clients.insert(profile, c.clone());
        }
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
                && self.log_reads == 0
                && self.switches == 0
                && self.mirror_work == 0
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

    /// Runs effects (what `update` returned; dialogs and tests may hand some in directly).
    pub fn run(&mut self, fx: Vec<Effect>) -> Vec<TermAction> {
        let mut out = Vec::new();
        for e in fx {
            // While the token is looked up (the keyring may wait on an unlock prompt) the app
            // goes on as usual: keys, tabs, dialogs. Only what needs the service is held, in
            // order, and released by the lookup's `UseClient` / `NoClient`; a cancel removes
            // its held request instead of reaching a task that never started.
            if self.app.status.awaiting_token && needs_source(&e) {
                self.deferred.push(e);
                continue;
            }
            match e {
                Effect::Fetch { id, spec } => self.fetch(id, spec),
                Effect::Cancel(id) => {
                    if let Some(h) = self.tasks.remove(&id) {
                        h.abort();
                    }
                    self.deferred.retain(|d| {
                        !matches!(d, Effect::Fetch { id: f, .. }
                            | Effect::Summarize { id: f, .. }
                            | Effect::Collect { id: f, .. }
                            if *f == id)
                    });
                }
                Effect::Export {
                    id,
                    spec,
                    path,
                    format,
                    overwrite,
                } => self.export(id, spec, super::export::Target { path, overwrite }, format),
                Effect::CancelExport(id) => {
                    if let Some(c) = self.exports.get(&id) {
                        c.cancel();
                    }
                    let before = self.deferred.len();
                    self.deferred
                        .retain(|d| !matches!(d, Effect::Export { id: x, .. } if *x == id));
                    if self.deferred.len() < before {
                        let _ = self.tx.send(Message::Export {
                            id,
                            event: ExportEvent::Cancelled,
                        });
                    }
                }
                Effect::Summarize {
                    id,
                    spec,
                    opts,
                    max_pages,
                    from_service,
                } => {
                    let pages = self.pages(from_service);
                    let task = super::pipeline::summarize(
                        pages,
                        id,
                        spec,
                        opts,
                        max_pages,
                        self.tx.clone(),
                    );
                    self.tasks.insert(id, tokio::spawn(task).abort_handle());
                }
                Effect::Collect {
                    id,
                    spec,
                    max_pages,
                    from_service,
                } => {
                    let pages = self.pages(from_service);
                    let task =
                        super::pipeline::collect(pages, id, spec, max_pages, self.tx.clone());
                    self.tasks.insert(id, tokio::spawn(task).abort_handle());
                }
                Effect::CreateContact { id, contact, key } => {
                    // The created contact goes into the mirror before the form hears of it,
                    // so Ctrl-F finds it at once (not only after the next sync).
                    let reader = self.mirror.as_ref().map(|m| m.reader());
                    self.write(id, move |s| {
                        let fut = s.create_contact(contact, key);
                        async move {
                            let result = fut.await;
                            if let (Ok(created), Some(reader)) = (&result, reader)
                                && let Some(c) = created.record.clone()
                            {
                                let _ = reader.run(move |r| r.remember(vec![c])).await;
                            }
                            Message::ContactCreated {
                                id,
                                result: Box::new(result),
                            }
                        }
                    })
                }
                Effect::Reschedule {
                    id,
                    appointment_id,
                    body,
                } => self.write(id, move |s| {
                    let fut = s.reschedule(appointment_id, body);
                    async move {
                        Message::Rescheduled {
                            id,
                            result: Box::new(fut.await),
                        }
                    }
                }),
                Effect::Login {
                    id,
                    token,
                    base_url,
                } => self.login(id, token.0, base_url),
                Effect::RescheduleLog { path, append, last } => {
                    self.log_reads += 1;
                    let tx = self.tx.clone();
                    // Small file I/O, but off the loop all the same.
                    tokio::task::spawn_blocking(move || {
                        let result =
                            super::reschedule_log::reschedule_log(&path, append.as_ref(), last);
                        let _ = tx.send(Message::RescheduleLog { result });
                    });
                }
                Effect::UseClient(client) => {
                    self.install_client(&client.0);
                    out.extend(self.release_deferred());
                }
                Effect::NoClient { reason } => {
                    self.no_source_reason = reason;
                    out.extend(self.release_deferred());
                }
                Effect::Copy(text) => out.push(TermAction::Copy(text)),
                Effect::SaveState(state) => self.save_state(&state),
                Effect::Suspend => out.push(TermAction::Suspend),
                Effect::Redraw => out.push(TermAction::Redraw),
                Effect::EditViews { path, edit } => {
                    super::workspace::edit_views_file(self.tx.clone(), path, edit)
                }
                Effect::ReadViews { path } => {
                    super::workspace::read_views_file(self.tx.clone(), path)
                }
                Effect::OpenUrl { url } => {
                    let opener = match &self.workspace {
                        Some(cx) => cx.opener.clone(),
                        None => super::opener::Opener::from_settings(None),
                    };
                    // An SSH session: the address goes on the clipboard (OSC 52 reaches the
                    // local terminal) as well as in the status bar.
                    if !opener.can_open() {
                        out.push(TermAction::Copy(url.clone()));
                    }
                    super::workspace::open_url(self.tx.clone(), opener, url);
                }
                Effect::SwitchProfile { name } => self.switch_profile(name),
                Effect::Mirror(e) => self.mirror_effect(e),
                Effect::Quit => {
                    if let Some(m) = &mut self.mirror {
                        m.stop();
                    }
                    for (_, h) in self.tasks.drain() {
                        h.abort();
                    }
                    for (_, c) in self.exports.drain() {
                        c.cancel();
                    }
                    self.deferred.clear();
                    out.push(TermAction::Quit);
                }
            }
        }
        out
    }

    fn fetch(&mut self, id: RequestId, spec: crate::app::QuerySpec) {
        let tx = self.tx.clone();
        let Some(source) = self.source.clone() else {
            let _ = tx.send(Message::Fetched {
                id,
                result: Err(self.no_source_reason.clone()),
                elapsed: std::time::Duration::ZERO,
            });
            return;
        };
        let reader = self.mirror.as_ref().map(|m| m.reader());
        let offline = self.app.is_offline();
        let handle = tokio::spawn(async move {
            let started = Instant::now();
            // Offline, pages come from the mirror at once; the probe finds the service again.
            if offline && let Some(reader) = &reader {
                let spec2 = spec.clone();
                if let Ok(Some(page)) = reader.run(move |r| r.page(&spec2)).await {
                    let _ = tx.send(Message::Fetched {
                        id,
                        result: Ok(Arc::new(page)),
                        elapsed: started.elapsed(),
                    });
                    return;
                }
            }
            let result = source.fetch(spec.clone()).await;
            let elapsed = started.elapsed();
            if let Err(e) = &result {
                tracing::warn!(error = %e.summary(), "list request failed");
            }
            let result = match result {
                Err(e) if super::mirror::unreachable(&e) && reader.is_some() => {
                    let _ = tx.send(Message::Mirror(
                        crate::app::mirror::MirrorMessage::Connectivity(Some(e.summary())),
                    ));
                    let from_mirror = match &reader {
                        Some(r) => r.run(move |r| r.page(&spec)).await,
                        None => Ok(None),
                    };
                    match from_mirror {
                        Ok(Some(page)) => Ok(Arc::new(page)),
                        _ => Err(e.summary()),
                    }
                }
                other => other.map(Arc::new).map_err(|e| e.summary()),
            };
            let _ = tx.send(Message::Fetched {
                id,
                result,
                elapsed,
            });
        });
        self.tasks.insert(id, handle.abort_handle());
    }

    /// Where the pipeline's and timeline's pages come from: the mirror's complete copy when
    /// there is one (unless the user asked for the service), else the service.
    fn pages(&self, from_service: bool) -> super::pipeline::Pages {
        super::pipeline::Pages {
            source: self.source.clone(),
            reason: self.no_source_reason.clone(),
            mirror: self
                .mirror
                .as_ref()
                .filter(|_| !from_service)
                .map(|m| m.reader()),
        }
    }

    /// Runs a write a dialog asked for; its answer comes back as the message `run` makes.
    /// Without a source, the answer is the not-logged-in error.
    fn write<F, Fut>(&mut self, id: RequestId, run: F)
    where
        F: FnOnce(&dyn DataSource) -> Fut,
        Fut: std::future::Future<Output = Message> + Send + 'static,
    {
        let tx = self.tx.clone();
        // Offline, a write is refused at once (never queued): the form keeps its content
        // and shows why.
        let refused = self.app.offline_refusal().map(|why| {
            tracing::info!("write refused: offline");
            crate::api::ApiError::new(crate::api::ErrorKind::Network, why)
        });
        let source = if refused.is_some() {
            None
        } else {
            self.source.clone()
        };
        let Some(source) = source else {
            let err = refused.unwrap_or_else(|| {
                crate::api::ApiError::new(
                    crate::api::ErrorKind::Unauthorized,
                    self.no_source_reason.clone(),
                )
            });
            let msg = run(&NoSource(err));
            let handle = tokio::spawn(async move {
                let _ = tx.send(msg.await);
            });
            self.tasks.insert(id, handle.abort_handle());
            return;
        };
        let fut = run(source.as_ref());
        let handle = tokio::spawn(async move {
            let _ = tx.send(fut.await);
        });
        self.tasks.insert(id, handle.abort_handle());
    }

    fn login(&mut self, id: RequestId, token: secrecy::SecretString, base_url: Option<String>) {
        let tx = self.tx.clone();
        let Some(ctx) = self.login.clone() else {
            let _ = tx.send(Message::LoggedIn {
                id,
                result: Box::new(Err("logging in is not possible here".into())),
            });
            return;
        };
        let handle = tokio::spawn(async move {
            let result = super::login::login(ctx, token, base_url).await;
            let _ = tx.send(Message::LoggedIn {
                id,
                result: Box::new(result),
            });
        });
        self.tasks.insert(id, handle.abort_handle());
    }

    /// Runs an export into a staging file beside the target, then puts it in place
    /// (`export::Target::place`: an existing file is replaced only when the user said so).
    fn export(
        &mut self,
        id: RequestId,
        spec: crate::app::QuerySpec,
        target: super::export::Target,
        format: crate::app::ExportFormat,
    ) {
        let tx = self.tx.clone();
        let reason = self.no_source_reason.clone();
        // Offline, the pages come from the local mirror (the same writers, the same bytes).
        let from_mirror = self
            .mirror
            .as_ref()
            .filter(|_| self.app.is_offline())
            .map(|m| m.reader());
        let source = self.source.clone();
        if from_mirror.is_none() && source.is_none() {
            let _ = tx.send(Message::Export {
                id,
                event: ExportEvent::Failed(self.no_source_reason.clone()),
            });
            return;
        }
        let cancel = CancellationToken::new();
        self.exports.insert(id, cancel.clone());
        let progress_tx = tx.clone();
        let progress = Box::new(move |event: ExportEvent| {
            let _ = progress_tx.send(Message::Export { id, event });
        });
        tokio::spawn(async move {
            let staged = target.staging_path();
            let event = match (from_mirror, source) {
                (Some(reader), _) => {
                    let job = super::export::Job {
                        lister: super::export::Lister::Mirror(reader),
                        path: staged.clone(),
                        format,
                        progress,
                        cancel,
                    };
                    spec.with_query(job)
                        .await
                        .unwrap_or_else(ExportEvent::Failed)
                }
                (None, Some(source)) => {
                    source
                        .export(spec, staged.clone(), format, progress, cancel)
                        .await
                }
                (None, None) => ExportEvent::Failed(reason),
            };
            let event = match event {
                ExportEvent::Done { records, .. } => {
                    match tokio::task::spawn_blocking(move || target.place(&staged)).await {
                        Ok(Ok(path)) => ExportEvent::Done { records, path },
                        Ok(Err(e)) => ExportEvent::Failed(e),
                        Err(e) => ExportEvent::Failed(format!("Export failed: {e}")),
                    }
                }
                // The job names the file it wrote: the user knows the target's name.
                ExportEvent::Failed(e) => ExportEvent::Failed(e.replace(
                    &staged.display().to_string(),
                    &target.path.display().to_string(),
                )),
                other => other,
            };
            let _ = tx.send(Message::Export { id, event });
        });
    }

    /// Runs a mirror effect: reads and searches on the blocking pool, the sync as a task.
    fn mirror_effect(&mut self, e: crate::app::mirror::MirrorEffect) {
        use crate::app::mirror::{MirrorEffect, MirrorMessage};
        let tx = self.tx.clone();
        let Some(m) = &mut self.mirror else {
            // No mirror: reads answer "none", so dialogs say how to get one.
            let msg = match e {
                MirrorEffect::Rows(_) | MirrorEffect::Probe(_) => return,
                MirrorEffect::Sync => MirrorMessage::Synced(Err(
                    "no local mirror for this profile ([cache] off or no cache directory)".into(),
                )),
                MirrorEffect::Search { id, .. } => MirrorMessage::Search {
                    id,
                    result: Ok(None),
                },
                MirrorEffect::Related { id, .. } => MirrorMessage::Related {
                    id,
                    result: Ok(None),
                },
            };
            let _ = tx.send(Message::Mirror(msg));
            return;
        };
        let reader = m.reader();
        match e {
            MirrorEffect::Rows(specs) => {
                let generation = self.app.mirror.generation;
                for spec in specs {
                    self.mirror_work += 1;
                    let tx = tx.clone();
                    let reader = reader.clone();
                    tokio::spawn(async move {
                        let s = spec.clone();
                        let result = reader.run(move |r| r.page(&s)).await;
                        let result = result.map(|p| p.map(Arc::new));
                        let _ = tx.send(Message::Mirror(MirrorMessage::Rows {
                            spec,
                            result,
                            generation,
                        }));
                    });
                }
            }
            MirrorEffect::Search { id, text } => {
                self.mirror_work += 1;
                tokio::spawn(async move {
                    let result = reader.run(move |r| r.search(&text)).await;
                    let _ = tx.send(Message::Mirror(MirrorMessage::Search { id, result }));
                });
            }
            MirrorEffect::Related { id, of } => {
                self.mirror_work += 1;
                tokio::spawn(async move {
                    let result = reader.run(move |r| r.related(&of)).await;
                    let _ = tx.send(Message::Mirror(MirrorMessage::Related { id, result }));
                });
            }
            MirrorEffect::Sync => m.start_sync(tx),
            MirrorEffect::Probe(spec) => {
                self.mirror_work += 1;
                // One attempt: the question is only whether the service answers, and the
                // client's retries would say "retrying 4/4" on the status line every 15 s.
                let source: Option<Arc<dyn DataSource>> = match &self.current_client {
                    Some(c) => Some(Arc::new(super::ClientSource::new(
                        c.single_attempt(),
                        self.app.config.cell_format(),
                        None,
                    ))),
                    None => self.source.clone(),
                };
                tokio::spawn(async move {
                    let result = match source {
                        Some(s) => s.fetch(spec).await.map(|_| ()).map_err(|e| e.summary()),
                        None => Err("no API token".to_string()),
                    };
                    let _ = tx.send(Message::Mirror(MirrorMessage::Probed(result)));
                });
            }
        }
    }

    fn save_state(&mut self, state: &PersistedState) {
        let Some(path) = &self.state_file else { return };
        let state = PersistedState {
            config_per_page: self.config_per_page,
            ..state.clone()
        };
        match write_state(path, &state) {
            Ok(()) => self.state_error = None,
            Err(e) => {
                tracing::warn!(path = %path.display(), error = %e, "cannot save dashboard state");
                self.state_error = Some(format!(
                    "the dashboard's state (tabs, sorts, page sizes) was not saved to {}: {e}",
                    path.display()
                ));
            }
        }
    }

    /// Why the last save of the remembered state failed (`None` after a success), to be
    /// said once the terminal is restored.
    pub fn state_save_error(&self) -> Option<String> {
        self.state_error.clone()
    }
}

/// Effects that talk to the service (they wait while the token is being looked up).
fn needs_source(e: &Effect) -> bool {
    matches!(
        e,
        Effect::Fetch { .. }
            | Effect::Mirror(
                crate::app::mirror::MirrorEffect::Sync | crate::app::mirror::MirrorEffect::Probe(_)
            )
            | Effect::Summarize { .. }
            | Effect::Collect { .. }
            | Effect::Export { .. }
            | Effect::CreateContact { .. }
            | Effect::Reschedule { .. }
    )
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

/// Reads the remembered state; a missing or unreadable file is the default (a broken one is
/// logged, never fatal).
pub fn read_state(path: &std::path::Path) -> PersistedState {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|e| {
            tracing::warn!(path = %path.display(), error = %e, "ignoring unreadable dashboard state");
            PersistedState::default()
        }),
        Err(_) => PersistedState::default(),
    }
}

/// Writes atomically (temporary file, then rename).
pub fn write_state(path: &std::path::Path, state: &PersistedState) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension("json.tmp");
    let json = serde_json::to_vec_pretty(state).map_err(std::io::Error::other)?;
    std::fs::write(&tmp, json)?;
    std::fs::rename(&tmp, path)
}

/// Stands in for the service when there is no token: every call fails with the reason.
struct NoSource(crate::api::ApiError);

impl DataSource for NoSource {
    fn fetch(
        &self,
        _spec: crate::app::QuerySpec,
    ) -> futures::future::BoxFuture<'static, Result<crate::app::FetchedPage, crate::api::ApiError>>
    {
        let e = self.0.clone();
        Box::pin(async move { Err(e) })
    }

    fn export(
        &self,
        _spec: crate::app::QuerySpec,
        _path: PathBuf,
        _format: crate::app::ExportFormat,
        _progress: Box<dyn Fn(ExportEvent) + Send + Sync>,
        _cancel: CancellationToken,
    ) -> futures::future::BoxFuture<'static, ExportEvent> {
        let e = self.0.summary();
        Box::pin(async move { ExportEvent::Failed(e) })
    }

    fn create_contact(
        &self,
        _contact: crate::api::NewContact,
        _key: crate::api::IdempotencyKey,
    ) -> futures::future::BoxFuture<
        'static,
        Result<crate::api::Created<crate::api::Contact>, crate::api::ApiError>,
    > {
        let e = self.0.clone();
        Box::pin(async move { Err(e) })
    }

    fn reschedule(
        &self,
        _appointment_id: String,
        _body: serde_json::Map<String, serde_json::Value>,
    ) -> futures::future::BoxFuture<'static, Result<crate::api::AppointmentRef, crate::api::ApiError>>
    {
        let e = self.0.clone();
        Box::pin(async move { Err(e) })
    }
}
