//! One task per table: it owns a lobby and, once the host starts it, the lobby's match. It is the only writer of
//! its lobby and match, in memory and in the database; connections talk to it through a bounded channel of
//! [`Command`]s with `oneshot` replies, and it pushes lobby and state messages back through each connection's
//! own bounded channel.
//!
//! An action is applied to a copy of the game, appended to the action log (the primary key (match, seq) refuses
//! a second writer), and only once the transaction has committed does the copy become the state and does anyone
//! hear of it: first the other viewers' pushes are queued, then the sender's reply is sent.
//!
//! This file holds the `Table` struct, the commands and the command loop; the rest of `Table` is in `table/`, one
//! concern a file: `lobby.rs` (seats, spectators, start, the lobby settings' checks), `play.rs` (apply, commit,
//! publish), `wake.rs` (deadlines, bots, turn timer), `push.rs` (views and pushes, resync on resume), `recover.rs`
//! (from snapshot plus log, reload), `downtime.rs` (outages not charged to anyone), `idle.rs` (leaving memory when nobody is there, abandonment), `host.rs`,
//! `chat.rs`, `absence.rs`, `away.rs` (what was played for a returning player), `rematch.rs` and `admin.rs`.

use std::{collections::VecDeque, sync::Arc, time::Instant};

use protocol::{ErrorBody, ErrorCode, RawJson, SeatToken, ServerMessage};
use rules::{AnyGame, Event, Millis, Rng, Seat};
use serde_json::Value;
use tokio::sync::{Notify, mpsc, oneshot, watch};
use tracing::{Instrument, error, info, info_span, warn};

use crate::{
    clock::{SharedClock, Sleep},
    commit::Committer,
    metrics::Metrics,
    secrets,
    store::{LobbyRecord, Phase, Store, StoreError},
};

/// Settings every table shares.
#[derive(Clone, Debug)]
pub struct TableSettings {
    /// How long a bot waits after the last change before it acts.
    pub bot_delay_ms: u64,
    /// A full-state snapshot is stored with every `snapshot_every`-th action.
    pub snapshot_every: u64,
    /// How many past changes a table keeps for reconnecting clients.
    pub history: usize,
    /// How long a finished table with nobody connected stays in memory (see [`Table::unload_at`]).
    pub unload_finished_after_ms: u64,
    /// How long an open or playing table with nobody connected stays in memory (`table/idle.rs`).
    pub idle_unload_ms: u64,
    /// How long a playing match with nobody connected waits before it ends as abandoned (`table/idle.rs`).
    pub abandon_after_ms: u64,
    /// Chat and presence (see `table/chat.rs`).
    pub friends: FriendsSettings,
    /// Every match's seed, for scripted runs (`Config::match_seed`); `None`: a fresh random seed each.
    pub match_seed: Option<u64>,
    /// The vacation days each player of a correspondence match may take per calendar month (`table/clocks.rs`).
    pub vacation_days_per_month: u32,
}

/// What every table is given: the database, the clock, the metrics and the shared settings.
#[derive(Clone, Debug)]
pub struct TableDeps {
    pub store: Store,
    /// Action appends go through group commit (see `commit.rs`).
    pub commits: Committer,
    pub clock: SharedClock,
    pub metrics: Arc<Metrics>,
    pub settings: TableSettings,
    /// Asks the hub to start the task of a lobby this table created (a rematch).
    pub load: mpsc::UnboundedSender<String>,
}

/// The sending side of one WebSocket connection, as a table sees it.
#[derive(Clone, Debug)]
pub struct Conn {
    pub id: u64,
    /// Boxed: the channel allocates its first block of 32 slots up front, for every connection, idle or not
    /// (32 pointers instead of 32 whole messages).
    pub tx: mpsc::Sender<Box<ServerMessage>>,
    /// How the table drops this connection (replaced by a newer one, too slow to read, lobby closed).
    pub closer: Arc<Closer>,
}

/// A request to close a connection, with the reason it is told last. Kept outside the outbox so the reason
/// reaches the client even when the outbox is full.
#[derive(Debug, Default)]
pub struct Closer {
    pub notify: Notify,
    reason: std::sync::OnceLock<ErrorBody>,
}

impl Closer {
    /// The reason given by the first call to [`Conn::close`].
    pub fn reason(&self) -> Option<&ErrorBody> {
        self.reason.get()
    }
}

impl Conn {
    /// Queues a message; false if the connection is gone or too slow (it is then closed).
    fn push(&self, message: ServerMessage) -> bool {
        match self.tx.try_send(Box::new(message)) {
            Ok(()) => true,
            Err(mpsc::error::TrySendError::Full(_)) => {
                warn!(
                    conn = self.id,
                    "connection too slow to read its messages; closing it"
                );
                self.close(ErrorCode::Overloaded, "too many unread messages");
                false
            }
            Err(mpsc::error::TrySendError::Closed(_)) => false,
        }
    }

    /// Tells the connection to deliver what is queued, then `closing` with this reason, and to close.
    fn close(&self, code: ErrorCode, message: &str) {
        let _ = self.closer.reason.set(ErrorBody::new(code, message));
        self.closer.notify.notify_one();
    }
}

/// What a seat holder learns on joining or creating a lobby.
#[derive(Debug)]
pub struct Seated {
    pub seat: Seat,
    pub seat_token: SeatToken,
    pub host: bool,
}

pub type Respond<T> = oneshot::Sender<Result<T, ErrorBody>>;

/// A request to a table.
#[derive(Debug)]
pub enum Command {
    Join {
        name: String,
        conn: Conn,
        reply: Respond<Seated>,
    },
    Spectate {
        conn: Conn,
        /// The lobby's watch token, from a replay link (see [`Table::may_watch`]).
        watch: Option<String>,
        /// The spectator's display name, as given (checked by the table).
        name: Option<String>,
        /// The last version the spectator saw (see [`Table::push_state_to`]).
        last_version: Option<u64>,
        reply: Respond<()>,
    },
    /// A seat holder asks for the lobby's watch token.
    WatchLink {
        conn_id: u64,
        reply: Respond<String>,
    },
    Resume {
        token: SeatToken,
        last_version: Option<u64>,
        conn: Conn,
        reply: Respond<(Seat, bool)>,
    },
    Leave {
        conn_id: u64,
        reply: Respond<()>,
    },
    AddBot {
        conn_id: u64,
        seat: Option<u8>,
        reply: Respond<()>,
    },
    Start {
        conn_id: u64,
        reply: Respond<()>,
    },
    Act {
        conn_id: u64,
        action: RawJson,
        version: Option<u64>,
        /// When the connection received the action, its round trip and the race it was last shown: a claim in
        /// a race is timed from them (`play.rs`).
        timing: Timing,
        reply: Respond<u64>,
    },
    Disconnect {
        conn_id: u64,
    },
    /// An admin request (see [`AdminOp`]): inspections and actions go through the owner task like any other.
    Admin {
        op: AdminOp,
        reply: Respond<Value>,
    },
    /// A chat message from a seat or a spectator (see `table/chat.rs`).
    Chat {
        conn_id: u64,
        text: String,
        reply: Respond<()>,
    },
    /// From the table's chat writer: this message is stored (or failed to be); deliver it.
    ChatStored {
        message: protocol::ChatMessage,
        stored: Result<(), StoreError>,
        reply: Respond<()>,
    },
    /// The client's page is hidden (or visible again).
    Presence {
        conn_id: u64,
        hidden: bool,
        reply: Respond<()>,
    },
    /// A host control (see `table/host.rs`).
    Host {
        conn_id: u64,
        op: HostOp,
        reply: Respond<()>,
    },
    /// Asks for or answers a rematch (see `table/rematch.rs`).
    Rematch {
        conn_id: u64,
        accept: bool,
        reply: Respond<()>,
    },
    /// Starts a vacation of `days` days for the sender's correspondence clock, or ends it (`None`); see
    /// `table/clocks.rs`.
    Vacation {
        conn_id: u64,
        days: Option<u32>,
        reply: Respond<()>,
    },
    /// A seat's notification endpoints (see `table/notify.rs`).
    Notify {
        conn_id: u64,
        op: NotifyOp,
        reply: Respond<protocol::Reply>,
    },
}

/// The handle connections use to reach a table.
#[derive(Clone, Debug)]
pub struct TableHandle {
    pub code: String,
    pub tx: mpsc::Sender<Command>,
}

#[derive(Debug)]
enum Occupant {
    Empty,
    Human {
        name: String,
        token_hash: String,
        conn: Option<Conn>,
    },
    Bot {
        name: String,
    },
}

/// A spectator's connection, and the name it gave (`None`: an unnamed spectator, shown only in the count).
#[derive(Debug)]
struct Watcher {
    conn: Conn,
    name: Option<String>,
}

#[derive(Debug)]
struct Running {
    /// Shared by every push and commit of the match (`Arc`: a reference count each, not a copy).
    match_id: Arc<str>,
    game: AnyGame,
    /// Actions applied so far; the version clients see.
    version: u64,
    /// Each seat's legal actions as the JSON text its pushes carry, and the version at which they last changed:
    /// what the `version` of an action is checked against (`play.rs`).
    options: play::SeatOptions,
    /// When the last action was applied (or the match started): the turn timer and bots count from here.
    last_change: Millis,
    /// Recent changes, for clients that reconnect with the version they last saw.
    /// Each event body is JSON text written once (shared by every viewer who may see it, never re-serialised).
    history: VecDeque<(u64, Vec<Event<RawJson>>)>,
    /// Set when an action the table took by itself (deadline, bot, turn timer) was refused at this version: an
    /// engine bug. The table then stops acting by itself until the state changes, instead of spinning.
    stalled_at: Option<u64>,
    /// Set when a write failed and the match could not be reloaded from the database afterwards: the database
    /// may hold an action memory does not (a commit whose answer was lost). No action is applied until a
    /// reload succeeds (`Table::reload_if_unsure`).
    unsure: bool,
    /// The race open now, when it opened while the table was loaded: what claims are timed from (`play.rs`).
    race: Option<play::RaceOpened>,
}

/// Why a stored table cannot be served.
#[derive(Debug, thiserror::Error)]
pub enum RecoverError {
    #[error("{0}")]
    Store(#[from] StoreError),
    #[error("match {match_id} cannot be recovered: {reason}")]
    Unrecoverable { match_id: String, reason: String },
}

/// A table's state, owned by its task.
#[derive(Debug)]
pub struct Table {
    /// The join code and the game, shared by every push and commit (`Arc`: a reference count each).
    code: Arc<str>,
    game_id: Arc<str>,
    options: Value,
    /// The version of the game's rules its match plays (or will play) by.
    rules_version: u32,
    host: u8,
    turn_timer_ms: Option<u64>,
    phase: Phase,
    seats: Vec<Occupant>,
    spectators: Vec<Watcher>,
    running: Option<Running>,
    store: Store,
    commits: Committer,
    clock: SharedClock,
    metrics: Arc<Metrics>,
    settings: TableSettings,
    /// The server's own randomness for bots and the turn timer (not the match's).
    rng: Rng,
    /// The size of the last view written (`push::view_json`), the first guess of the next one's buffer, so that
    /// it seldom grows.
    text_sizes: std::cell::Cell<usize>,
    /// The table acts by itself no earlier than this (set after a database failure).
    not_before: Millis,
    /// Since when this finished table has had nobody connected (and no rematch offer open).
    idle_since: Option<Millis>,
    /// Since when an open or playing table has had nobody connected, as stored; abandonment (`table/idle.rs`).
    idleness: idle::Idleness,
    /// Chat, presence and the lobby's visibility (see `table/chat.rs`).
    friends: Friends,
    /// The absence policy and when the server stands in for each seat (`table/absence.rs`).
    absence: absence::Absence,
    /// An open rematch offer once the match is over (`table/rematch.rs`).
    rematch: Option<rematch::Offer>,
    /// The outages since the last action, which the wake-ups do not count (`table/downtime.rs`).
    outages: downtime::Outages,
    /// The lobby's pace and a correspondence match's clocks (`table/clocks.rs`).
    clocks: clocks::Clocks,
    /// Asks the hub to start a lobby's task (see [`TableDeps::load`]).
    load: mpsc::UnboundedSender<String>,
    /// Which seats have an active notification endpoint (`table/notify.rs`), loaded when the task starts.
    notified: Vec<bool>,
}

/// Why a table's task ended.
enum Ended {
    /// The lobby closed, the server shuts down, or every handle is gone.
    Stopped,
    /// It left memory (idle); it loads again on demand.
    Unloaded,
    /// Cluster mode: another node holds its lease now.
    Moved,
}

/// Cluster mode: fires once `moved` turns true (this node lost the table's lease); never without it, or once its
/// sender is gone.
async fn lease_lost(mut moved: Option<watch::Receiver<bool>>) {
    match &mut moved {
        Some(moved) => {
            if moved.wait_for(|m| *m).await.is_err() {
                std::future::pending::<()>().await;
            }
        }
        None => std::future::pending().await,
    }
}

/// How long the table waits before retrying an action of its own that the database failed to store.
const RETRY_AFTER_MS: Millis = 1_000;

/// The answer to a code no lobby has, and to a code-only request for a finished private lobby: the same words,
/// so that the answer does not say whether the lobby exists.
pub fn unknown_lobby(code: &str) -> ErrorBody {
    err(ErrorCode::UnknownLobby, format!("no lobby has the code `{code}`"))
}

fn err(code: ErrorCode, message: impl Into<String>) -> ErrorBody {
    ErrorBody::new(code, message)
}

/// The answer to a request that needed the database while it could not be reached.
pub(crate) fn store_unavailable() -> ErrorBody {
    err(
        ErrorCode::StoreUnavailable,
        "the database cannot be reached; nothing changed. Send the same request again shortly",
    )
}

/// Cluster mode: the database refused a write because another node holds this table's lease now (the table
/// stops and its connections are told `closing` with `moved`); nothing changed.
fn moved() -> ErrorBody {
    err(
        ErrorCode::Moved,
        "this table moved to another server node; nothing changed. Reconnect and resume with your seat token",
    )
}

/// A write the table could not make: `store_unavailable` (retryable) when the database cannot be reached,
/// `internal` otherwise. Either way nothing changed.
fn internal(e: StoreError) -> ErrorBody {
    if e.is_fenced() {
        return moved();
    }
    if e.is_unavailable() {
        warn!(error = %e, "the database cannot be reached");
        return store_unavailable();
    }
    error!(error = %e, "internal error");
    err(
        ErrorCode::Internal,
        "the server could not complete this request; nothing changed",
    )
}

impl Table {
    /// The table of `lobby` with these seats, phase and match (a new lobby's, or one recovered from the
    /// database): nobody watching yet, and everything the table keeps beyond the database at its start. The one
    /// place a `Table` is built.
    fn assemble(
        lobby: &LobbyRecord,
        rules_version: u32,
        phase: Phase,
        seats: Vec<Occupant>,
        running: Option<Running>,
        deps: TableDeps,
    ) -> Table {
        let TableDeps {
            store,
            commits,
            clock,
            metrics,
            settings,
            load,
        } = deps;
        Table {
            code: lobby.code.as_str().into(),
            game_id: lobby.game.as_str().into(),
            options: lobby.options.clone(),
            rules_version,
            host: lobby.host_seat,
            turn_timer_ms: lobby.turn_timer_ms,
            phase,
            seats,
            spectators: Vec::new(),
            running,
            store,
            commits,
            clock,
            metrics,
            rng: Rng::from_seed(secrets::bot_seed_for(settings.match_seed)),
            settings,
            text_sizes: Default::default(),
            not_before: 0,
            idle_since: None,
            idleness: Default::default(),
            friends: Friends::new(),
            absence: absence::Absence::new(lobby.seat_count as usize),
            rematch: None,
            outages: Default::default(),
            clocks: clocks::Clocks::new(lobby.pace),
            load,
            notified: Vec::new(),
        }
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    pub fn code(&self) -> &str {
        &self.code
    }

    /// The table's task: serves commands and fires deadlines until the table closes, every handle is gone, or
    /// the server shuts down. `on_close` runs when the lobby closes for good.
    pub async fn run(
        self,
        commands: mpsc::Receiver<Command>,
        shutdown: watch::Receiver<bool>,
        on_close: impl FnOnce(),
    ) {
        self.run_leased(commands, shutdown, None, on_close).await;
    }

    /// [`Table::run`] in cluster mode: the table also stops when `moved` turns true (this node lost the table's
    /// lease, `cluster/`), and then tells every connection `closing` with `moved`, so they reconnect.
    pub async fn run_leased(
        mut self,
        mut commands: mpsc::Receiver<Command>,
        shutdown: watch::Receiver<bool>,
        moved: impl Into<Option<watch::Receiver<bool>>>,
        on_close: impl FnOnce(),
    ) {
        let lease_lost = lease_lost(moved.into());
        tokio::pin!(lease_lost);
        let span = info_span!("table", code = %self.code, match_id = tracing::field::Empty);
        if let Some(r) = &self.running {
            span.record("match_id", &*r.match_id);
        }
        let metrics = self.metrics.clone();
        metrics.phase_change(None, Some(self.phase));
        // One wait for shutdown for the table's whole life (a new `changed()` per command registered and removed a
        // waiter each time); it also ends if the sender is gone.
        let mut stop = shutdown.clone();
        let stopping = async move {
            let _ = stop.wait_for(|s| *s).await;
        };
        tokio::pin!(stopping);
        let end = async {
            Box::pin(self.load_notified()).await;
            if self.running.is_some() {
                info!(phase = ?self.phase, version = self.version(), "table recovered");
            }
            // A new lobby's host hears of it at once (a recovered table has nobody connected yet).
            self.push_lobby_to_all();
            let mut timer: Option<(Millis, Sleep)> = None;
            loop {
                if *shutdown.borrow() {
                    break Ended::Stopped;
                }
                self.note_idleness();
                self.note_unwatched();
                if self.idleness_to_store() {
                    Box::pin(self.sync_idleness()).await;
                }
                let now = self.clock.now();
                // Before any command: a seat coming back after the abandonment time finds the match abandoned.
                if self.abandon_at().is_some_and(|at| now >= at) {
                    Box::pin(self.abandon(now)).await;
                    continue;
                }
                // The timer is kept unless the table must wake earlier than it fires: a wake-up before anything
                // is due does nothing (every wake-up checks what is due), and then the timer is set again. A new
                // timer per command was a boxed future and a timer registered and removed each time (under load
                // the next wake-up moves with every action: the players' idle times).
                if let Some(at) = self.wake_at(now)
                    && timer.as_ref().is_none_or(|(set, _)| at < *set)
                {
                    timer = Some((at, self.clock.sleep_until(at)));
                }
                let sleep = async {
                    match &mut timer {
                        Some((_, sleep)) => sleep.await,
                        None => std::future::pending().await,
                    }
                };
                // The work of a command or a wake-up is boxed: its futures are large and alive only while it runs,
                // and inline they made every waiting table's task ~7.6 KB (tables wait far more than they work).
                tokio::select! {
                    command = commands.recv() => match command {
                        Some(command) => Box::pin(self.handle(command)).await,
                        None => break Ended::Stopped,
                    },
                    () = sleep => {
                        // It has fired: a finished future is not polled again.
                        timer = None;
                        if Box::pin(self.on_wake(&commands)).await {
                            break Ended::Unloaded;
                        }
                    }
                    () = &mut stopping => break Ended::Stopped,
                    () = &mut lease_lost => break Ended::Moved,
                }
                Box::pin(self.sync_absence()).await;
                if self.phase == Phase::Closed {
                    break Ended::Stopped;
                }
            }
        }
        .instrument(span)
        .await;
        if let Ended::Moved = end {
            for (_, conn) in self.connections() {
                conn.close(
                    ErrorCode::Moved,
                    "this table moved to another server node; reconnect and resume with your seat token",
                );
            }
        }
        metrics.phase_change(Some(self.phase), None);
        let unloaded = matches!(end, Ended::Unloaded);
        if self.phase == Phase::Closed || unloaded {
            if unloaded {
                info!(code = %self.code, phase = ?self.phase, "idle table unloaded; it loads again on demand");
            }
            on_close();
        }
    }

    /// When the table must wake next (engine deadline, bots, turn timer, rematch offer, leaving memory,
    /// abandonment), if ever.
    fn wake_at(&self, now: Millis) -> Option<Millis> {
        [
            self.next_wake(now),
            self.rematch_wake(),
            self.unload_at(),
            self.abandon_at(),
            self.idle_unload_at(now),
            self.outage_wake(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// A wake-up: what is due is done. Returns whether the table leaves memory now: a finished table nobody has
    /// looked at for a while, unless a request is already on its way to it (`commands`); and an idle open or
    /// playing one (`table/idle.rs`), once the database records it.
    async fn on_wake(&mut self, commands: &mpsc::Receiver<Command>) -> bool {
        self.on_outage_timer().await;
        self.on_timer().await;
        self.on_rematch_timer().await;
        let now = self.clock.now();
        if self.unload_at().is_some_and(|at| now >= at) && commands.is_empty() {
            return true;
        }
        if self.idle_unload_at(now).is_some_and(|at| now >= at)
            && commands.is_empty()
            && self.store_unloaded(now).await
            && commands.is_empty()
        {
            self.metrics
                .tables_unloaded
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            return true;
        }
        false
    }

    /// Starts or stops counting the time a finished table has had nobody connected.
    fn note_idleness(&mut self) {
        // An open rematch offer waits for its deadline; one that started is kept in the database.
        let idle = self.phase == Phase::Finished
            && self.rematch_wake().is_none()
            && self.connections().next().is_none();
        if !idle {
            self.idle_since = None;
        } else if self.idle_since.is_none() {
            self.idle_since = Some(self.clock.now());
            // Nobody is left to replay events to, and finished tables wait here (many at once under load): the
            // history was most of a finished table's memory. A later `resume` redraws from the view.
            if let Some(running) = &mut self.running {
                running.history = VecDeque::new();
            }
        }
    }

    /// When this finished, unwatched table leaves memory (`None` while anyone is connected or it is not finished).
    fn unload_at(&self) -> Option<Millis> {
        self.idle_since
            .map(|since| since.saturating_add(self.settings.unload_finished_after_ms))
    }

    fn version(&self) -> u64 {
        self.running.as_ref().map_or(0, |r| r.version)
    }

    fn seat_of(&self, conn_id: u64) -> Option<u8> {
        self.seats
            .iter()
            .position(|o| matches!(o, Occupant::Human { conn: Some(c), .. } if c.id == conn_id))
            .map(|i| i as u8)
    }

    fn is_spectator(&self, conn_id: u64) -> bool {
        self.spectators.iter().any(|w| w.conn.id == conn_id)
    }

    /// Serves one command: the table's one dispatch of its commands, one arm a command. The hot path, an action from
    /// a seat, is awaited inline; every other command's work is boxed in its arm: inline, their futures together
    /// were ~10.9 KB, and `run` moved that whole size into a new box for every command, actions included (memcpy
    /// and a large aligned allocation were ~2 % of the server's CPU under load; docs/performance.md, "Measured
    /// reasons").
    async fn handle(&mut self, command: Command) {
        let origin = Self::command_origin(&command);
        self.before_command(origin);
        match command {
            Command::Act {
                conn_id,
                action,
                version,
                timing,
                reply,
            } => self.handle_act(conn_id, action, version, timing, reply).await,
            Command::Join { name, conn, reply } => {
                let _ = reply.send(Box::pin(self.join(name, conn)).await);
            }
            Command::Spectate {
                conn,
                watch,
                name,
                last_version,
                reply,
            } => Box::pin(self.spectate(conn, watch, name, last_version, reply)).await,
            Command::Resume {
                token,
                last_version,
                conn,
                reply,
            } => {
                let _ = reply.send(Box::pin(self.resume(token.expose(), last_version, conn)).await);
            }
            Command::WatchLink { conn_id, reply } => {
                let _ = reply.send(self.watch_link(conn_id));
            }
            Command::Leave { conn_id, reply } => {
                let _ = reply.send(Box::pin(self.leave(conn_id)).await);
            }
            Command::AddBot { conn_id, seat, reply } => {
                let _ = reply.send(Box::pin(self.add_bot(conn_id, seat)).await);
            }
            Command::Start { conn_id, reply } => {
                let _ = reply.send(Box::pin(self.start(conn_id)).await);
            }
            Command::Admin { op, reply } => {
                let _ = reply.send(Box::pin(self.admin(op)).await);
            }
            Command::Rematch {
                conn_id,
                accept,
                reply,
            } => {
                let _ = reply.send(Box::pin(self.rematch(conn_id, accept)).await);
            }
            Command::Disconnect { conn_id } => self.disconnect(conn_id),
            Command::Chat { conn_id, text, reply } => self.chat(conn_id, text, reply),
            Command::ChatStored {
                message,
                stored,
                reply,
            } => self.chat_stored(message, stored, reply),
            Command::Presence {
                conn_id,
                hidden,
                reply,
            } => {
                let _ = reply.send(self.set_hidden(conn_id, hidden));
            }
            Command::Host { conn_id, op, reply } => {
                let _ = reply.send(Box::pin(self.host_op(conn_id, op)).await);
            }
            Command::Vacation { conn_id, days, reply } => {
                let result = match days {
                    Some(days) => Box::pin(self.vacation(conn_id, days)).await,
                    None => Box::pin(self.end_vacation(conn_id)).await,
                };
                let _ = reply.send(result);
            }
            Command::Notify { conn_id, op, reply } => {
                Box::pin(self.notify_op(conn_id, op, reply)).await;
            }
        }
        self.after_command(origin);
        // After everything the command pushed (a resumed seat's chat history included): its away report.
        self.start_away_reports();
    }

    async fn handle_act(
        &mut self,
        conn_id: u64,
        action: RawJson,
        version: Option<u64>,
        timing: Timing,
        reply: Respond<u64>,
    ) {
        let started = Instant::now();
        let result = self.act(conn_id, action, version, timing).await;
        match &result {
            Ok(_) => {
                self.metrics
                    .actions_accepted
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                self.metrics.action_latency.observe(started.elapsed());
            }
            Err(_) => {
                self.metrics
                    .actions_rejected
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        }
        let _ = reply.send(result);
    }

    /// A connection is gone: its seat is kept for it (away), or it watches no more.
    fn disconnect(&mut self, conn_id: u64) {
        if let Some(seat) = self.seat_of(conn_id) {
            if let Occupant::Human { conn, .. } = &mut self.seats[seat as usize] {
                *conn = None;
            }
            let now = self.clock.now();
            self.mark_away(seat as usize, now);
            self.push_lobby_to_all();
        } else if self.is_spectator(conn_id) {
            self.spectators.retain(|w| w.conn.id != conn_id);
            self.push_lobby_to_all();
        }
    }
}

pub(crate) mod absence;
mod admin;
mod away;
mod chat;
mod clocks;
mod downtime;
mod host;
mod idle;
mod lobby;
mod notify;
mod play;
mod push;
mod recover;
mod rematch;
mod wake;

pub use admin::AdminOp;
use chat::Friends;
pub use chat::FriendsSettings;
pub(crate) use clocks::check_pace;
pub use host::HostOp;
pub use lobby::{MAX_ABSENCE_GRACE_MS, MAX_TURN_TIMER_MS, MIN_TURN_TIMER_MS};
pub(crate) use lobby::{check_absence, check_rules_version, setup_error};
pub use notify::{NewEndpoint, NotifyOp, endpoint_label};
pub use play::{RaceShown, Timing};
pub use push::view_json;
pub use rematch::REMATCH_WINDOW_MS;
