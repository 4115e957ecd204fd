//! Where pages come from: the API client (turning a `QuerySpec` into the typed query and the
//! answer into pre-formatted rows), or, in tests, anything else implementing `DataSource`.

use std::path::PathBuf;
use std::sync::Arc;

use futures::future::BoxFuture;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

use serde_json::{Map, Value};

use crate::api::{
    ApiError, AppointmentRef, Client, Contact, Created, IdempotencyKey, ListQuery, NewContact,
    Page, RequestEvent,
};
use crate::app::resources::{ColumnId, Descriptor, WithQuery};
use crate::app::table::record::CellFormat;
use crate::app::table::record::{TableRecord, build_page};
use crate::app::{ExportEvent, ExportFormat, FetchedPage, QuerySpec, Resource};
use crate::gate::WriteTicket;

tokio::task_local! {
    /// Which view a request is for (`Contacts`, `export`...), for the request log.
    pub static ORIGIN: &'static str;
}

/// What the dashboard needs from the service.
pub trait DataSource: Send + Sync + 'static {
    /// One page of a query, formatted for the table.
    fn fetch(&self, spec: QuerySpec) -> BoxFuture<'static, Result<FetchedPage, ApiError>>;

    /// Every page of a query (from `spec.page`) written to `path`; progress goes to
    /// `progress`; stops (removing the partial file) when `cancel` fires.
    fn export(
        &self,
        spec: QuerySpec,
        path: PathBuf,
        format: ExportFormat,
        progress: Box<dyn Fn(ExportEvent) + Send + Sync>,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, ExportEvent>;

    /// Creates a contact with the gate's leave; the same key on a retry never duplicates it.
    fn create_contact(
        &self,
        ticket: WriteTicket,
        contact: NewContact,
        key: IdempotencyKey,
    ) -> BoxFuture<'static, Result<Created<Contact>, ApiError>>;

    /// Reschedules an appointment with the given body, with the gate's leave.
    fn reschedule(
        &self,
        ticket: WriteTicket,
        appointment_id: String,
        body: Map<String, Value>,
    ) -> BoxFuture<'static, Result<AppointmentRef, ApiError>>;

    /// The API client itself, for work that drives it directly (a plan run through the
    /// CLI's runner); `None` for sources that are not the service.
    fn client(&self) -> Option<Client> {
        None
    }
}

/// The real service, through `api::Client`.
pub struct ClientSource {
    client: Client,
    format: CellFormat,
}

impl ClientSource {
    /// `on_event` hears the client's request events (retries for the status bar, the log).
    pub fn new(
        client: Client,
        format: impl Into<CellFormat>,
        on_event: Option<UnboundedSender<crate::app::Message>>,
    ) -> Self {
        let format = format.into();
        let client = match on_event {
            Some(tx) => client.with_observer(Arc::new(move |ev: &RequestEvent| {
                tracing::debug!(event = ?ev, "request");
                log_exchange(&tx, ev, "dashboard");
                if let RequestEvent::Retrying {
                    attempt,
                    max_attempts,
                    reason,
                    ..
                } = ev
                {
                    let _ = tx.send(crate::app::Message::Retrying {
                        attempt: *attempt,
                        max_attempts: *max_attempts,
                        reason: reason.clone(),
                    });
                }
            })),
            None => client,
        };
        ClientSource { client, format }
    }
}

/// Puts an ended request in the dashboard's request log, as asked by the task's [`ORIGIN`]
/// (else `origin`).
pub fn log_exchange(
    tx: &UnboundedSender<crate::app::Message>,
    ev: &RequestEvent,
    origin: &'static str,
) {
    if let RequestEvent::Exchanged(x) = ev {
        let origin = ORIGIN.try_with(|o| *o).unwrap_or(origin);
        let _ = tx.send(crate::app::Message::RequestLogged(Box::new(
            crate::app::dialogs::requests::LoggedRequest::new(x.clone(), origin),
        )));
    }
}

fn columns(kind: Resource) -> Vec<ColumnId> {
    Descriptor::of(kind).columns.iter().map(|c| c.id).collect()
}

/// One page of whichever resource the spec names, formatted for the table.
struct FetchPage {
    client: Client,
    format: CellFormat,
    kind: Resource,
}

impl WithQuery for FetchPage {
    type Output = BoxFuture<'static, Result<FetchedPage, ApiError>>;

    fn run<Q>(self, query: Q) -> Self::Output
    where
        Q: ListQuery + Send + Sync + 'static,
        Q::Item: TableRecord + Send + 'static,
    {
        Box::pin(async move {
            let page: Page<Q::Item> = self.client.list(&query).await?;
            let cols = columns(self.kind);
            let format = self.format;
            // Formatting a page of 100 rows is small but not free: keep it off the async workers.
            tokio::task::spawn_blocking(move || build_page(page, &cols, format))
                .await
                .map_err(|e| ApiError::new(crate::api::ErrorKind::Other, e.to_string()))
        })
    }
}

impl WithQuery for super::export::Job {
    type Output = BoxFuture<'static, Result<ExportEvent, String>>;

    fn run<Q>(self, query: Q) -> Self::Output
    where
        Q: ListQuery + crate::mirror::MirrorQuery + Send + Sync + 'static,
        Q::Item: TableRecord + Send + 'static,
    {
        Box::pin(self.export(query))
    }
}

impl DataSource for ClientSource {
    fn fetch(&self, spec: QuerySpec) -> BoxFuture<'static, Result<FetchedPage, ApiError>> {
        let origin = spec.kind.title();
        Box::pin(ORIGIN.scope(
            origin,
            spec.with_query(FetchPage {
                client: self.client.clone(),
                format: self.format.clone(),
                kind: spec.kind,
            }),
        ))
    }

    fn export(
        &self,
        spec: QuerySpec,
        path: PathBuf,
        format: ExportFormat,
        progress: Box<dyn Fn(ExportEvent) + Send + Sync>,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, ExportEvent> {
        let client = self.client.clone();
        Box::pin(async move {
            let job = super::export::Job {
                lister: super::export::Lister::Service(client),
                path,
                format,
                progress,
                cancel,
            };
            let result = ORIGIN.scope("export", spec.with_query(job)).await;
            match result {
                Ok(ev) => ev,
                Err(e) => ExportEvent::Failed(e),
            }
        })
    }

    fn create_contact(
        &self,
        ticket: WriteTicket,
        contact: NewContact,
        key: IdempotencyKey,
    ) -> BoxFuture<'static, Result<Created<Contact>, ApiError>> {
        let client = self.client.clone();
        Box::pin(ORIGIN.scope("new contact", async move {
            client.create_contact(&ticket, &contact, &key).await
        }))
    }

    fn client(&self) -> Option<Client> {
        Some(self.client.clone())
    }

    fn reschedule(
        &self,
        ticket: WriteTicket,
        appointment_id: String,
        body: Map<String, Value>,
    ) -> BoxFuture<'static, Result<AppointmentRef, ApiError>> {
        let client = self.client.clone();
        Box::pin(ORIGIN.scope("reschedule", async move {
            client
                .reschedule_appointment(&ticket, &appointment_id, &body)
                .await
        }))
    }
}
