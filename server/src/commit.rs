//! Group commit: the appends of many tables share one transaction, so one durable commit (one fsync) covers
//! every action that arrived while the previous commit was being written.
//!
//! A table hands its append to [`Committer::append`] and awaits the answer; nothing is acknowledged or published
//! before that answer says the transaction holding it has committed. The writer never waits to fill a batch: it
//! takes whatever is queued when it becomes free, so a lone action is committed at once (a batch of one) and
//! batches grow only with the load. If a batch fails, it is rolled back and written again in halves, a refused
//! half halved again, so every write gets its own result (a conflict in one match never fails another's
//! action) in about 2 log2(n) transactions for one refused write among n. A new lobby whose code is taken is the exception: the batch leaves it out and commits the rest, and
//! only that lobby is answered with a conflict (its creator draws another code).
//!
//! Every batch is written within the store's deadline (`Store::guarded`): while the database cannot be reached
//! a batch fails after at most that long, and the batches after it at once for one more deadline, so a table waits
//! about one deadline for its answer, not one per batch queued before it. A batch that timed out may or may not
//! have committed ([`StoreError::TimedOut`]): its tables reload before they act again, as after a lost answer.
//!
//! The rows that set a match up (a new lobby with its host's seat, a joined seat, a match's start) take the same
//! path ([`Committer::create_lobby`], [`Committer::insert_seat`], [`Committer::start_match`]): each was a
//! transaction and an fsync of its own, three for every match played, a third of each action's cost
//! (docs/performance.md, "Measured reasons"). A batch writes them before its actions; a table has at most one
//! write in flight, so one batch never holds two writes of the same lobby.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use rules::Outcome;
use tokio::sync::{mpsc, oneshot};
use tracing::warn;

use crate::cluster::Cluster;
use crate::metrics::Metrics;
use crate::store::{
    Append, LobbyRecord, LogEntry, MatchRecord, Notice, SeatRecord, Setup, Store, StoreError,
};

/// Most appends in one transaction.
pub(crate) const MAX_BATCH: usize = 512;
/// Appends waiting for the writer before tables wait to enqueue (each table has at most one in flight).
const QUEUE: usize = 4096;

/// An append that owns its data: handed over to the writer whole (the action is moved, never copied).
#[derive(Debug)]
pub struct Pending {
    /// Shared with the table (a reference count per action, not a copy).
    pub match_id: Arc<str>,
    pub lobby_code: Arc<str>,
    pub entry: LogEntry,
    /// The full state's JSON text (`AnyGame::full_state`), when a snapshot is due.
    pub snapshot: Option<String>,
    pub outcome: Option<Outcome>,
    /// The seats that must decide after this action (`store::to_decide_text`).
    pub to_decide: Option<String>,
    /// A correspondence match's clocks after this action, written in the action's row (`table/clocks.rs`).
    pub clocks: Option<String>,
    /// The notifications this action causes (issue 47), written in its transaction; empty unless a seat of the
    /// table has an endpoint (`notify/`).
    pub notices: Vec<Notice>,
}

impl Pending {
    fn as_append(&self) -> Append<'_> {
        Append {
            match_id: &self.match_id,
            lobby_code: &self.lobby_code,
            entry: &self.entry,
            snapshot: self.snapshot.as_deref(),
            outcome: self.outcome.as_ref(),
            to_decide: self.to_decide.as_deref(),
            clocks: self.clocks.as_deref(),
        }
    }
}

/// A lobby's or match's row that owns its data, for the writer (see [`Setup`]).
#[derive(Debug)]
enum SetupRecord {
    CreateLobby(LobbyRecord, SeatRecord),
    InsertSeat(String, SeatRecord),
    StartMatch(String, MatchRecord),
}

impl SetupRecord {
    fn as_setup(&self) -> Setup<'_> {
        match self {
            SetupRecord::CreateLobby(lobby, host) => Setup::CreateLobby { lobby, host },
            SetupRecord::InsertSeat(code, seat) => Setup::InsertSeat { code, seat },
            SetupRecord::StartMatch(code, record) => Setup::StartMatch { code, record },
        }
    }
}

/// What a job writes.
#[derive(Debug)]
enum Work {
    Append(Pending),
    Setup(SetupRecord),
}

impl Work {
    /// The join code of the table that writes this.
    fn code(&self) -> Arc<str> {
        match self {
            Work::Append(pending) => pending.lobby_code.clone(),
            Work::Setup(SetupRecord::CreateLobby(lobby, _)) => Arc::from(lobby.code.as_str()),
            Work::Setup(SetupRecord::InsertSeat(code, _) | SetupRecord::StartMatch(code, _)) => {
                Arc::from(code.as_str())
            }
        }
    }
}

/// A write queued for the writer, with where its answer goes.
#[derive(Debug)]
struct Job {
    work: Work,
    done: oneshot::Sender<Result<(), StoreError>>,
}

impl Job {
    fn append(&self) -> Option<Append<'_>> {
        match &self.work {
            Work::Append(pending) => Some(pending.as_append()),
            Work::Setup(_) => None,
        }
    }

    fn setup(&self) -> Option<Setup<'_>> {
        match &self.work {
            Work::Append(_) => None,
            Work::Setup(record) => Some(record.as_setup()),
        }
    }

    /// Writes this job alone, in its own transaction.
    async fn write_alone(&self, store: &Store) -> Result<(), StoreError> {
        match &self.work {
            Work::Append(pending) => store
                .write_batch_with(&[], &[pending.as_append()], &pending.notices)
                .await
                .map(drop),
            Work::Setup(record) => store.setup(&record.as_setup()).await,
        }
    }
}

/// The handle tables append through; clones share one writer task, started on first use.
#[derive(Clone, Debug)]
pub struct Committer {
    store: Store,
    metrics: Arc<Metrics>,
    writer: Arc<OnceLock<mpsc::Sender<Job>>>,
    /// Cluster mode: told of every write the database's fence refuses, so that its table stops at once.
    cluster: Arc<OnceLock<Arc<Cluster>>>,
}

impl Committer {
    pub fn new(store: Store, metrics: Arc<Metrics>) -> Committer {
        Committer {
            store,
            metrics,
            writer: Arc::default(),
            cluster: Arc::default(),
        }
    }

    /// Cluster mode: a write the fence refuses stops its table (see `cluster/`).
    pub fn set_cluster(&self, cluster: Arc<Cluster>) {
        let _ = self.cluster.set(cluster);
    }

    /// Appends one action (with its snapshot and result when due) and returns once the transaction holding it
    /// has committed, or failed.
    pub async fn append(&self, pending: Pending) -> Result<(), StoreError> {
        self.submit(Work::Append(pending)).await
    }

    /// [`Store::create_lobby`], in a group commit.
    pub async fn create_lobby(&self, lobby: &LobbyRecord, host: &SeatRecord) -> Result<(), StoreError> {
        let record = SetupRecord::CreateLobby(lobby.clone(), host.clone());
        Box::pin(self.submit(Work::Setup(record))).await
    }

    /// [`Store::insert_seat`], in a group commit.
    pub async fn insert_seat(&self, code: &str, seat: &SeatRecord) -> Result<(), StoreError> {
        let record = SetupRecord::InsertSeat(code.to_owned(), seat.clone());
        Box::pin(self.submit(Work::Setup(record))).await
    }

    /// [`Store::start_match`], in a group commit.
    pub async fn start_match(&self, code: &str, record: &MatchRecord) -> Result<(), StoreError> {
        let record = SetupRecord::StartMatch(code.to_owned(), record.clone());
        Box::pin(self.submit(Work::Setup(record))).await
    }

    /// Queues `work` for the writer and returns once the transaction holding it has committed, or failed.
    async fn submit(&self, work: Work) -> Result<(), StoreError> {
        match self.cluster.get() {
            None => self.submit_unfenced(work).await,
            Some(cluster) => {
                let code = work.code();
                let written = self.submit_unfenced(work).await;
                if let Err(e) = &written
                    && e.is_fenced()
                {
                    cluster.fenced(&code);
                    return Err(StoreError::Fenced);
                }
                written
            }
        }
    }

    async fn submit_unfenced(&self, work: Work) -> Result<(), StoreError> {
        let writer = self.writer.get_or_init(|| {
            let (tx, rx) = mpsc::channel(QUEUE);
            tokio::spawn(write_batches(self.store.clone(), self.metrics.clone(), rx));
            tx
        });
        let (done, answer) = oneshot::channel();
        if let Err(mpsc::error::SendError(job)) = writer.send(Job { work, done }).await {
            // The writer is gone (shutting down): write this one alone.
            // Boxed: a rare path, and the store's future would make every append's (and so every action's) large.
            return Box::pin(job.write_alone(&self.store)).await;
        }
        answer.await.unwrap_or_else(|_| {
            Err(StoreError::Corrupt(
                "the group-commit writer stopped before answering".into(),
            ))
        })
    }
}

/// The writer: one transaction per batch of whatever is queued, until every [`Committer`] is dropped.
async fn write_batches(store: Store, metrics: Arc<Metrics>, mut jobs: mpsc::Receiver<Job>) {
    let mut batch: Vec<Job> = Vec::with_capacity(MAX_BATCH);
    while jobs.recv_many(&mut batch, MAX_BATCH).await > 0 {
        match write_batch(&store, &metrics, &batch).await {
            Ok(left_out) => answer(batch.drain(..), &left_out),
            Err(e) => {
                let jobs = std::mem::replace(&mut batch, Vec::with_capacity(MAX_BATCH));
                // Boxed: a rare path, and recursive.
                Box::pin(refused(&store, &metrics, jobs, e)).await;
            }
        }
    }
}

/// Writes `batch` as one transaction; on success, which of its jobs (indexes into `batch`) were left out because
/// their lobby code is taken.
async fn write_batch(store: &Store, metrics: &Metrics, batch: &[Job]) -> Result<Vec<usize>, StoreError> {
    // Lobbies' and matches' rows first, in their order, then the actions.
    let setups: Vec<Setup<'_>> = batch.iter().filter_map(Job::setup).collect();
    // Which job each setup is, to answer the lobbies a batch leaves out because their code is taken.
    let setup_jobs: Vec<usize> = (0..batch.len()).filter(|&i| batch[i].setup().is_some()).collect();
    let appends: Vec<Append<'_>> = batch.iter().filter_map(Job::append).collect();
    let notices: Vec<Notice> = batch
        .iter()
        .filter_map(|job| match &job.work {
            Work::Append(pending) if !pending.notices.is_empty() => Some(pending.notices.iter().cloned()),
            _ => None,
        })
        .flatten()
        .collect();
    let started = Instant::now();
    let result = store.write_batch_with(&setups, &appends, &notices).await;
    metrics.group_commit_latency.observe(started.elapsed());
    metrics.group_commits.fetch_add(1, Relaxed);
    metrics
        .group_commit_appends
        .fetch_add(appends.len() as u64, Relaxed);
    if result.is_err() {
        metrics.group_commit_failures.fetch_add(1, Relaxed);
    }
    result.map(|left_out| left_out.into_iter().map(|i| setup_jobs[i]).collect())
}

/// Answers a written batch's jobs: a conflict for those left out (`left_out`, indexes), done for the rest.
fn answer(jobs: impl Iterator<Item = Job>, left_out: &[usize]) {
    for (i, job) in jobs.enumerate() {
        let result = if left_out.contains(&i) {
            Err(StoreError::Conflict)
        } else {
            Ok(())
        };
        let _ = job.done.send(result);
    }
}

/// A batch the database refused with `error`. A single write gets that answer. When the database cannot be
/// reached, every write gets it at once: writing them again would only make each table wait for its own timeout
/// in turn (tables reload, and clients are told `store_unavailable`). Otherwise the batch is written again in
/// halves, in order, and a refused half is halved again, so that every write gets its own answer as if written
/// alone (a conflict in one match never fails another's action) in about 2 log2(n) transactions for one refused
/// write among n, instead of n while every table waits.
async fn refused(store: &Store, metrics: &Metrics, mut jobs: Vec<Job>, error: StoreError) {
    if jobs.len() == 1 {
        let job = jobs.pop().expect("one job");
        let _ = job.done.send(Err(error));
        return;
    }
    if error.is_unavailable() {
        warn!(error = %error, size = jobs.len(), "a group commit failed: the database cannot be reached");
        let reason = error.to_string();
        for job in jobs {
            let _ = job.done.send(Err(StoreError::Unavailable(reason.clone())));
        }
        return;
    }
    warn!(error = %error, size = jobs.len(), "a group commit failed; writing it again in halves");
    let second = jobs.split_off(jobs.len() / 2);
    for half in [jobs, second] {
        match write_batch(store, metrics, &half).await {
            Ok(left_out) => answer(half.into_iter(), &left_out),
            Err(e) => Box::pin(refused(store, metrics, half, e)).await,
        }
    }
}
