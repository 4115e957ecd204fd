//! Sending a plan: rows go out concurrently through the import's rate-aware [`Governor`],
//! each claimed in the [`Journal`] just before its request and recorded after, each success
//! also written to the reschedule log. One self-contained async task that reports row by
//! row through a callback: the CLI draws a progress bar and a report from it, the dashboard
//! turns it into messages.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use chrono::{DateTime, Utc};
use futures::StreamExt;
use serde_json::Value;

use super::PlanRow;
use super::journal::{Claim, Journal, RowState};
use crate::api::{ApiError, Client, ErrorKind, Governor};
use crate::reschedule::RescheduleLogEntry;

/// Transient failures in a row after which the run stops: the rest would fail the same way.
pub const MAX_FAILURE_STREAK: u32 = 20;

/// What became of a row (or, before the run, what will).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The service moved the appointment.
    Moved,
    /// An earlier run moved it to these times: not sent again.
    AlreadyDone,
    /// An earlier run sent it and its answer was lost: it may have been moved; not sent
    /// again unless asked.
    InDoubt,
    /// Another run, at the same time, sent it.
    Taken,
    Failed,
    /// Not sent: the run stopped first.
    NotSent,
}

impl Outcome {
    /// The word in JSON and CSV.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Moved => "moved",
            Outcome::AlreadyDone => "already_done",
            Outcome::InDoubt => "in_doubt",
            Outcome::Taken => "sent_by_another_run",
            Outcome::Failed => "failed",
            Outcome::NotSent => "not_sent",
        }
    }
}

/// One row's result.
#[derive(Debug, Clone)]
pub struct RowResult {
    pub line: u64,
    pub id: String,
    pub outcome: Outcome,
    /// Why, in words (empty for a plain success).
    pub detail: String,
    pub error: Option<ApiError>,
    /// `updated_at` from the answer.
    pub updated_at: Option<String>,
}

impl RowResult {
    fn new(row: &PlanRow, outcome: Outcome, detail: impl Into<String>) -> RowResult {
        RowResult {
            line: row.line,
            id: row.id.clone(),
            outcome,
            detail: detail.into(),
            error: None,
            updated_at: None,
        }
    }

    fn failed(row: &PlanRow, e: ApiError) -> RowResult {
        let mut r = RowResult::new(row, Outcome::Failed, e.summary());
        r.error = Some(e);
        r
    }
}

/// What the journal says of a row before the run: send it, or why not.
pub fn decide(journal: &Journal, row: &PlanRow, resend_in_doubt: bool) -> Option<RowResult> {
    let e = journal.state(&row.key)?;
    let at = |t: DateTime<Utc>| crmdash_api::clock::get().format_labelled(t);
    match e.state {
        RowState::Done => Some(RowResult::new(
            row,
            Outcome::AlreadyDone,
            format!("moved to these times by an earlier run ({})", at(e.at)),
        )),
        RowState::Sending if !resend_in_doubt => Some(RowResult::new(
            row,
            Outcome::InDoubt,
            format!(
                "an earlier run sent it ({}) and was stopped before the answer: it may have \
                 been moved; not sent again (check it, then --resend-in-doubt)",
                at(e.at)
            ),
        )),
        RowState::Sending | RowState::Failed => None,
    }
}

/// How a run ended apart from its rows.
#[derive(Debug, Default)]
pub struct RunEnd {
    /// The token was refused: the run stopped at once.
    pub fatal: Option<ApiError>,
    /// Stopped after [`MAX_FAILURE_STREAK`] transient failures in a row.
    pub streak: Option<ApiError>,
    /// How many times a rate limit slowed the run down.
    pub rate_limited: u64,
}

/// Everything a run needs.
pub struct Runner {
    /// The profile's client; the runner adds the governor's observer.
    pub client: Client,
    pub jobs: usize,
    pub journal: Arc<Journal>,
    /// The reschedule log (`None`: nowhere to write it).
    pub log_path: Option<PathBuf>,
    /// The write journal every write goes to (`None`: nowhere to write it).
    pub write_journal: Option<PathBuf>,
    /// This run's name in the write journal (one for all of its rows).
    pub run_id: String,
    pub profile: String,
    /// Set to stop: rows not yet sent are not sent; requests under way finish.
    pub stop: Arc<AtomicBool>,
    /// Send rows an earlier run left in doubt.
    pub resend_in_doubt: bool,
    /// Who runs it, for the write journal (the CLI, or the dashboard's `:plan`).
    pub who: crate::journal::Who,
    /// The gate each row's write passes (its intent journaled before it is sent).
    pub gate: crate::writes::Gatekeeper,
}

impl Runner {
    /// Sends every row (in file order of report, `jobs` under way at once) and calls
    /// `on_row` with each result in file order, rows the journal settles included.
    pub async fn run(&self, rows: Vec<PlanRow>, mut on_row: impl FnMut(RowResult)) -> RunEnd {
        let gov = Arc::new(Governor::new(self.jobs));
        let client = self.client.with_observer(crate::api::governor::observer(
            gov.clone(),
            self.client.observer(),
        ));
        let host = crate::config::host_label(client.base_url().as_str());
        let results = futures::stream::iter(rows)
            .map(|row| {
                let (client, gov, host) = (&client, &gov, &host);
                async move {
                    match decide(&self.journal, &row, self.resend_in_doubt) {
                        Some(r) => r,
                        None => self.send(client, gov, host, row).await,
                    }
                }
            })
            // Results are taken in file order; up to this many rows are under way meanwhile
            // (their requests still wait for the governor's permits).
            .buffered(self.jobs * 8);
        let mut results = std::pin::pin!(results);
        let mut end = RunEnd::default();
        let mut streak = 0u32;
        while let Some(r) = results.next().await {
            match &r.error {
                // The token refused, or the journal unable to record a write: every other row
                // would fail the same way.
                Some(e)
                    if matches!(
                        e.kind,
                        ErrorKind::Unauthorized | ErrorKind::Forbidden | ErrorKind::NotJournaled
                    ) =>
                {
                    end.fatal.get_or_insert_with(|| e.clone());
                    self.stop.store(true, Ordering::Relaxed);
                }
                Some(e) if e.is_transient() => {
                    streak += 1;
                    if streak >= MAX_FAILURE_STREAK && end.streak.is_none() {
                        end.streak = Some(e.clone());
                        self.stop.store(true, Ordering::Relaxed);
                    }
                }
                _ => streak = 0,
            }
            on_row(r);
        }
        end.rate_limited = gov.times_rate_limited();
        end
    }

    /// One row: claimed in the journal once its permit is held, sent, its answer recorded.
    async fn send(&self, client: &Client, gov: &Governor, host: &str, row: PlanRow) -> RowResult {
        let max_wait = client.options().max_retry_after;
        let claimed = AtomicBool::new(false);
        let ticket: std::sync::OnceLock<crmdash_api::gate::WriteTicket> =
            std::sync::OnceLock::new();
        // Why the row was not sent after all: another run has it, or the journal failed.
        let unsent = std::sync::Mutex::new(None::<RowResult>);
        let answer = gov
            .call(&self.stop, max_wait, || async {
                if !claimed.swap(true, Ordering::Relaxed) {
                    let why = match self.claim(&row).await {
                        Ok(Claim::Go) => None,
                        Ok(Claim::Taken(e)) => Some(RowResult::new(
                            &row,
                            Outcome::Taken,
                            format!(
                                "another crmdash run sent it at {}: not sent again",
                                crmdash_api::clock::get().format_labelled(e.at)
                            ),
                        )),
                        Err(e) => Some(RowResult::failed(&row, e)),
                    };
                    let why = match why {
                        Some(why) => Some(why),
                        None => match self.gate.admit_off_loop(self.intent(&row)).await {
                            Ok(t) => {
                                let _ = ticket.set(t);
                                None
                            }
                            Err(e) => Some(self.refused(&row, e).await),
                        },
                    };
                    if let Some(why) = why {
                        *unsent.lock().unwrap_or_else(|p| p.into_inner()) = Some(why);
                        return Err(ApiError::new(ErrorKind::Other, "not sent"));
                    }
                }
                let Some(t) = ticket.get() else {
                    return Err(ApiError::new(ErrorKind::Other, "not sent"));
                };
                client.reschedule_appointment(t, &row.id, &row.body).await
            })
            .await;
        if let Some(r) = unsent.into_inner().unwrap_or_else(|p| p.into_inner()) {
            return r;
        }
        let state = match &answer {
            None => {
                // Claimed, then refused with a 429 (not processed) and stopped before the
                // retry: nothing was applied, so a re-run may send it.
                if claimed.load(Ordering::Relaxed) {
                    let result = RowResult::new(&row, Outcome::NotSent, "");
                    let id = ticket.get().map(|t| t.id().to_string());
                    let _ = self.record(&row, "", RowState::Failed, &result, id).await;
                }
                return RowResult::new(&row, Outcome::NotSent, "not sent: the run stopped");
            }
            Some(Ok(_)) => RowState::Done,
            // A 2xx whose body could not be read: the service did it.
            Some(Err(e)) if e.status.is_some_and(|s| (200..300).contains(&s)) => RowState::Done,
            Some(Err(e)) if e.outcome_unknown => RowState::Sending,
            Some(Err(_)) => RowState::Failed,
        };
        let updated_at = match &answer {
            Some(Ok(a)) => a.updated_at.as_ref().map(|t| t.raw().to_string()),
            _ => None,
        };
        let mut result = match answer {
            Some(Ok(_)) => RowResult::new(&row, Outcome::Moved, ""),
            Some(Err(e)) if state == RowState::Done => RowResult::new(
                &row,
                Outcome::Moved,
                format!("moved; the answer could not be read: {}", e.summary()),
            ),
            Some(Err(mut e)) if state == RowState::Sending => {
                e.message = format!(
                    "{}; the appointment may have been moved: a re-run does not send it again \
                     (check it, then --resend-in-doubt)",
                    e.message
                );
                e.outcome_unknown = false;
                let mut r = RowResult::failed(&row, e);
                r.outcome = Outcome::InDoubt;
                r
            }
            Some(Err(e)) => RowResult::failed(&row, e),
            None => unreachable!("handled above"),
        };
        result.updated_at = updated_at;
        if state != RowState::Sending
            && let Err(e) = self
                .record(
                    &row,
                    host,
                    state,
                    &result,
                    ticket.get().map(|t| t.id().to_string()),
                )
                .await
        {
            // The change stands; only the record of it is missing.
            result.detail = format!("{} (warning: {e})", result.detail)
                .trim_start()
                .to_string();
        }
        result
    }

    /// The journal's claim, off the async threads (a file lock may wait).
    async fn claim(&self, row: &PlanRow) -> Result<Claim, ApiError> {
        let journal = self.journal.clone();
        let (key, id) = (row.key.clone(), row.id.clone());
        tokio::task::spawn_blocking(move || journal.claim(&key, &id))
            .await
            .map_err(|e| ApiError::new(ErrorKind::Other, e.to_string()))?
            .map_err(|e| {
                ApiError::new(
                    ErrorKind::Other,
                    format!("not sent: cannot write the run journal: {e}"),
                )
            })
    }

    /// A row the gate refused after its claim: never sent, and the run journal says so (else a
    /// re-run would take it for one in doubt).
    async fn refused(&self, row: &PlanRow, e: crmdash_api::gate::GateError) -> RowResult {
        let journal = self.journal.clone();
        let (key, id) = (row.key.clone(), row.id.clone());
        let _ = tokio::task::spawn_blocking(move || journal.answered(&key, &id, RowState::Failed))
            .await;
        let kind = match e {
            crmdash_api::gate::GateError::Refused(_) => ErrorKind::InvalidRequest,
            crmdash_api::gate::GateError::NotJournaled(_) => ErrorKind::NotJournaled,
        };
        RowResult::failed(row, ApiError::new(kind, e.to_string()))
    }

    /// What the write journal records before `row` is sent.
    fn intent(&self, row: &PlanRow) -> crmdash_api::gate::WriteIntent {
        crmdash_api::gate::WriteIntent {
            kind: crate::journal::WriteKind::Bulk,
            who: self.who,
            profile: self.profile.clone(),
            base_url: self.client.base_url().to_string(),
            target: Some(row.id.clone()),
            sent: Value::Object(row.body.clone()),
            key: None,
            run: Some(self.run_id.clone()),
            reserved_id: None,
        }
    }

    /// The answer in the journals and, for a success, the reschedule log; `ticket`: the gate's
    /// id the write journal's intent has.
    async fn record(
        &self,
        row: &PlanRow,
        host: &str,
        state: RowState,
        result: &RowResult,
        ticket: Option<String>,
    ) -> Result<(), String> {
        let journal = self.journal.clone();
        let log = (state == RowState::Done).then(|| {
            (
                self.log_path.clone(),
                RescheduleLogEntry {
                    id: row.id.clone(),
                    profile: self.profile.clone(),
                    host: host.to_string(),
                    body: row.body.clone(),
                    updated_at: result.updated_at.clone(),
                    at: Utc::now(),
                },
            )
        });
        // Every row that reached the service goes to the write journal, as a bulk write.
        // A row the gate let through but not sent is answered too, or its intent would stay
        // in doubt.
        let written =
            (state == RowState::Done || result.error.is_some() || ticket.is_some()).then(|| {
                let answer = match &result.error {
                    Some(e) => crate::journal::Answer::failed(e),
                    None if state == RowState::Done => crate::journal::Answer {
                        updated_at: result.updated_at.clone(),
                        ..crate::journal::Answer::accepted(200)
                    },
                    None => crate::journal::Answer {
                        message: Some("not sent: the run stopped".into()),
                        ..crate::journal::Answer::default()
                    },
                };
                let mut entry = crate::journal::WriteRecord::new(
                    crate::journal::WriteKind::Bulk,
                    self.who,
                    &self.profile,
                    self.client.base_url().as_str(),
                    Value::Object(row.body.clone()),
                    answer,
                );
                entry.target = Some(row.id.clone());
                entry.run = Some(self.run_id.clone());
                entry.id = ticket;
                entry
            });
        let write_journal = self.write_journal.clone();
        let (key, id) = (row.key.clone(), row.id.clone());
        tokio::task::spawn_blocking(move || {
            if let Some(entry) = written {
                crate::journal::record_or_warn(write_journal.as_deref(), &entry);
            }
            let journal = journal
                .answered(&key, &id, state)
                .map_err(|e| format!("cannot write the run journal: {e}"));
            let log = match log {
                Some((path, entry)) => write_log(path.as_deref(), &entry),
                None => Ok(()),
            };
            journal.and(log)
        })
        .await
        .map_err(|e| e.to_string())?
    }
}

/// The one place a plan's reschedule reaches the shared reschedule log.
fn write_log(path: Option<&std::path::Path>, entry: &RescheduleLogEntry) -> Result<(), String> {
    let path = path.ok_or("no data directory for the reschedule log")?;
    crate::reschedule::append_log(path, entry)
        .map_err(|e| format!("cannot write the reschedule log {}: {e}", path.display()))
}
