//! One task per table: it owns a lobby and, once the host starts it, the lobby's match. It is the only writer of
//! its lobby and match, in memory and in the database; connections talk to it through a bounded channel of
//! [`Command`]s with `oneshot` replies, and it pushes lobby and state messages back through each connection's
//! own bounded channel.
//!
//! An action is applied to a copy of the game, appended to the action log (the primary key (match, seq) refuses
//! a second writer), and only once the transaction has committed does the copy become the state and does anyone
//! hear of it: first the other viewers' pushes are queued, then the sender's reply is sent.

use std::{collections::VecDeque, sync::Arc, time::Instant};

use protocol::{
    ErrorBody, ErrorCode, LobbyInfo, LobbyPhase, Occupant as WireOccupant, Push, RawJson, SeatInfo,
    SeatToken, ServerMessage, StateUpdate,
};
use rules::{Actor, AnyGame, Event, Millis, Rng, Seat, Status, Viewer};
use serde_json::Value;
use tokio::sync::{Notify, mpsc, oneshot, watch};
use tracing::{Instrument, debug, error, info, info_span, warn};

use crate::{
    clock::{SharedClock, Sleep},
    commit::{Committer, Pending},
    metrics::Metrics,
    secrets,
    store::{
        LobbyRecord, LogEntry, MatchRecord, Phase, SeatKind, SeatRecord, Store, StoreError, StoredLobby,
        StoredMatch,
    },
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
    /// Chat and presence (see `table/chat.rs`).
    pub friends: FriendsSettings,
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
        reply: Respond<()>,
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
        stored: Result<(), String>,
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

#[derive(Debug)]
struct Running {
    /// Shared by every push and commit of the match (`Arc`: a reference count each, not a copy).
    match_id: Arc<str>,
    game: AnyGame,
    /// Actions applied so far; the version clients see.
    version: u64,
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
    /// reload succeeds.
    unsure: bool,
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
    host: u8,
    turn_timer_ms: Option<u64>,
    phase: Phase,
    seats: Vec<Occupant>,
    spectators: Vec<Conn>,
    running: Option<Running>,
    store: Store,
    commits: Committer,
    clock: SharedClock,
    metrics: Arc<Metrics>,
    settings: TableSettings,
    /// The server's own randomness for bots and the turn timer (not the match's).
    rng: Rng,
    /// The table acts by itself no earlier than this (set after a database failure).
    not_before: Millis,
    /// Since when this finished table has had nobody connected (and no rematch offer open).
    idle_since: Option<Millis>,
    /// Chat, presence and the lobby's visibility (see `table/chat.rs`).
    friends: Friends,
    /// The absence policy and when the server stands in for each seat (`table/absence.rs`).
    absence: absence::Absence,
    /// An open rematch offer once the match is over (`table/rematch.rs`).
    rematch: Option<rematch::Offer>,
    /// Asks the hub to start a lobby's task (see [`TableDeps::load`]).
    load: mpsc::UnboundedSender<String>,
}

/// How long the table waits before retrying an action of its own that the database failed to store.
const RETRY_AFTER_MS: Millis = 1_000;

fn err(code: ErrorCode, message: impl Into<String>) -> ErrorBody {
    ErrorBody::new(code, message)
}

fn store_unavailable() -> ErrorBody {
    err(
        ErrorCode::StoreUnavailable,
        "the database cannot be reached; nothing changed. Send the same request again shortly",
    )
}

/// A write the table could not make: `store_unavailable` (retryable) when the database cannot be reached,
/// `internal` otherwise. Either way nothing changed.
fn internal(e: StoreError) -> ErrorBody {
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

/// `viewer`'s view as the text a state push carries, written once by serde from the engine's view.
pub fn view_json(game: &AnyGame, viewer: Viewer) -> RawJson {
    RawJson::from(game.view_json(viewer))
}

/// Checks a display name: 1 to 32 characters after trimming, no control characters.
pub fn check_name(name: &str) -> Result<String, ErrorBody> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > 32 || name.chars().any(char::is_control) {
        return Err(err(
            ErrorCode::BadMessage,
            "a name has 1 to 32 characters and no control characters",
        ));
    }
    Ok(name.to_string())
}

impl Table {
    /// A new open lobby with its host at seat 0 (already stored by the caller).
    pub fn new_lobby(
        lobby: &LobbyRecord,
        host_name: String,
        host_token_hash: String,
        host_conn: Conn,
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
        let mut seats: Vec<Occupant> = (0..lobby.seat_count).map(|_| Occupant::Empty).collect();
        seats[lobby.host_seat as usize] = Occupant::Human {
            name: host_name,
            token_hash: host_token_hash,
            conn: Some(host_conn),
        };
        let mut table = Table {
            code: lobby.code.as_str().into(),
            game_id: lobby.game.as_str().into(),
            options: lobby.options.clone(),
            host: lobby.host_seat,
            turn_timer_ms: lobby.turn_timer_ms,
            phase: Phase::Open,
            seats,
            spectators: Vec::new(),
            running: None,
            store,
            commits,
            clock,
            metrics,
            settings,
            rng: Rng::from_seed(secrets::bot_seed()),
            not_before: 0,
            idle_since: None,
            friends: Friends::new(),
            absence: absence::Absence::new(lobby.seat_count as usize),
            rematch: None,
            load,
        };
        let now = table.clock.now();
        table.mark_active(lobby.host_seat, now);
        table
    }

    /// Rebuilds a table from the database: the lobby, its seats, and its match from the latest snapshot plus
    /// the actions logged after it.
    pub fn recover(stored: StoredLobby, deps: TableDeps) -> Result<Table, RecoverError> {
        let TableDeps {
            store,
            commits,
            clock,
            metrics,
            settings,
            load,
        } = deps;
        let lobby = stored.lobby;
        let mut seats: Vec<Occupant> = (0..lobby.seat_count).map(|_| Occupant::Empty).collect();
        for seat in stored.seats {
            let Some(slot) = seats.get_mut(seat.seat as usize) else {
                continue;
            };
            *slot = match seat.kind {
                SeatKind::Bot => Occupant::Bot { name: seat.name },
                SeatKind::Human => Occupant::Human {
                    name: seat.name,
                    token_hash: seat.token_hash.unwrap_or_default(),
                    conn: None,
                },
            };
        }
        let running = stored.game.map(|m| recover_match(&m)).transpose()?;
        let phase = match (&running, lobby.phase) {
            (Some(r), _) if matches!(r.game.status(), Status::Over) => Phase::Finished,
            // A match an administrator aborted: finished without being over.
            (Some(_), Phase::Finished) => Phase::Finished,
            (Some(_), _) => Phase::Playing,
            (None, phase) => phase,
        };
        Ok(Table {
            code: lobby.code.into(),
            game_id: lobby.game.into(),
            options: lobby.options,
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
            settings,
            rng: Rng::from_seed(secrets::bot_seed()),
            not_before: 0,
            idle_since: None,
            friends: Friends::new(),
            absence: absence::Absence::new(lobby.seat_count as usize),
            rematch: None,
            load,
        })
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
        mut self,
        mut commands: mpsc::Receiver<Command>,
        shutdown: watch::Receiver<bool>,
        on_close: impl FnOnce(),
    ) {
        let span = info_span!("table", code = %self.code, match_id = tracing::field::Empty);
        if let Some(r) = &self.running {
            span.record("match_id", &*r.match_id);
        }
        let metrics = self.metrics.clone();
        metrics.phase_change(None, Some(self.phase));
        let mut unloaded = false;
        // One wait for shutdown for the table's whole life (a new `changed()` per command registered and removed a
        // waiter each time); it also ends if the sender is gone.
        let mut stop = shutdown.clone();
        let stopping = async move {
            let _ = stop.wait_for(|s| *s).await;
        };
        tokio::pin!(stopping);
        async {
            if self.running.is_some() {
                info!(phase = ?self.phase, version = self.version(), "table recovered");
            }
            // A new lobby's host hears of it at once (a recovered table has nobody connected yet).
            self.push_lobby_to_all();
            let mut timer: Option<(Millis, Sleep)> = None;
            loop {
                if *shutdown.borrow() {
                    break;
                }
                self.note_idleness();
                let now = self.clock.now();
                let wake = [self.next_wake(now), self.rematch_wake(), self.unload_at()]
                    .into_iter()
                    .flatten()
                    .min();
                // The timer is kept unless the table must wake earlier than it fires: a wake-up before anything
                // is due does nothing (every wake-up checks what is due), and then the timer is set again. A new
                // timer per command was a boxed future and a timer registered and removed each time (under load
                // the next wake-up moves with every action: the players' idle times).
                if let Some(at) = wake
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
                        None => break,
                    },
                    () = sleep => {
                        // It has fired: a finished future is not polled again.
                        timer = None;
                        Box::pin(async {
                            self.on_timer().await;
                            self.on_rematch_timer().await;
                        })
                        .await;
                        // A finished table nobody has looked at for a while leaves memory, unless a request is
                        // already on its way to it.
                        if self.unload_at().is_some_and(|at| self.clock.now() >= at) && commands.is_empty() {
                            unloaded = true;
                            break;
                        }
                    }
                    () = &mut stopping => break,
                }
                Box::pin(self.sync_absence()).await;
                if self.phase == Phase::Closed {
                    break;
                }
            }
        }
        .instrument(span)
        .await;
        metrics.phase_change(Some(self.phase), None);
        if self.phase == Phase::Closed || unloaded {
            if unloaded {
                info!(code = %self.code, "finished table unloaded; it loads again on demand");
            }
            on_close();
        }
    }

    /// Starts or stops counting the time a finished table has had nobody connected.
    fn note_idleness(&mut self) {
        let idle =
            self.phase == Phase::Finished && self.rematch.is_none() && self.connections().next().is_none();
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
        self.spectators.iter().any(|c| c.id == conn_id)
    }

    async fn handle(&mut self, command: Command) {
        let origin = Self::command_origin(&command);
        self.before_command(origin);
        match command {
            // The hot path, inline. Every other command is boxed once more: together their futures were ~10.9 KB,
            // and `run` moved that whole size into a new box for every command, actions included (memcpy and a
            // large aligned allocation were ~2 % of the server's CPU under load; docs/performance.md, section 10).
            Command::Act {
                conn_id,
                action,
                version,
                reply,
            } => self.handle_act(conn_id, action, version, reply).await,
            command if Self::is_friends_command(&command) => Box::pin(self.handle_friends(command)).await,
            command => Box::pin(self.handle_game(command)).await,
        }
        self.after_command(origin);
    }

    async fn handle_act(&mut self, conn_id: u64, action: RawJson, version: Option<u64>, reply: Respond<u64>) {
        let started = Instant::now();
        let result = self.act(conn_id, action, version).await;
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

    async fn handle_game(&mut self, command: Command) {
        match command {
            Command::Join { name, conn, reply } => {
                let result = self.join(name, conn).await;
                let _ = reply.send(result);
            }
            Command::Spectate { conn, reply } => {
                self.spectators.push(conn.clone());
                let _ = reply.send(Ok(()));
                self.push_lobby_to_all();
                self.push_state_to(&conn, Viewer::Spectator, None);
            }
            Command::Resume {
                token,
                last_version,
                conn,
                reply,
            } => {
                let result = self.resume(token.expose(), last_version, conn);
                let _ = reply.send(result);
            }
            Command::Leave { conn_id, reply } => {
                let result = self.leave(conn_id).await;
                let _ = reply.send(result);
            }
            Command::AddBot { conn_id, seat, reply } => {
                let result = self.add_bot(conn_id, seat).await;
                let _ = reply.send(result);
            }
            Command::Start { conn_id, reply } => {
                let result = self.start(conn_id).await;
                let _ = reply.send(result);
            }
            Command::Act {
                conn_id,
                action,
                version,
                reply,
            } => Box::pin(self.handle_act(conn_id, action, version, reply)).await,
            Command::Admin { op, reply } => {
                let result = self.admin(op).await;
                let _ = reply.send(result);
            }
            Command::Rematch {
                conn_id,
                accept,
                reply,
            } => {
                let result = self.rematch(conn_id, accept).await;
                let _ = reply.send(result);
            }
            Command::Disconnect { conn_id } => {
                if let Some(seat) = self.seat_of(conn_id) {
                    if let Occupant::Human { conn, .. } = &mut self.seats[seat as usize] {
                        *conn = None;
                    }
                    let now = self.clock.now();
                    self.mark_away(seat as usize, now);
                    self.push_lobby_to_all();
                } else if self.is_spectator(conn_id) {
                    self.spectators.retain(|c| c.id != conn_id);
                    self.push_lobby_to_all();
                }
            }
            Command::Chat { .. }
            | Command::ChatStored { .. }
            | Command::Presence { .. }
            | Command::Host { .. } => {
                unreachable!("handled in table/chat.rs")
            }
        }
    }

    async fn join(&mut self, name: String, conn: Conn) -> Result<Seated, ErrorBody> {
        let name = check_name(&name)?;
        if self.phase != Phase::Open {
            return Err(err(
                ErrorCode::AlreadyStarted,
                "this match has already started; spectate instead",
            ));
        }
        let Some(seat) = self.seats.iter().position(|o| matches!(o, Occupant::Empty)) else {
            return Err(err(ErrorCode::LobbyFull, "every seat of this lobby is taken"));
        };
        let token = secrets::seat_token();
        let record = SeatRecord {
            seat: seat as u8,
            kind: SeatKind::Human,
            name: name.clone(),
            token_hash: Some(secrets::token_hash(&token)),
        };
        self.commits
            .insert_seat(&self.code, &record)
            .await
            .map_err(internal)?;
        self.seats[seat] = Occupant::Human {
            name,
            token_hash: record.token_hash.expect("set above"),
            conn: Some(conn),
        };
        info!(seat, "seat taken");
        self.push_lobby_to_all();
        Ok(Seated {
            seat: Seat(seat as u8),
            seat_token: SeatToken::new(token),
            host: false,
        })
    }

    fn resume(
        &mut self,
        token: &str,
        last_version: Option<u64>,
        conn: Conn,
    ) -> Result<(Seat, bool), ErrorBody> {
        // Compare against every seat's hash, each in constant time, so the time taken says nothing about which
        // seat (if any) matched.
        let mut found = None;
        for (i, occupant) in self.seats.iter().enumerate() {
            if let Occupant::Human { token_hash, .. } = occupant
                && secrets::token_matches(token, token_hash)
            {
                found = Some(i);
            }
        }
        let Some(seat) = found else {
            return Err(err(
                ErrorCode::Unauthorized,
                "this seat token does not belong to this lobby",
            ));
        };
        if let Occupant::Human { conn: slot, .. } = &mut self.seats[seat]
            && let Some(older) = slot.replace(conn.clone())
        {
            info!(seat, "seat taken over by a newer connection");
            older.close(
                ErrorCode::SessionReplaced,
                "this seat was resumed by a newer connection",
            );
        }
        // The player is back: the server stops playing for them before anyone hears of it.
        self.mark_present(seat);
        let seat = Seat(seat as u8);
        self.push_lobby_to_all();
        self.push_state_to(&conn, Viewer::Seat(seat), last_version);
        self.push_rematch_to(&conn);
        Ok((seat, seat.0 == self.host))
    }

    async fn leave(&mut self, conn_id: u64) -> Result<(), ErrorBody> {
        if self.is_spectator(conn_id) {
            self.spectators.retain(|c| c.id != conn_id);
            self.push_lobby_to_all();
            return Ok(());
        }
        let Some(seat) = self.seat_of(conn_id) else {
            return Err(err(ErrorCode::NotInLobby, "you are not in this lobby"));
        };
        if self.phase != Phase::Open {
            // The seat stays yours for the rest of the match: you can resume it with your token.
            if let Occupant::Human { conn, .. } = &mut self.seats[seat as usize] {
                *conn = None;
            }
            let now = self.clock.now();
            self.mark_away(seat as usize, now);
            self.push_lobby_to_all();
            return Ok(());
        }
        let new_host = if seat == self.host {
            self.seats
                .iter()
                .enumerate()
                .find(|(i, o)| *i != seat as usize && matches!(o, Occupant::Human { .. }))
                .map(|(i, _)| i as u8)
        } else {
            Some(self.host)
        };
        self.store
            .free_seat(&self.code, seat, new_host)
            .await
            .map_err(internal)?;
        self.seats[seat as usize] = Occupant::Empty;
        match new_host {
            Some(host) => {
                self.host = host;
                self.push_lobby_to_all();
            }
            None => {
                info!("everyone left; lobby closed");
                self.metrics.phase_change(Some(self.phase), Some(Phase::Closed));
                self.phase = Phase::Closed;
                for s in self.spectators.drain(..) {
                    s.close(ErrorCode::UnknownLobby, "everyone left; the lobby is closed");
                }
            }
        }
        Ok(())
    }

    fn require_host(&self, conn_id: u64) -> Result<(), ErrorBody> {
        match self.seat_of(conn_id) {
            Some(seat) if seat == self.host => Ok(()),
            Some(_) => Err(err(ErrorCode::NotHost, "only the host may do this")),
            None if self.is_spectator(conn_id) => Err(err(ErrorCode::NotHost, "only the host may do this")),
            None => Err(err(ErrorCode::NotInLobby, "you are not in this lobby")),
        }
    }

    async fn add_bot(&mut self, conn_id: u64, seat: Option<u8>) -> Result<(), ErrorBody> {
        // After the start everyone hears the same answer, host or not.
        if self.phase != Phase::Open {
            return Err(err(
                ErrorCode::AlreadyStarted,
                "bots can only sit down before the start",
            ));
        }
        self.require_host(conn_id)?;
        let seat = match seat {
            Some(s) if (s as usize) >= self.seats.len() => {
                return Err(err(ErrorCode::BadMessage, format!("this lobby has no seat {s}")));
            }
            Some(s) if !matches!(self.seats[s as usize], Occupant::Empty) => {
                return Err(err(ErrorCode::LobbyFull, format!("seat {s} is taken")));
            }
            Some(s) => s as usize,
            None => self
                .seats
                .iter()
                .position(|o| matches!(o, Occupant::Empty))
                .ok_or_else(|| err(ErrorCode::LobbyFull, "every seat of this lobby is taken"))?,
        };
        let name = format!("Bot {}", seat + 1);
        let record = SeatRecord {
            seat: seat as u8,
            kind: SeatKind::Bot,
            name: name.clone(),
            token_hash: None,
        };
        self.commits
            .insert_seat(&self.code, &record)
            .await
            .map_err(internal)?;
        self.seats[seat] = Occupant::Bot { name };
        self.push_lobby_to_all();
        Ok(())
    }

    /// A new match of this table's game, options and seats with a fresh seed, and its record (not yet stored).
    pub(crate) fn new_match(&self) -> Result<(AnyGame, MatchRecord), ErrorBody> {
        let players = self.seats.len() as u8;
        let seed = secrets::seed();
        let game = AnyGame::new(&self.game_id, &self.options, players, seed)
            .map_err(|e| err(ErrorCode::BadOptions, e.to_string()))?;
        let record = MatchRecord {
            id: secrets::match_id(),
            game: self.game_id.to_string(),
            options: self.options.clone(),
            players,
            seed,
            rules_version: game.info().rules_version,
            started_at: self.clock.now(),
            finished: false,
        };
        Ok((game, record))
    }

    async fn start(&mut self, conn_id: u64) -> Result<(), ErrorBody> {
        let rematch_open = self.phase == Phase::Finished && self.rematch.is_some();
        // After the start everyone hears the same answer, host or not.
        if self.phase != Phase::Open && !rematch_open {
            return Err(err(ErrorCode::AlreadyStarted, "the match has already started"));
        }
        self.require_host(conn_id)?;
        if rematch_open {
            return self.start_rematch_now(conn_id).await;
        }
        if self.seats.iter().any(|o| matches!(o, Occupant::Empty)) {
            return Err(err(
                ErrorCode::SeatsEmpty,
                "every seat must be taken (add bots to empty seats)",
            ));
        }
        let (game, record) = self.new_match()?;
        let now = record.started_at;
        self.commits
            .start_match(&self.code, &record)
            .await
            .map_err(internal)?;
        tracing::Span::current().record("match_id", record.id.as_str());
        info!(match_id = %record.id, players = record.players, "match started");
        self.running = Some(Running {
            match_id: record.id.into(),
            game,
            version: 0,
            last_change: now,
            history: VecDeque::new(),
            stalled_at: None,
            unsure: false,
        });
        self.metrics.phase_change(Some(self.phase), Some(Phase::Playing));
        self.phase = Phase::Playing;
        // Players who went away before the start count as away from now.
        for seat in 0..self.seats.len() {
            self.mark_away(seat, now);
        }
        self.push_lobby_to_all();
        self.push_state_to_all(0, &[]);
        Ok(())
    }

    async fn act(&mut self, conn_id: u64, action: RawJson, version: Option<u64>) -> Result<u64, ErrorBody> {
        let Some(seat) = self.seat_of(conn_id) else {
            return Err(if self.is_spectator(conn_id) {
                err(ErrorCode::Unauthorized, "spectators cannot act")
            } else {
                err(ErrorCode::NotInLobby, "you are not in this lobby")
            });
        };
        // After a lost database connection, learn what the database holds before checking the version: a retry
        // of an action whose commit went through must be refused as stale, not applied twice.
        if self.running.as_ref().is_some_and(|r| r.unsure) && !Box::pin(self.reload()).await {
            return Err(store_unavailable());
        }
        let Some(running) = &self.running else {
            return Err(err(ErrorCode::NotStarted, "the match has not started"));
        };
        if let Some(v) = version
            && v != running.version
        {
            return Err(err(
                ErrorCode::StaleVersion,
                format!("the state is at version {}, not {v}", running.version),
            ));
        }
        let result = self.apply(Actor::Seat(Seat(seat)), action).await;
        if result.is_ok() {
            // A player who acts is present: the server stops playing for them.
            self.mark_present(seat as usize);
        }
        result
    }

    /// Applies an action of `actor` at the clock's current time: check on a copy, commit, then publish.
    async fn apply(&mut self, actor: Actor, action: RawJson) -> Result<u64, ErrorBody> {
        let now = self.clock.now();
        self.apply_at(actor, action, now).await
    }

    /// [`Table::apply`] at a given time (an admin firing a deadline early plays it at the deadline's time).
    async fn apply_at(&mut self, actor: Actor, action: RawJson, now: Millis) -> Result<u64, ErrorBody> {
        if self.running.as_ref().is_some_and(|r| r.unsure) {
            let before = self.version();
            // Boxed, like the reload below: rare, and its database reads would make every action's future large.
            if !Box::pin(self.reload()).await {
                return Err(store_unavailable());
            }
            if self.version() != before {
                // The action was chosen on the state before the lost commit: choose again.
                return Err(err(
                    ErrorCode::StaleVersion,
                    format!("the state is at version {}", self.version()),
                ));
            }
        }
        if self.phase == Phase::Finished {
            return Err(err(ErrorCode::GameOver, "the match is over"));
        }
        let Some(running) = &mut self.running else {
            return Err(err(ErrorCode::NotStarted, "the match has not started"));
        };
        if matches!(running.game.status(), Status::Over) {
            return Err(err(ErrorCode::GameOver, "the match is over"));
        }
        let mut next = running.game.clone();
        let applied = next
            .apply_json(actor, action.get(), now)
            .map_err(|r| ErrorBody::new(r.kind.into(), r.message))?;
        let events: Vec<Event<RawJson>> = applied
            .events
            .into_iter()
            .map(|e| Event {
                audience: e.audience,
                body: RawJson::written(e.body),
            })
            .collect();
        let seq = running.version + 1;
        let over = matches!(next.status(), Status::Over);
        let outcome = if over { next.outcome() } else { None };
        let snapshot = (self.settings.snapshot_every > 0 && seq % self.settings.snapshot_every == 0)
            .then(|| next.full_state_text());
        // The log keeps the action as the engine read it (its canonical text), not as the client wrote it.
        let entry = LogEntry {
            seq,
            actor,
            action: RawJson::written(applied.action),
            at: now,
        };
        let write_started = Instant::now();
        let written = self
            .commits
            .append(Pending {
                match_id: running.match_id.clone(),
                lobby_code: self.code.clone(),
                entry,
                snapshot,
                outcome: outcome.clone(),
            })
            .await;
        self.metrics.db_write_latency.observe(write_started.elapsed());
        if let Err(e) = written {
            // Nothing was published. Whatever the database holds now is the truth: reload it. If the database
            // cannot be reached, the reload is retried before the next action (see `Running::unsure`).
            error!(error = %e, seq, "appending an action failed; reloading the match from the database");
            let unavailable = e.is_unavailable();
            if !Box::pin(self.reload()).await || unavailable {
                return Err(store_unavailable());
            }
            return Err(err(
                ErrorCode::Internal,
                "the action could not be stored; nothing changed",
            ));
        }
        debug!(seq, ?actor, "action committed");
        running.game = next;
        running.version = seq;
        running.last_change = now;
        running.history.push_back((seq, events.clone()));
        while running.history.len() > self.settings.history {
            running.history.pop_front();
        }
        if over {
            info!(version = seq, "match finished");
            self.metrics.phase_change(Some(self.phase), Some(Phase::Finished));
            self.phase = Phase::Finished;
            self.push_lobby_to_all();
        }
        self.push_state_to_all(seq - 1, &events);
        Ok(seq)
    }

    /// After a failed write: rebuild the match from what the database holds. Returns false, and marks the
    /// match unsure, when the database could not be read: the state in memory is kept (nothing unacknowledged
    /// was published) and no action is applied until a later reload succeeds.
    async fn reload(&mut self) -> bool {
        let Some(running) = &mut self.running else {
            return true;
        };
        let match_id = running.match_id.clone();
        match self.store.load_lobby(&self.code).await {
            Ok(Some(StoredLobby {
                game: Some(stored), ..
            })) => match recover_match(&stored) {
                Ok(mut recovered) => {
                    let changed = recovered.version != running.version;
                    if !changed {
                        // Same state: keep the recent events for reconnecting clients.
                        recovered.history = std::mem::take(&mut running.history);
                    }
                    self.running = Some(recovered);
                    if changed {
                        info!(
                            version = self.version(),
                            "reloaded a newer state from the database"
                        );
                        let v = self.version();
                        let over = self
                            .running
                            .as_ref()
                            .is_some_and(|r| matches!(r.game.status(), Status::Over));
                        if over && self.phase == Phase::Playing {
                            // The lost commit ended the match.
                            self.metrics.phase_change(Some(self.phase), Some(Phase::Finished));
                            self.phase = Phase::Finished;
                            self.push_lobby_to_all();
                        }
                        self.push_state_to_all(v, &[]);
                    }
                    true
                }
                Err(e) => {
                    error!(error = %e, %match_id, "reload failed; keeping the state in memory");
                    running.unsure = false;
                    true
                }
            },
            Ok(_) => {
                error!(%match_id, "reload found no match; keeping the state in memory");
                running.unsure = false;
                true
            }
            Err(e) => {
                warn!(error = %e, %match_id, "reload failed; will retry before the next action");
                running.unsure = true;
                false
            }
        }
    }

    /// Seats that must decide now and may be timed: the one whose turn it is, or those still expected in a
    /// simultaneous step. A race is closed by the engine's own deadline instead.
    pub(crate) fn seats_deciding(game: &AnyGame) -> Vec<Seat> {
        match game.status() {
            Status::Turn { seat } => vec![seat],
            Status::Simultaneous { seats, .. } => seats,
            Status::Race { .. } | Status::Over => vec![],
        }
    }

    fn bot_seats_to_act(&self, running: &Running) -> Vec<Seat> {
        self.seats
            .iter()
            .enumerate()
            .filter(|(_, o)| matches!(o, Occupant::Bot { .. }))
            .map(|(i, _)| Seat(i as u8))
            .filter(|s| running.game.has_legal_actions(*s))
            .collect()
    }

    fn timed_seats(&self, running: &Running) -> Vec<Seat> {
        Self::seats_deciding(&running.game)
            .into_iter()
            .filter(|s| matches!(self.seats.get(s.index()), Some(Occupant::Human { .. })))
            .filter(|s| running.game.has_legal_actions(*s))
            // The server already plays for an absent seat at the bots' pace.
            .filter(|s| !self.stands_in(s.index(), self.clock.now()))
            .collect()
    }

    fn turn_deadline(&self, running: &Running) -> Option<Millis> {
        let timer = self.turn_timer_ms?;
        (!self.timed_seats(running).is_empty()).then(|| running.last_change + timer)
    }

    /// The next time this table must act by itself: the engine's deadline, a bot's move, or the turn timer.
    /// Derived from the state alone, so it is re-armed unchanged after a restart.
    fn next_wake(&self, now: Millis) -> Option<Millis> {
        [self.match_wake(), self.presence_wake(now)]
            .into_iter()
            .flatten()
            .min()
    }

    /// The next time the match needs the table: the engine's deadline, a bot's move, or the turn timer.
    fn match_wake(&self) -> Option<Millis> {
        let running = self.running.as_ref()?;
        if self.phase != Phase::Playing || running.stalled_at == Some(running.version) {
            return None;
        }
        let engine = running.game.deadline().map(|d| d.at);
        let bots = (!self.bot_seats_to_act(running).is_empty())
            .then(|| running.last_change + self.settings.bot_delay_ms);
        let wake = [
            engine,
            bots,
            self.turn_deadline(running),
            self.stand_in_wake(running),
        ]
        .into_iter()
        .flatten()
        .min()?;
        Some(wake.max(self.not_before))
    }

    async fn on_timer(&mut self) {
        let now = self.clock.now();
        self.publish_presence(now);
        let Some(running) = &self.running else { return };
        if let Some(deadline) = running.game.deadline().filter(|d| d.at <= now) {
            if let Err(e) = self.apply(Actor::Clock, RawJson::from(deadline.action)).await {
                error!(code = e.code.as_str(), message = %e.message, "the deadline action failed");
                self.stall(&e, now);
            }
            return;
        }
        let bots = self.bot_seats_to_act(running);
        if !bots.is_empty() && running.last_change + self.settings.bot_delay_ms <= now {
            let seat = bots[0];
            self.play_random(seat, "bot").await;
            return;
        }
        if let Some(seat) = self.stand_ins_due(running, now).first().copied() {
            self.play_stand_in(seat).await;
            return;
        }
        if self.turn_deadline(running).is_some_and(|at| at <= now) {
            for seat in self.timed_seats(running) {
                if self.absence.policy.policy == protocol::AbsenceKind::Skip {
                    self.play_stand_in(seat).await;
                } else {
                    self.play_random(seat, "turn timer").await;
                }
                self.mark_timed_out(seat, now);
            }
        }
    }

    /// After an action the table took by itself failed: if the database failed, try again a second later; if
    /// the engine refused (a bug), stop acting by itself until the state changes (see `Running::stalled_at`).
    fn stall(&mut self, error: &ErrorBody, now: Millis) {
        if matches!(
            error.code,
            ErrorCode::Internal | ErrorCode::StoreUnavailable | ErrorCode::StaleVersion
        ) {
            self.not_before = now + RETRY_AFTER_MS;
        } else if let Some(running) = &mut self.running {
            running.stalled_at = Some(running.version);
        }
    }

    /// Plays a random legal action for `seat` (a bot's move, or the turn timer's for an idle seat).
    async fn play_random(&mut self, seat: Seat, why: &'static str) {
        let Some(running) = &self.running else { return };
        let legal = running.game.legal_actions(seat);
        if legal.is_empty() {
            return;
        }
        let action = RawJson::from(&legal[self.rng.index(legal.len())]);
        debug!(%seat, why, "playing a random legal action");
        if let Err(e) = self.apply(Actor::Seat(seat), action).await {
            error!(%seat, why, code = e.code.as_str(), message = %e.message, "a listed legal action failed");
            let now = self.clock.now();
            self.stall(&e, now);
        }
    }

    fn lobby_info(&self, now: Millis) -> LobbyInfo {
        LobbyInfo {
            code: self.code.to_string(),
            game: self.game_id.to_string(),
            options: self.options.clone(),
            seats: self
                .seats
                .iter()
                .enumerate()
                .map(|(i, o)| SeatInfo {
                    seat: Seat(i as u8),
                    occupant: match o {
                        Occupant::Empty => WireOccupant::Empty,
                        Occupant::Human { name, conn, .. } => WireOccupant::Human {
                            name: name.clone(),
                            connected: conn.is_some(),
                            presence: self.presence_of(i, now),
                            stand_in: self.stands_in(i, now),
                        },
                        Occupant::Bot { name } => WireOccupant::Bot { name: name.clone() },
                    },
                })
                .collect(),
            host: Seat(self.host),
            phase: match self.phase {
                Phase::Open | Phase::Closed => LobbyPhase::Open,
                Phase::Playing => LobbyPhase::Playing,
                Phase::Finished => LobbyPhase::Finished,
            },
            turn_timer_ms: self.turn_timer_ms,
            match_id: self.running.as_ref().map(|r| r.match_id.to_string()),
            spectators: self.spectators.len() as u32,
            listed: self.friends.listed,
            absent: self.absence.policy,
        }
    }

    fn connections(&self) -> impl Iterator<Item = (Viewer, &Conn)> {
        let seated = self.seats.iter().enumerate().filter_map(|(i, o)| match o {
            Occupant::Human { conn: Some(c), .. } => Some((Viewer::Seat(Seat(i as u8)), c)),
            _ => None,
        });
        seated.chain(self.spectators.iter().map(|c| (Viewer::Spectator, c)))
    }

    fn push_lobby_to_all(&mut self) {
        let now = self.clock.now();
        self.friends.shown = self.presences(now);
        self.absence.shown = self.stand_in_flags(now);
        let message = ServerMessage::Push(Push::Lobby(self.lobby_info(now)));
        let failed: Vec<u64> = self
            .connections()
            .filter(|(_, c)| !c.push(message.clone()))
            .map(|(_, c)| c.id)
            .collect();
        self.drop_connections(&failed);
    }

    /// What every viewer's `state` push shares after a change, computed once per push round: the status (which
    /// for some engines costs a pass over every seat's legal actions), the clocks, the outcome and the spectators'
    /// view (one serialisation shared by all spectators).
    fn shared_state(&self) -> Option<SharedState> {
        let running = self.running.as_ref()?;
        let game = &running.game;
        Some(SharedState {
            status: game.status(),
            deadline: game.deadline().map(|d| d.at),
            turn_deadline: self.turn_deadline(running),
            outcome: game.outcome(),
            spectator_view: None,
            same_view: game.same_view_for_everyone(),
        })
    }

    /// `viewer`'s `state` push. The view and legal actions are serialised straight from the engine's typed
    /// values to JSON text, once; the spectators' view is built on first use and then shared through `shared`,
    /// with every seat too when the game shows everybody the same view.
    fn state_for(
        &self,
        viewer: Viewer,
        since: u64,
        events: Vec<RawJson>,
        shared: &mut SharedState,
    ) -> Option<ServerMessage> {
        let running = self.running.as_ref()?;
        let game = &running.game;
        let mut shared_view = || {
            shared
                .spectator_view
                .get_or_insert_with(|| view_json(game, Viewer::Spectator))
                .clone()
        };
        let (seat, view, legal_actions) = match viewer {
            Viewer::Seat(s) => (
                Some(s),
                if shared.same_view {
                    shared_view()
                } else {
                    view_json(game, viewer)
                },
                RawJson::written(game.legal_actions_json(s)),
            ),
            Viewer::Spectator => (None, shared_view(), RawJson::empty_array()),
        };
        Some(ServerMessage::Push(Push::State(Box::new(StateUpdate {
            code: self.code.clone(),
            match_id: running.match_id.clone(),
            game: self.game_id.clone(),
            version: running.version,
            since,
            seat,
            view,
            legal_actions,
            events,
            status: shared.status.clone(),
            deadline: shared.deadline,
            turn_deadline: shared.turn_deadline,
            outcome: shared.outcome.clone(),
        }))))
    }

    /// Pushes the state after a change from `since`, with the events each viewer may see.
    fn push_state_to_all(&mut self, since: u64, events: &[Event<RawJson>]) {
        let Some(mut shared) = self.shared_state() else {
            return;
        };
        let mut failed = Vec::new();
        for (viewer, conn) in self.connections() {
            let visible = events
                .iter()
                .filter(|e| e.audience.includes(viewer))
                .map(|e| e.body.clone())
                .collect();
            if let Some(message) = self.state_for(viewer, since, visible, &mut shared)
                && !conn.push(message)
            {
                failed.push(conn.id);
            }
        }
        self.drop_connections(&failed);
    }

    /// Pushes the current state to one connection that just arrived, with the events it missed since
    /// `last_version` when they are still in memory.
    fn push_state_to(&mut self, conn: &Conn, viewer: Viewer, last_version: Option<u64>) {
        let Some(running) = &self.running else { return };
        let (since, events) = match last_version {
            Some(v)
                if v < running.version
                    && running.history.front().is_some_and(|(first, _)| *first <= v + 1) =>
            {
                let events = running
                    .history
                    .iter()
                    .filter(|(seq, _)| *seq > v)
                    .flat_map(|(_, events)| events.iter())
                    .filter(|e| e.audience.includes(viewer))
                    .map(|e| e.body.clone())
                    .collect();
                (v, events)
            }
            _ => (running.version, Vec::new()),
        };
        let Some(mut shared) = self.shared_state() else {
            return;
        };
        if let Some(message) = self.state_for(viewer, since, events, &mut shared)
            && !conn.push(message)
        {
            self.drop_connections(&[conn.id]);
        }
    }

    fn drop_connections(&mut self, ids: &[u64]) {
        if ids.is_empty() {
            return;
        }
        let now = self.clock.now();
        for seat in 0..self.seats.len() {
            if let Occupant::Human { conn, .. } = &mut self.seats[seat]
                && conn.as_ref().is_some_and(|c| ids.contains(&c.id))
            {
                *conn = None;
                self.mark_away(seat, now);
            }
        }
        self.spectators.retain(|c| !ids.contains(&c.id));
    }
}

/// The parts of a `state` push that are the same for every viewer of one change (see `Table::shared_state`).
struct SharedState {
    status: Status,
    deadline: Option<Millis>,
    turn_deadline: Option<Millis>,
    outcome: Option<protocol::Outcome>,
    /// The spectators' view, built on first use; also every seat's when `same_view` says so.
    spectator_view: Option<RawJson>,
    /// Every viewer sees the same view now (`AnyGame::same_view_for_everyone`): it is built once per change.
    same_view: bool,
}

/// Rebuilds a match: the latest snapshot (or a fresh setup from the seed) and the actions logged after it.
fn recover_match(stored: &StoredMatch) -> Result<Running, RecoverError> {
    let record = &stored.record;
    let fail = |reason: String| RecoverError::Unrecoverable {
        match_id: record.id.clone(),
        reason,
    };
    let engine = AnyGame::catalogue()
        .into_iter()
        .find(|g| g.id == record.game)
        .ok_or_else(|| fail(format!("the game `{}` is no longer served", record.game)))?;
    if engine.rules_version != record.rules_version {
        return Err(fail(format!(
            "stored under rules version {}, but this server runs version {}",
            record.rules_version, engine.rules_version
        )));
    }
    let (mut game, mut version, mut last_change) = match &stored.snapshot {
        Some(s) => (
            AnyGame::from_full_state(&s.state).map_err(|e| fail(format!("snapshot {}: {e}", s.seq)))?,
            s.seq,
            s.at,
        ),
        None => (
            AnyGame::new(&record.game, &record.options, record.players, record.seed)
                .map_err(|e| fail(e.to_string()))?,
            0,
            record.started_at,
        ),
    };
    for entry in &stored.log_after_snapshot {
        if entry.seq != version + 1 {
            return Err(fail(format!("the log jumps from {version} to {}", entry.seq)));
        }
        game.apply_quietly(entry.actor, entry.action.get(), entry.at)
            .map_err(|r| fail(format!("logged action {} was refused: {r}", entry.seq)))?;
        version = entry.seq;
        last_change = entry.at;
    }
    Ok(Running {
        match_id: record.id.as_str().into(),
        game,
        version,
        last_change,
        history: VecDeque::new(),
        stalled_at: None,
        unsure: false,
    })
}

pub(crate) mod absence;
mod admin;
mod rematch;
pub use admin::AdminOp;
mod chat;
use chat::Friends;
pub use chat::{FriendsSettings, check_chat};
mod host;
pub use host::HostOp;
pub use rematch::REMATCH_WINDOW_MS;
