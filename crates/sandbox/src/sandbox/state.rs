//! The state one running sandbox shares between its connections, its handle and its control
//! endpoint. Locks are held only for short, synchronous steps (never across an await).

use std::sync::{Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::Duration;

use super::churn::{Change, Churner};
use super::faults::FaultBook;
use super::idempotency::IdempotencyStore;
use super::listing::OrderCache;
use super::requestlog::RequestLog;
use super::seed::Dataset;
use super::store::Store;

/// The fixed settings of a running sandbox.
pub struct Settings {
    pub token: String,
    pub read_only_token: Option<String>,
    pub unique_emails: bool,
    pub latency: Option<Duration>,
    /// Where `reset` goes back to.
    pub seed: u64,
    pub contacts: usize,
    pub near_duplicates: bool,
}

pub struct Shared {
    pub settings: Settings,
    store: RwLock<Store>,
    cache: Mutex<OrderCache>,
    faults: Mutex<FaultBook>,
    log: Mutex<RequestLog>,
    idempotency: Mutex<IdempotencyStore>,
    churner: Mutex<Churner>,
}

/// A poisoned lock only means a handler panicked mid-way; the data is still usable for a fake.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shared {
    pub fn new(settings: Settings, data: Dataset) -> Shared {
        let settings_seed = settings.seed;
        Shared {
            settings,
            store: RwLock::new(Store::new(data)),
            cache: Mutex::new(OrderCache::default()),
            faults: Mutex::new(FaultBook::default()),
            log: Mutex::new(RequestLog::default()),
            idempotency: Mutex::new(IdempotencyStore::default()),
            churner: Mutex::new(Churner::new(settings_seed)),
        }
    }

    pub fn store(&self) -> RwLockReadGuard<'_, Store> {
        self.store.read().unwrap_or_else(|e| e.into_inner())
    }

    pub fn store_mut(&self) -> RwLockWriteGuard<'_, Store> {
        self.store.write().unwrap_or_else(|e| e.into_inner())
    }

    /// The list orderings (locked inside `listing`, after the store lock when both are held).
    pub fn cache(&self) -> &Mutex<OrderCache> {
        &self.cache
    }

    pub fn faults(&self) -> MutexGuard<'_, FaultBook> {
        lock(&self.faults)
    }

    pub fn log(&self) -> MutexGuard<'_, RequestLog> {
        lock(&self.log)
    }

    pub fn idempotency(&self) -> MutexGuard<'_, IdempotencyStore> {
        lock(&self.idempotency)
    }

    /// Makes `n` changes now (the change generator's) and returns them.
    pub fn churn(&self, n: usize) -> Vec<Change> {
        lock(&self.churner).apply(self, n)
    }

    /// Makes `n` updates of deals and projects now (no deletion, no contact touched).
    pub fn churn_deals_and_projects(&self, n: usize) -> Vec<Change> {
        lock(&self.churner).apply_deal_and_project_updates(self, n)
    }

    /// Every change the generator made so far, oldest first.
    pub fn churned(&self) -> Vec<Change> {
        lock(&self.churner).log().to_vec()
    }

    /// Back to the seed data; faults, the request log and idempotency keys forgotten.
    pub fn reset(&self, data: Dataset) {
        *self.store_mut() = Store::new(data);
        *lock(&self.cache) = OrderCache::default();
        self.faults().clear();
        self.log().clear();
        *self.idempotency() = IdempotencyStore::default();
    }
}
