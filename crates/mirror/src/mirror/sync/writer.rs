//! Writing off the fetch path: one task on the blocking pool takes the pages the walk reads
//! (through a bounded channel, so a slow disk slows the reads rather than filling memory) and
//! writes them in large transactions, each with the latest sync state that they complete.
//! A transaction per page cost most of a first sync's time and of its bytes written (every
//! page rewrote the same index pages and journal); a transaction per few thousand records
//! writes each index page a few times instead.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::mpsc;

use super::super::store::{Applied, SyncState};
use super::super::{Mirror, MirrorError, Mirrored};

/// Records written per transaction (at most this many plus one page).
pub const BATCH_RECORDS: usize = 5_000;
/// Records of a first sync's bulk phase before its second commit (then each commit waits for
/// as many as were committed before it).
const BULK_FIRST: usize = 20_000;
/// Pages waiting for the writer before the walk waits for it: with the window's reads in
/// flight, what a sync holds of records in memory whatever the resource's size (a first
/// sync's bulk phase writes each page into its open transaction as it comes, so it keeps no
/// batch besides).
pub const QUEUE: usize = 16;

enum ToDisk<T> {
    Records(Vec<T>, Option<i64>),
    /// The state to save with the next commit (if any); with a sender: commit at once, then
    /// say so.
    State(
        Option<Box<SyncState>>,
        Option<tokio::sync::oneshot::Sender<()>>,
    ),
}

/// The writer of one resource's sync.
pub struct Writer<T: Mirrored> {
    tx: Option<mpsc::Sender<ToDisk<T>>>,
    task: tokio::task::JoinHandle<Result<Applied, MirrorError>>,
    /// Whether records are written with their search entries (see `deferred`).
    index: Arc<AtomicBool>,
}

impl<T: Mirrored> Writer<T> {
    pub fn start(mirror: Arc<Mutex<Mirror>>) -> Writer<T> {
        let (tx, mut rx) = mpsc::channel::<ToDisk<T>>(QUEUE);
        let index = Arc::new(AtomicBool::new(true));
        let indexing = index.clone();
        let task = tokio::task::spawn_blocking(move || {
            let mut applied = Applied::default();
            let mut pages: Vec<(Vec<T>, Option<i64>)> = Vec::new();
            let mut pending = 0usize;
            let mut state: Option<SyncState> = None;
            // The bulk phase (`deferred`): records in the open transaction, and committed.
            let (mut open, mut committed) = (0usize, 0usize);
            let write = |pages: &mut Vec<(Vec<T>, Option<i64>)>,
                         state: &mut Option<SyncState>,
                         applied: &mut Applied,
                         bulk: bool,
                         commit: bool|
             -> Result<(), MirrorError> {
                let mut m = mirror.lock().unwrap_or_else(|e| e.into_inner());
                let a = if bulk {
                    let a = m.apply_open(pages, state.as_ref())?;
                    if commit {
                        m.commit_open()?;
                    }
                    a
                } else {
                    m.commit_open()?;
                    if pages.is_empty() && state.is_none() {
                        return Ok(());
                    }
                    m.apply_batch(pages, state.as_ref(), true)?
                };
                applied.inserted += a.inserted;
                applied.updated += a.updated;
                applied.unchanged += a.unchanged;
                pages.clear();
                *state = None;
                Ok(())
            };
            while let Some(msg) = rx.blocking_recv() {
                let (ack, flush) = match msg {
                    ToDisk::Records(records, generation) => {
                        pending += records.len();
                        pages.push((records, generation));
                        (None, false)
                    }
                    ToDisk::State(s, ack) => {
                        let flush = s.is_none() && ack.is_some();
                        if let Some(s) = s {
                            state = Some(*s);
                        }
                        (ack, flush)
                    }
                };
                if !indexing.load(Ordering::SeqCst) {
                    // Each page goes into the open transaction at once: memory stays the
                    // queue's, while the commits keep their own cadence.
                    if ack.is_some() || pending > 0 {
                        open += pending;
                        // The first commit makes the pass resumable; after it, each commit
                        // waits for as many records as all before it (a kill loses at most
                        // the half read last), or for the pass's end.
                        let commit = flush
                            || (committed == 0 && ack.is_some())
                            || open >= BULK_FIRST.max(committed);
                        write(&mut pages, &mut state, &mut applied, true, commit)?;
                        if commit {
                            committed += open;
                            open = 0;
                        }
                        pending = 0;
                    }
                } else if ack.is_some() || pending >= BATCH_RECORDS {
                    write(&mut pages, &mut state, &mut applied, false, true)?;
                    pending = 0;
                }
                if let Some(ack) = ack {
                    let _ = ack.send(());
                }
            }
            let bulk = !indexing.load(Ordering::SeqCst);
            write(&mut pages, &mut state, &mut applied, bulk, true)?;
            Ok(applied)
        });
        Writer {
            tx: Some(tx),
            task,
            index,
        }
    }

    async fn send(&self, msg: ToDisk<T>) -> Result<(), MirrorError> {
        match &self.tx {
            Some(tx) if tx.send(msg).await.is_ok() => Ok(()),
            // The writer stopped: its error is told by `finish`.
            _ => Err(MirrorError::Stopped("the mirror's writer stopped".into())),
        }
    }

    /// Queues records (marked seen by `generation` when given).
    pub async fn records(
        &self,
        records: Vec<T>,
        generation: Option<i64>,
    ) -> Result<(), MirrorError> {
        if records.is_empty() {
            return Ok(());
        }
        self.send(ToDisk::Records(records, generation)).await
    }

    /// The state the records queued so far complete; `now` commits them at once and waits
    /// until they are on disk (a signal or a kill right after loses none of it).
    pub async fn state(&self, state: SyncState, now: bool) -> Result<(), MirrorError> {
        if !now {
            return self.send(ToDisk::State(Some(Box::new(state)), None)).await;
        }
        self.commit(Some(state)).await
    }

    async fn commit(&self, state: Option<SyncState>) -> Result<(), MirrorError> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.send(ToDisk::State(state.map(Box::new), Some(tx)))
            .await?;
        rx.await
            .map_err(|_| MirrorError::Stopped("the mirror's writer stopped".into()))
    }

    /// Commits what is queued (with the state queued last) and waits until it is on disk.
    pub async fn flush(&self) -> Result<(), MirrorError> {
        self.commit(None).await
    }

    /// Whether the records queued from now on are written with their search entries (a
    /// first full pass writes them without: `Mirror::build_search_indexes` builds them).
    pub fn index(&self, on: bool) {
        self.index.store(on, Ordering::SeqCst);
    }

    /// Writes what is queued and says how the records changed the mirror (or why writing
    /// stopped).
    pub async fn finish(mut self) -> Result<Applied, MirrorError> {
        drop(self.tx.take());
        (&mut self.task)
            .await
            .map_err(|e| MirrorError::Stopped(e.to_string()))?
    }
}
