//! The change generator (`--churn N`): N changes a second to contacts, deals and projects, as
//! a busy CRM would see them: mostly updates (a phone, a deal's status or value, a project's
//! status or end date; `updated_at` moves to now), some deletions, some new contacts (as
//! `POST /contacts` makes them). Each update is logged field by field, old and new value, so
//! tests can compare the mirror's change feed with it. Lets sync, the change feed and Today be
//! tested and demonstrated against a moving service; the `churn` fault makes changes as
//! requests arrive, so a test interleaves them with a sync's reads without timing.

use std::sync::Weak;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::rng::SeedRng;
use super::state::Shared;
use super::store::Table;
use super::timefmt::format_ts;

/// One field an update set: its value before and after (`null` when absent).
#[derive(Debug, Clone, PartialEq)]
pub struct ChangedField {
    pub field: &'static str,
    pub old: Value,
    pub new: Value,
}

/// One change the generator made.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// `kind` is `contacts`, `deals` or `projects`; `fields` what it set (never `updated_at`).
    Updated {
        kind: &'static str,
        id: String,
        fields: Vec<ChangedField>,
    },
    Deleted {
        kind: &'static str,
        id: String,
    },
    /// A new contact (created and updated now).
    Created {
        kind: &'static str,
        id: String,
    },
}

/// Out of 100 changes, how many create a contact.
const CREATE_PERCENT: u64 = 10;
/// Out of 100 of the other changes, how many delete a record (the rest update one).
const DELETE_PERCENT: u64 = 20;
/// Changes are made in batches this often.
const TICK: Duration = Duration::from_millis(50);
/// Stream id of the generator's random numbers (distinct from the seed data's kinds).
const RNG_KIND: u64 = 0xC4_0000;
/// The statuses a deal or project moves between.
const DEAL_STATUSES: [&str; 4] = ["open", "won", "lost", "on_hold"];
const PROJECT_STATUSES: [&str; 5] = ["planned", "active", "on_hold", "completed", "cancelled"];

/// Sets `key` to `value` in `json` and logs the change (none when the value is the same).
fn set(
    json: &mut serde_json::Map<String, Value>,
    fields: &mut Vec<ChangedField>,
    key: &'static str,
    value: Value,
) {
    let old = json
        .insert(key.to_string(), value.clone())
        .unwrap_or(Value::Null);
    if old != value {
        fields.push(ChangedField {
            field: key,
            old,
            new: value,
        });
    }
}

/// A status from `statuses` other than `current`.
fn other_status(rng: &mut SeedRng, statuses: &[&'static str], current: Option<&Value>) -> Value {
    let current = current.and_then(Value::as_str).unwrap_or("");
    let choices: Vec<&'static str> = statuses.iter().copied().filter(|s| *s != current).collect();
    json!(rng.pick_str(&choices))
}

/// The generator's state: its random stream, the last timestamp it wrote and what it did.
pub struct Churner {
    rng: SeedRng,
    last: Option<DateTime<Utc>>,
    log: Vec<Change>,
}

impl Churner {
    pub fn new(seed: u64) -> Churner {
        Churner {
            rng: SeedRng::for_record(seed, RNG_KIND, 0),
            last: None,
            log: Vec::new(),
        }
    }

    /// Every change made so far, oldest first.
    pub fn log(&self) -> &[Change] {
        &self.log
    }

    /// A timestamp after every one this generator wrote before (so `updated_at` orders changes).
    fn now(&mut self) -> String {
        let mut t = Utc::now();
        if let Some(last) = self.last
            && t <= last
        {
            t = last + chrono::Duration::microseconds(1);
        }
        self.last = Some(t);
        format_ts(t)
    }

    /// Makes `n` changes now; tables left empty are skipped.
    pub fn apply(&mut self, shared: &Shared, n: usize) -> Vec<Change> {
        self.apply_some(shared, n, true)
    }

    /// Makes `n` updates of deals and projects (no deletion, no contact touched): what the
    /// `--demo` dashboard's Today and change feed show, leaving its contacts as seeded.
    pub fn apply_deal_and_project_updates(&mut self, shared: &Shared, n: usize) -> Vec<Change> {
        self.apply_some(shared, n, false)
    }

    fn apply_some(&mut self, shared: &Shared, n: usize, all: bool) -> Vec<Change> {
        let mut made = Vec::with_capacity(n);
        let mut store = shared.store_mut();
        for _ in 0..n {
            if self.rng.chance(CREATE_PERCENT) {
                let id = store.next_contact_id();
                let stamp = self.now();
                let digits = self.rng.digits("#######");
                let row = new_contact(&id, &digits, &stamp);
                store.contacts.push(row);
                made.push(Change::Created {
                    kind: "contacts",
                    id,
                });
                continue;
            }
            // Contacts are the big table: half the changes; deals and projects share the rest.
            let kind = match self.rng.below(4) {
                0 | 1 if all => "contacts",
                0 | 2 => "deals",
                _ => "projects",
            };
            let table: &mut Table = match kind {
                "contacts" => &mut store.contacts,
                "deals" => &mut store.deals,
                _ => &mut store.projects,
            };
            if table.len() == 0 {
                continue;
            }
            let index = self.rng.below(table.len() as u64) as usize;
            let id = table.rows[index].id().to_string();
            if self.rng.chance(DELETE_PERCENT) && all {
                table.remove(&id);
                made.push(Change::Deleted { kind, id });
                continue;
            }
            let stamp = self.now();
            let pick = self.rng.below(3);
            let digits = self.rng.digits("#######");
            let Some(row) = table.get_mut(&id) else {
                continue;
            };
            let json = row.json_mut();
            let mut fields = Vec::new();
            match (kind, pick) {
                ("contacts", 0) => set(
                    json,
                    &mut fields,
                    "phone",
                    json!(format!("+49 30 {digits}")),
                ),
                ("contacts", 1) => set(json, &mut fields, "job_title", json!("Head of Churn")),
                ("contacts", _) => {
                    set(
                        json,
                        &mut fields,
                        "last_name",
                        json!(format!("Neu{digits}")),
                    );
                    // Keep full_name consistent with the parts, as the service would.
                    let first = json.get("first_name").and_then(Value::as_str).unwrap_or("");
                    let last = json.get("last_name").and_then(Value::as_str).unwrap_or("");
                    let full = format!("{first} {last}").trim().to_string();
                    set(json, &mut fields, "full_name", json!(full));
                }
                ("deals", 0) => {
                    let status = other_status(&mut self.rng, &DEAL_STATUSES, json.get("status"));
                    set(json, &mut fields, "status", status);
                }
                ("deals", 1) => set(json, &mut fields, "value", json!(format!("{digits}.50"))),
                ("deals", _) => {
                    let status = other_status(&mut self.rng, &DEAL_STATUSES, json.get("status"));
                    set(json, &mut fields, "status", status);
                    set(json, &mut fields, "value", json!(format!("{digits}.00")));
                }
                ("projects", 0) => {
                    let status = other_status(&mut self.rng, &PROJECT_STATUSES, json.get("status"));
                    set(json, &mut fields, "status", status);
                }
                ("projects", 1) => {
                    let days = 7 + self.rng.below(60) as i64;
                    let end = (Utc::now() + chrono::Duration::days(days)).date_naive();
                    set(json, &mut fields, "end_date", json!(end.to_string()));
                }
                _ => set(
                    json,
                    &mut fields,
                    "description",
                    json!(format!("Revised {digits}")),
                ),
            };
            json.insert("updated_at".into(), json!(stamp));
            row.refresh();
            made.push(Change::Updated { kind, id, fields });
        }
        drop(store);
        self.log.extend(made.iter().cloned());
        made
    }
}

/// A contact as `POST /contacts` stores it, made by the generator.
fn new_contact(id: &str, digits: &str, stamp: &str) -> super::store::Row {
    let mut m = serde_json::Map::new();
    for (k, v) in [
        ("id", json!(id)),
        ("first_name", json!("Neue")),
        ("last_name", json!(format!("Kundin{digits}"))),
        ("full_name", json!(format!("Neue Kundin{digits}"))),
        ("email", json!(format!("neu.{digits}@churn.example"))),
        ("phone", json!(format!("+49 40 {digits}"))),
        ("account_ids", json!([])),
        ("assigned_user_ids", json!([])),
        ("assigned_user_id", Value::Null),
        ("created_at", json!(stamp)),
        ("updated_at", json!(stamp)),
    ] {
        m.insert(k.to_string(), v);
    }
    super::store::Row::new(m)
}

/// Runs the generator at `per_second` changes a second until `stop` is cancelled or the
/// sandbox is gone.
pub fn spawn(shared: Weak<Shared>, per_second: u32, stop: CancellationToken) {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(TICK);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let per_tick = f64::from(per_second) * TICK.as_secs_f64();
        let mut owed = 0.0;
        loop {
            tokio::select! {
                _ = stop.cancelled() => return,
                _ = tick.tick() => {}
            }
            owed += per_tick;
            let n = owed.floor();
            owed -= n;
            if n >= 1.0 {
                let Some(shared) = shared.upgrade() else {
                    return;
                };
                // Touching 100,000 rows' orderings is CPU work: keep it off the server's workers.
                let _ = tokio::task::spawn_blocking(move || shared.churn(n as usize)).await;
            }
        }
    });
}
