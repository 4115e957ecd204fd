//! What happens to one row: skipped as a duplicate inside the file, skipped because the service
//! has its email (found by a look-up, by the scan, or refused as taken), or created once under
//! its own Idempotency-Key. Every request goes through the [`Governor`]; a rate limit waits and
//! never fails a row; a 409 "still being processed" (the same key in flight, from another run)
//! is retried with a bounded backoff.

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use futures::StreamExt;

use super::decide::{Planned, SameAs, email_id};
use super::report::{Outcome, RowReport};
use crate::api::Governor;
use crate::api::retry::key_in_flight;
use crate::api::{ApiError, Client, ContactQuery, ContactSort, ErrorKind, Paging, SortDirection};
use crate::cli::contacts::find_by_email;
use crate::cli::exit::CliError;
use crate::journal::{self, Answer, WriteRecord};

/// Retries of a create the service says is still being processed under its key.
const IN_FLIGHT_RETRIES: u32 = 8;
/// First wait before such a retry; doubles, up to [`IN_FLIGHT_MAX_WAIT`].
const IN_FLIGHT_FIRST_WAIT: Duration = Duration::from_millis(100);
const IN_FLIGHT_MAX_WAIT: Duration = Duration::from_secs(3);
/// Contacts per page of the scan (the seed's maximum).
const SCAN_PER_PAGE: u32 = 100;

/// How the emails the service already has are found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExistingBy {
    /// Scan when it takes fewer than half the requests of searching.
    Auto,
    /// One look-up by email per row, just before its create.
    Search,
    /// List every contact once, first (pages of 100, in parallel).
    Scan,
}

/// The outcome of choosing: which emails are known, or "search each".
pub enum Known {
    /// `--allow-duplicate`: nothing is looked up.
    Ignore,
    Search,
    /// Email (as [`email_id`]) -> the id of the first contact with it.
    Scanned(HashMap<u128, String>),
}

/// The client and the gate every request of one import goes through.
pub struct Sender {
    pub client: Client,
    pub gov: Arc<Governor>,
    pub jobs: usize,
    pub dry_run: bool,
    /// Set when the import stops: requests not yet sent are not sent.
    pub stop: Arc<AtomicBool>,
    /// The profile's mirror: each created contact is written into it at once.
    pub mirror: Option<crate::cli::cache::CreatedSink>,
    /// Where each row sent is recorded (`crate::journal`); none for a dry run.
    pub journal: Option<RowJournal>,
}

/// The write journal of an import: one entry per row sent.
pub struct RowJournal {
    pub path: std::path::PathBuf,
    /// The run's profile and host, who and kind; each row fills in the rest.
    pub template: WriteRecord,
    /// The file's name, for the entry's `run` (`people.csv:17`).
    pub file: String,
    /// The gate each row passes before it is sent (its intent journaled first).
    pub gate: crate::writes::Gatekeeper,
}

impl RowJournal {
    /// Row `p` as the gate and the journal see it before it is sent.
    fn intent(&self, p: &Planned, base_url: &str) -> crate::gate::WriteIntent {
        crate::gate::WriteIntent {
            kind: self.template.kind,
            who: self.template.who,
            profile: self.template.profile.clone(),
            base_url: base_url.to_string(),
            target: None,
            sent: serde_json::to_value(&p.contact).unwrap_or_default(),
            key: Some(p.key.to_string()),
            run: Some(format!("{}:{}", self.file, p.line)),
            reserved_id: None,
        }
    }

    fn record(&self, ticket: &str, p: &Planned, answer: Answer, id: Option<String>) {
        let mut entry = self.template.clone().answering(ticket);
        entry.at = chrono::Utc::now();
        entry.sent = serde_json::to_value(&p.contact).unwrap_or_default();
        entry.key = Some(p.key.to_string());
        entry.answer = answer;
        entry.target = id;
        entry.run = Some(format!("{}:{}", self.file, p.line));
        journal::record_or_warn(Some(&self.path), &entry);
    }
}

/// A 422 refusing the email because a contact has it.
fn email_taken(e: &ApiError) -> bool {
    e.kind == ErrorKind::Validation
        && e.field_errors.iter().any(|(field, msgs)| {
            field.eq_ignore_ascii_case("email")
                && msgs.iter().any(|m| {
                    let m = m.to_lowercase();
                    ["taken", "already", "exists", "unique", "duplicate"]
                        .iter()
                        .any(|w| m.contains(w))
                })
        })
}

fn api_error(e: CliError) -> ApiError {
    match e {
        CliError::Api(e) => e,
        other => ApiError::new(ErrorKind::Other, other.to_string()),
    }
}

impl Sender {
    /// One operation under a permit. A rate limit pauses the whole import and tries again (as
    /// often as it takes: the service said "later", not "no"); a key still in flight is tried
    /// again a bounded number of times.
    pub async fn call<T, F, Fut>(&self, op: F) -> Result<T, ApiError>
    where
        F: Fn() -> Fut,
        Fut: Future<Output = Result<T, ApiError>>,
    {
        let mut in_flight_retries = 0u32;
        let max_wait = self.client.options().max_retry_after;
        loop {
            let Some(result) = self.gov.call(&self.stop, max_wait, &op).await else {
                return Err(ApiError::new(ErrorKind::Other, super::STOPPED));
            };
            match result {
                Err(e) if key_in_flight(&e) && in_flight_retries < IN_FLIGHT_RETRIES => {
                    let wait = IN_FLIGHT_FIRST_WAIT
                        .saturating_mul(1 << in_flight_retries)
                        .min(IN_FLIGHT_MAX_WAIT);
                    in_flight_retries += 1;
                    tokio::time::sleep(wait.mul_f64(rand::random_range(0.5..1.0))).await;
                }
                other => return other,
            }
        }
    }

    /// Decides how existing emails are found for `wanted` (the emails of the rows to send).
    /// `on_page(done, total)` follows a scan.
    pub async fn known(
        &self,
        by: ExistingBy,
        allow_duplicate: bool,
        wanted: &HashSet<u128>,
        on_page: &(dyn Fn(u64, u64) + Sync),
    ) -> Result<Known, ApiError> {
        if allow_duplicate || wanted.is_empty() {
            return Ok(if allow_duplicate {
                Known::Ignore
            } else {
                Known::Search
            });
        }
        if by == ExistingBy::Search {
            return Ok(Known::Search);
        }
        let first_query = scan_query(1);
        let first = self
            .call(|| self.client.list_contacts(&first_query))
            .await?;
        let last = first
            .meta
            .as_ref()
            .and_then(|m| m.last_page)
            .unwrap_or(1)
            .max(1);
        if by == ExistingBy::Auto && last.saturating_mul(2) > wanted.len() as u64 {
            return Ok(Known::Search);
        }
        // The first contact (in creation order) holding each wanted email.
        let mut found: HashMap<u128, (u64, usize, String)> = HashMap::new();
        let mut keep = |page: u64, data: &[crate::api::Contact]| {
            for (i, c) in data.iter().enumerate() {
                let Some(email) = c.email.as_deref() else {
                    continue;
                };
                let id = email_id(email);
                if !wanted.contains(&id) {
                    continue;
                }
                let slot = found.entry(id).or_insert_with(|| (page, i, c.id.clone()));
                if (page, i) < (slot.0, slot.1) {
                    *slot = (page, i, c.id.clone());
                }
            }
        };
        keep(1, &first.data);
        on_page(1, last);
        let pages = futures::stream::iter(2..=last)
            .map(|p| async move {
                let query = scan_query(u32::try_from(p).unwrap_or(u32::MAX));
                let page = self.call(|| self.client.list_contacts(&query)).await;
                (p, page)
            })
            .buffer_unordered(self.jobs);
        let mut pages = std::pin::pin!(pages);
        let mut done = 1;
        while let Some((p, page)) = pages.next().await {
            keep(p, &page?.data);
            done += 1;
            on_page(done, last);
        }
        Ok(Known::Scanned(
            found.into_iter().map(|(k, (_, _, id))| (k, id)).collect(),
        ))
    }

    /// What happens to one row.
    pub async fn row(&self, p: Planned, known: &Known) -> RowReport {
        let mut report = RowReport::new(p.line, p.email.clone());
        if let Some(same) = &p.duplicate_of {
            report.outcome = Outcome::Duplicate;
            report.detail = match same {
                SameAs::Email(l) => format!("same email as line {l}"),
                SameAs::Content(l) => format!("same values as line {l}"),
                SameAs::Key(l) => format!("same key as line {l}"),
            };
            return report;
        }
        if let Some(email) = &p.email {
            let existing = match known {
                Known::Ignore => Ok(None),
                Known::Search => self.lookup(email).await,
                Known::Scanned(map) => Ok(map.get(&email_id(email)).cloned()),
            };
            match existing {
                Ok(Some(id)) => {
                    report.outcome = Outcome::Exists;
                    report.id = Some(id);
                    return report;
                }
                Ok(None) => {}
                Err(e) => return report.failed(e),
            }
        }
        if self.dry_run {
            report.outcome = Outcome::WouldCreate;
            return report;
        }
        let Some(j) = &self.journal else {
            return report.failed(ApiError::new(
                ErrorKind::Other,
                "not sent: no write journal for this import",
            ));
        };
        let intent = j.intent(&p, self.client.base_url().as_str());
        let ticket = match j.gate.admit_off_loop(intent).await {
            Ok(t) => t,
            Err(e @ crate::gate::GateError::NotJournaled(_)) => {
                return report.failed(ApiError::new(ErrorKind::NotJournaled, e.to_string()));
            }
            Err(e) => return report.failed(ApiError::new(ErrorKind::Other, e.to_string())),
        };
        let sent = self
            .call(|| self.client.create_contact(&ticket, &p.contact, &p.key))
            .await;
        // Every admitted row is answered in the journal (one that surely did not leave as
        // failed), so only a process that ended in between leaves it in doubt.
        match &sent {
            Ok(c) => j.record(
                ticket.id(),
                &p,
                Answer {
                    replayed: c.replayed,
                    ..Answer::accepted(c.status)
                },
                c.record.as_ref().map(|c| c.id.clone()),
            ),
            Err(e) => j.record(ticket.id(), &p, Answer::failed(e), None),
        }
        match sent {
            Ok(created) => {
                report.outcome = if created.replayed {
                    Outcome::Replayed
                } else {
                    Outcome::Created
                };
                if let (Some(sink), Some(c)) = (&self.mirror, &created.record) {
                    sink.remember(vec![c.clone()]).await;
                }
                report.id = created.record.map(|c| c.id);
                report
            }
            Err(e) if email_taken(&e) => {
                report.outcome = Outcome::Exists;
                // Name the contact when a look-up finds it; the skip stands either way.
                if let Some(email) = &p.email {
                    report.id = self.lookup(email).await.ok().flatten();
                }
                report
            }
            Err(mut e) => {
                if e.outcome_unknown {
                    e.message = format!(
                        "{}; it may have been created: re-running the import finishes it without a duplicate",
                        e.message
                    );
                    e.outcome_unknown = false;
                }
                report.failed(e)
            }
        }
    }

    async fn lookup(&self, email: &str) -> Result<Option<String>, ApiError> {
        self.call(|| async { find_by_email(&self.client, email).await.map_err(api_error) })
            .await
    }
}

fn scan_query(page: u32) -> ContactQuery {
    ContactQuery {
        sort_by: Some(ContactSort::CreatedAt),
        sort_direction: Some(SortDirection::Asc),
        paging: Paging {
            page: Some(page),
            per_page: Some(SCAN_PER_PAGE),
        },
        ..ContactQuery::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn err(kind: ErrorKind, message: &str) -> ApiError {
        ApiError::new(kind, message)
    }

    #[test]
    fn only_an_in_flight_conflict_is_retried() {
        let conflict = |message: &str| {
            let mut e = err(ErrorKind::Conflict, message);
            e.status = Some(409);
            e
        };
        assert!(key_in_flight(&conflict(
            "A request with this Idempotency-Key is still being processed; retry later."
        )));
        assert!(!key_in_flight(&conflict(
            "This Idempotency-Key was already used with a different request body."
        )));
    }

    #[test]
    fn a_taken_email_is_recognised() {
        let mut e = err(ErrorKind::Validation, "The given data was invalid.");
        e.field_errors = BTreeMap::from([(
            "email".to_string(),
            vec!["The email has already been taken.".to_string()],
        )]);
        assert!(email_taken(&e));
        e.field_errors = BTreeMap::from([(
            "email".to_string(),
            vec!["The email must be a valid email address.".to_string()],
        )]);
        assert!(!email_taken(&e));
    }
}
