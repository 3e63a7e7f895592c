//! Group commit: the appends of many tables share one transaction, so one durable commit (one fsync) covers
//! every action that arrived while the previous commit was being written.
//!
//! A table hands its append to [`Committer::append`] and awaits the answer; nothing is acknowledged or published
//! before that answer says the transaction holding it has committed. The writer never waits to fill a batch: it
//! takes whatever is queued when it becomes free, so a lone action is committed at once (a batch of one) and
//! batches grow only with the load. If a batch fails, it is rolled back and its appends are retried one
//! transaction each, so every append gets its own result (a conflict in one match never fails another's
//! action).

use std::sync::{Arc, OnceLock};

use rules::Outcome;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tracing::warn;

use crate::store::{Append, LogEntry, Store, StoreError};

/// Most appends in one transaction.
const MAX_BATCH: usize = 512;
/// Appends waiting for the writer before tables wait to enqueue (each table has at most one in flight).
const QUEUE: usize = 4096;

/// An append that owns its data: handed over to the writer whole (the action is moved, never copied).
#[derive(Debug)]
pub struct Pending {
    pub match_id: String,
    pub lobby_code: String,
    pub entry: LogEntry,
    pub snapshot: Option<Value>,
    pub outcome: Option<Outcome>,
}

impl Pending {
    fn as_append(&self) -> Append<'_> {
        Append {
            match_id: &self.match_id,
            lobby_code: &self.lobby_code,
            entry: &self.entry,
            snapshot: self.snapshot.as_ref(),
            outcome: self.outcome.as_ref(),
        }
    }
}

/// A pending append queued for the writer, with where its answer goes.
#[derive(Debug)]
struct Job {
    pending: Pending,
    done: oneshot::Sender<Result<(), StoreError>>,
}

impl Job {
    fn as_append(&self) -> Append<'_> {
        self.pending.as_append()
    }
}

/// The handle tables append through; clones share one writer task, started on first use.
#[derive(Clone, Debug)]
pub struct Committer {
    store: Store,
    writer: Arc<OnceLock<mpsc::Sender<Job>>>,
}

impl Committer {
    pub fn new(store: Store) -> Committer {
        Committer {
            store,
            writer: Arc::default(),
        }
    }

    /// Appends one action (with its snapshot and result when due) and returns once the transaction holding it
    /// has committed, or failed.
    pub async fn append(&self, pending: Pending) -> Result<(), StoreError> {
        let writer = self.writer.get_or_init(|| {
            let (tx, rx) = mpsc::channel(QUEUE);
            tokio::spawn(write_batches(self.store.clone(), rx));
            tx
        });
        let (done, answer) = oneshot::channel();
        if let Err(mpsc::error::SendError(job)) = writer.send(Job { pending, done }).await {
            // The writer is gone (shutting down): write this one alone.
            // Boxed: a rare path, and the store's future would make every append's (and so every action's) large.
            return Box::pin(self.store.append(&job.as_append())).await;
        }
        answer.await.unwrap_or_else(|_| {
            Err(StoreError::Corrupt(
                "the group-commit writer stopped before answering".into(),
            ))
        })
    }
}

/// The writer: one transaction per batch of whatever is queued, until every [`Committer`] is dropped.
async fn write_batches(store: Store, mut jobs: mpsc::Receiver<Job>) {
    let mut batch: Vec<Job> = Vec::with_capacity(MAX_BATCH);
    while jobs.recv_many(&mut batch, MAX_BATCH).await > 0 {
        let appends: Vec<Append<'_>> = batch.iter().map(Job::as_append).collect();
        let result = store.append_batch(&appends).await;
        drop(appends);
        match result {
            Ok(()) => {
                for job in batch.drain(..) {
                    let _ = job.done.send(Ok(()));
                }
            }
            Err(e) if batch.len() == 1 => {
                let job = batch.pop().expect("one job");
                let _ = job.done.send(Err(e));
            }
            Err(e) if e.is_unavailable() => {
                // The database cannot be reached: writing the appends one by one would only make each table wait
                // for its own timeout in turn. Every one of them gets the answer now (tables reload, and clients
                // are told `store_unavailable`).
                warn!(error = %e, size = batch.len(), "a group commit failed: the database cannot be reached");
                let reason = e.to_string();
                for job in batch.drain(..) {
                    let _ = job.done.send(Err(StoreError::Unavailable(reason.clone())));
                }
            }
            Err(e) => {
                warn!(error = %e, size = batch.len(), "a group commit failed; writing its appends one by one");
                for job in batch.drain(..) {
                    let result = store.append(&job.as_append()).await;
                    let _ = job.done.send(result);
                }
            }
        }
    }
}
