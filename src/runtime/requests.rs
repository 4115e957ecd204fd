//! Requests to the service and their cancellation: every spawned request by its id (aborted
//! when superseded or at quit), and the effects that need the service, held in order while
//! the token is looked up. The answers come back as messages;
//! [`Requests::finished`] forgets a request once its last message is seen.

use std::collections::HashMap;
use std::sync::Arc;

use tokio::sync::mpsc::UnboundedSender;
use tokio::task::AbortHandle;
use tokio::time::Instant;

use super::mirror::MirrorReader;
use super::source::DataSource;
use crate::api::{ApiError, ErrorKind};
use crate::app::mirror::{MirrorEffect, MirrorMessage};
use crate::app::{Effect, Message, RequestId};
use crate::gate::{WriteIntent, WriteTicket};
use crate::writes::Gatekeeper;

/// What a request needs from the rest of the runtime when it starts.
pub(super) struct RequestCx<'a> {
    pub tx: &'a UnboundedSender<Message>,
    /// The active profile's mirror, when there is one.
    pub mirror: Option<MirrorReader>,
    /// The service is unreachable: pages come from the mirror, writes are refused with this.
    pub offline: Option<String>,
    /// For a write: the gate it passes and its intent (`App::admission`).
    pub admission: Option<(Gatekeeper, WriteIntent)>,
}

pub(super) struct Requests {
    source: Option<Arc<dyn DataSource>>,
    /// Why there is no source (shown as the error of every request).
    no_source_reason: String,
    tasks: HashMap<RequestId, AbortHandle>,
    /// Effects that need the service, held while the token is looked up (from
    /// `Engine::with_token_lookup` until its answer, i.e. while `app.status.awaiting_token`).
    deferred: Vec<Effect>,
    /// Reschedule-log reads on the blocking pool whose answer has not been handled yet (so
    /// `settle` waits for them).
    log_reads: usize,
}

impl Requests {
    pub fn new(source: Option<Arc<dyn DataSource>>, no_source_reason: String) -> Requests {
        Requests {
            source,
            no_source_reason,
            tasks: HashMap::new(),
            deferred: Vec::new(),
            log_reads: 0,
        }
    }

    pub fn source(&self) -> Option<Arc<dyn DataSource>> {
        self.source.clone()
    }

    pub fn set_source(&mut self, source: Arc<dyn DataSource>) {
        self.source = Some(source);
    }

    /// No token: requests fail with `reason` from now on.
    pub fn set_no_source(&mut self, reason: String) {
        self.no_source_reason = reason;
    }

    /// Holds an effect until the token lookup settles.
    pub fn defer(&mut self, e: Effect) {
        self.deferred.push(e);
    }

    /// The held effects, in order, to run now that the lookup settled.
    pub fn take_deferred(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.deferred)
    }

    pub fn deferred(&self) -> usize {
        self.deferred.len()
    }

    /// Whether a read of the reschedule log is still to answer.
    pub fn reading_log(&self) -> bool {
        self.log_reads > 0
    }

    /// Forgets a request whose last message this is (a progress report is not the last).
    pub fn finished(&mut self, msg: &Message) {
        match msg {
            Message::Fetched { id, .. }
            | Message::ContactCreated { id, .. }
            | Message::Rescheduled { id, .. }
            | Message::LoggedIn { id, .. } => {
                self.tasks.remove(id);
            }
            Message::RescheduleLog { .. }
            | Message::JournalRead { .. }
            | Message::WriteRecorded { .. }
            | Message::UnsentFound(_) => {
                self.log_reads = self.log_reads.saturating_sub(1);
            }
            _ => {}
        }
    }

    /// Runs a request effect (`Engine::run` routes the others elsewhere).
    pub fn run(&mut self, e: Effect, cx: RequestCx<'_>) {
        match e {
            Effect::Fetch { id, spec } => self.fetch(id, spec, cx),
            Effect::Cancel(id) => self.cancel(id),
            Effect::CreateContact { id, contact, key } => {
                // The created contact goes into the mirror before the form hears of it,
                // so Ctrl-F finds it at once (not only after the next sync).
                let reader = cx.mirror.clone();
                let failed = |id, e| Message::ContactCreated {
                    id,
                    result: Box::new(Err(e)),
                };
                self.write(id, cx, failed, move |s, ticket| async move {
                    let result = s.create_contact(ticket, contact, key).await;
                    if let (Ok(created), Some(reader)) = (&result, reader)
                        && let Some(c) = created.record.clone()
                    {
                        let _ = reader.run(move |r| r.remember(vec![c])).await;
                    }
                    Message::ContactCreated {
                        id,
                        result: Box::new(result),
                    }
                })
            }
            Effect::Reschedule {
                id,
                appointment_id,
                body,
            } => {
                let failed = |id, e| Message::Rescheduled {
                    id,
                    result: Box::new(Err(e)),
                };
                self.write(id, cx, failed, move |s, ticket| async move {
                    Message::Rescheduled {
                        id,
                        result: Box::new(s.reschedule(ticket, appointment_id, body).await),
                    }
                })
            }
            Effect::RescheduleLog { path, append, last } => {
                self.log_reads += 1;
                let tx = cx.tx.clone();
                // Small file I/O, but off the loop all the same.
                tokio::task::spawn_blocking(move || {
                    let result =
                        super::reschedule_log::reschedule_log(&path, append.as_ref(), last);
                    let _ = tx.send(Message::RescheduleLog { result });
                });
            }
            Effect::RecordWrite { path, entry } => {
                self.log_reads += 1;
                let tx = cx.tx.clone();
                tokio::task::spawn_blocking(move || {
                    let error = crate::journal::record(&path, &entry).err().map(|e| {
                        format!("The write journal {} was not written: {e}", path.display())
                    });
                    let _ = tx.send(Message::WriteRecorded { error });
                });
            }
            Effect::FindUnsent { path, stale } => {
                self.log_reads += 1;
                let tx = cx.tx.clone();
                tokio::task::spawn_blocking(move || {
                    let found = crate::journal::unsent(&path, stale);
                    let _ = tx.send(crate::app::found_message(found, &path));
                });
            }
            Effect::ReadJournal { path } => {
                self.log_reads += 1;
                let tx = cx.tx.clone();
                tokio::task::spawn_blocking(move || {
                    let filter = crate::journal::Filter {
                        last: Some(crate::app::dialogs::write_log::SHOWN),
                        ..Default::default()
                    };
                    let result = crate::journal::read(&path, &filter).map_err(|e| {
                        format!("Cannot read the write journal {}: {e}", path.display())
                    });
                    let _ = tx.send(Message::JournalRead { result });
                });
            }
            other => debug_assert!(false, "not a request: {other:?}"),
        }
    }

    /// Keeps a spawned request, so a cancel or the quit can stop it.
    pub fn track(&mut self, id: RequestId, task: AbortHandle) {
        self.tasks.insert(id, task);
    }

    fn cancel(&mut self, id: RequestId) {
        if let Some(h) = self.tasks.remove(&id) {
            h.abort();
        }
        // A request still held for the token lookup never started: it is dropped instead.
        self.deferred.retain(|d| {
            !matches!(d, Effect::Fetch { id: f, .. }
                | Effect::Summarize { id: f, .. }
                | Effect::Collect { id: f, .. }
                if *f == id)
        });
    }

    /// Drops a job held for the token lookup (stopped before it started): whether there was
    /// one.
    pub fn drop_held_job(&mut self, id: RequestId) -> bool {
        let before = self.deferred.len();
        self.deferred
            .retain(|d| !matches!(d, Effect::StartJob { id: x, .. } if *x == id));
        self.deferred.len() < before
    }

    /// Stops everything (quit): running requests are aborted.
    pub fn stop_all(&mut self) {
        for (_, h) in self.tasks.drain() {
            h.abort();
        }
        self.deferred.clear();
    }

    fn fetch(&mut self, id: RequestId, spec: crate::app::QuerySpec, cx: RequestCx<'_>) {
        let tx = cx.tx.clone();
        let Some(source) = self.source.clone() else {
            let _ = tx.send(Message::Fetched {
                id,
                result: Err(self.no_source_reason.clone()),
                elapsed: std::time::Duration::ZERO,
            });
            return;
        };
        let reader = cx.mirror;
        let offline = cx.offline.is_some();
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
                    let _ = tx.send(Message::Mirror(MirrorMessage::Connectivity(Some(
                        e.summary(),
                    ))));
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

    /// Where the pipeline's and timeline's pages come from: `mirror`'s complete copy when
    /// given (the caller leaves it out when the user asked for the service), else the service.
    fn pages(&self, mirror: Option<MirrorReader>) -> super::pipeline::Pages {
        super::pipeline::Pages {
            source: self.source.clone(),
            reason: self.no_source_reason.clone(),
            mirror,
        }
    }

    /// Where a job's pages come from: the mirror's complete copy, else the service.
    pub fn job_pages(&self, mirror: Option<MirrorReader>) -> super::pipeline::Pages {
        self.pages(mirror)
    }

    /// Runs a write a dialog asked for: through the gate (off the loop), then `run` with the
    /// ticket; its answer comes back as the message `run` makes. Offline or without a source
    /// the write is refused at once, before the gate (nothing sent, nothing to journal), and
    /// a gate's refusal is answered the same way (`failed`): the form keeps its content and
    /// shows why.
    fn write<F, Fut>(
        &mut self,
        id: RequestId,
        cx: RequestCx<'_>,
        failed: fn(RequestId, ApiError) -> Message,
        run: F,
    ) where
        F: FnOnce(Arc<dyn DataSource>, WriteTicket) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = Message> + Send + 'static,
    {
        let tx = cx.tx.clone();
        let source = match (cx.offline, self.source.clone()) {
            (Some(why), _) => {
                tracing::info!("write refused: offline");
                Err(ApiError::new(ErrorKind::Network, why))
            }
            (None, Some(source)) => Ok(source),
            (None, None) => Err(ApiError::new(
                ErrorKind::Unauthorized,
                self.no_source_reason.clone(),
            )),
        };
        let admission = cx.admission;
        let handle = tokio::spawn(async move {
            let msg = match source {
                Err(e) => failed(id, e),
                Ok(source) => match admit(id, admission, &tx).await {
                    Ok(ticket) => run(source, ticket).await,
                    Err(e) => failed(id, e),
                },
            };
            let _ = tx.send(msg);
        });
        self.tasks.insert(id, handle.abort_handle());
    }
}

/// Passes write `id` through the gate (its intent journaled first, on the blocking pool) and
/// tells the app the ticket; a write the gate refuses is answered with why, nothing sent.
async fn admit(
    id: RequestId,
    admission: Option<(Gatekeeper, WriteIntent)>,
    tx: &UnboundedSender<Message>,
) -> Result<WriteTicket, ApiError> {
    let Some((gate, intent)) = admission else {
        return Err(ApiError::new(
            ErrorKind::InvalidRequest,
            "not sent: the write gate did not see this write",
        ));
    };
    let ticket = gate
        .admit_off_loop(intent)
        .await
        .map_err(|e| ApiError::new(ErrorKind::InvalidRequest, e.to_string()))?;
    let _ = tx.send(Message::WriteAdmitted {
        id,
        ticket: ticket.id().to_string(),
    });
    Ok(ticket)
}

/// Effects that talk to the service (they wait while the token is being looked up).
pub(super) fn needs_source(e: &Effect) -> bool {
    matches!(
        e,
        Effect::Fetch { .. }
            | Effect::Mirror(MirrorEffect::Probe(_))
            | Effect::Summarize { .. }
            | Effect::Collect { .. }
            | Effect::StartJob { .. }
            | Effect::ReadPlan { .. }
            | Effect::CreateContact { .. }
            | Effect::Reschedule { .. }
    )
}
