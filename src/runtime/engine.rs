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
    /// Reschedule-log reads on the blocking pool whose answer has not been handled yet (so
    /// `settle` waits for them).
    log_reads: usize,
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
            log_reads: 0,
        }
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
            Message::Export { id, event } if !matches!(event, ExportEvent::Progress { .. }) => {
                self.exports.remove(id);
            }
            Message::RescheduleLog { .. } => {
                self.log_reads = self.log_reads.saturating_sub(1);
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
    fn install_client(&mut self, client: &crate::api::Client) {
        let format = self.app.config.cell_format();
        let source = super::ClientSource::new(client.clone(), format, Some(self.tx.clone()));
        self.source = Some(Arc::new(source));
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
                        !matches!(d, Effect::Fetch { id: f, .. } | Effect::Summarize { id: f, .. }
                            if *f == id)
                    });
                }
                Effect::Export {
                    id,
                    spec,
                    path,
                    format,
                } => self.export(id, spec, path, format),
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
                } => self.summarize(id, spec, opts, max_pages),
                Effect::CreateContact { id, contact, key } => self.write(id, move |s| {
                    let fut = s.create_contact(contact, key);
                    async move {
                        Message::ContactCreated {
                            id,
                            result: Box::new(fut.await),
                        }
                    }
                }),
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
                Effect::Login { id, token } => self.login(id, token.0),
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
                Effect::Quit => {
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
        let handle = tokio::spawn(async move {
            let started = Instant::now();
            let result = source.fetch(spec).await;
            let elapsed = started.elapsed();
            if let Err(e) = &result {
                tracing::warn!(error = %e.summary(), "list request failed");
            }
            let _ = tx.send(Message::Fetched {
                id,
                result: result.map(Arc::new).map_err(|e| e.summary()),
                elapsed,
            });
        });
        self.tasks.insert(id, handle.abort_handle());
    }

    /// Reads the pipeline view's deals (`runtime::pipeline`) as a task `Cancel(id)` aborts.
    fn summarize(
        &mut self,
        id: RequestId,
        spec: crate::app::QuerySpec,
        opts: crate::insights::pipeline::SummaryOptions,
        max_pages: u32,
    ) {
        let tx = self.tx.clone();
        let Some(source) = self.source.clone() else {
            let _ = tx.send(Message::Summary {
                id,
                event: crate::app::message::SummaryEvent::Failed(self.no_source_reason.clone()),
            });
            return;
        };
        let task = super::pipeline::summarize(source, id, spec, opts, max_pages, tx);
        self.tasks.insert(id, tokio::spawn(task).abort_handle());
    }

    /// Runs a write a dialog asked for; its answer comes back as the message `run` makes.
    /// Without a source, the answer is the not-logged-in error.
    fn write<F, Fut>(&mut self, id: RequestId, run: F)
    where
        F: FnOnce(&dyn DataSource) -> Fut,
        Fut: std::future::Future<Output = Message> + Send + 'static,
    {
        let tx = self.tx.clone();
        let Some(source) = self.source.clone() else {
            let err = crate::api::ApiError::new(
                crate::api::ErrorKind::Unauthorized,
                self.no_source_reason.clone(),
            );
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

    fn login(&mut self, id: RequestId, token: secrecy::SecretString) {
        let tx = self.tx.clone();
        let Some(ctx) = self.login.clone() else {
            let _ = tx.send(Message::LoggedIn {
                id,
                result: Box::new(Err("logging in is not possible here".into())),
            });
            return;
        };
        let handle = tokio::spawn(async move {
            let result = super::login::login(ctx, token).await;
            let _ = tx.send(Message::LoggedIn {
                id,
                result: Box::new(result),
            });
        });
        self.tasks.insert(id, handle.abort_handle());
    }

    fn export(
        &mut self,
        id: RequestId,
        spec: crate::app::QuerySpec,
        path: PathBuf,
        format: crate::app::ExportFormat,
    ) {
        let tx = self.tx.clone();
        let Some(source) = self.source.clone() else {
            let _ = tx.send(Message::Export {
                id,
                event: ExportEvent::Failed(self.no_source_reason.clone()),
            });
            return;
        };
        let cancel = CancellationToken::new();
        self.exports.insert(id, cancel.clone());
        let progress_tx = tx.clone();
        let progress = Box::new(move |event: ExportEvent| {
            let _ = progress_tx.send(Message::Export { id, event });
        });
        tokio::spawn(async move {
            let event = source.export(spec, path, format, progress, cancel).await;
            let _ = tx.send(Message::Export { id, event });
        });
    }

    fn save_state(&mut self, state: &PersistedState) {
        let Some(path) = &self.state_file else { return };
        match write_state(path, state) {
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
            | Effect::Summarize { .. }
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
