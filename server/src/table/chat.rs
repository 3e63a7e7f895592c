//! Playing with friends, the table's side (issue 13): the lobby chat and the seats' presence.
//!
//! **Chat.** A message is checked ([`crate::text::check_chat`]: plain text, kept in NFC, trimmed, 1 to
//! [`protocol::CHAT_MAX_CHARS`] characters, one line, no bidirectional controls or invisible characters), rate-limited per writer (a token bucket on the injected clock, keyed by seat, or by connection
//! for a spectator), numbered, and handed to the table's chat writer, a task of its own that stores it. Only once
//! it is stored does the writer hand it back (`Command::ChatStored`), and only then is it delivered to everyone in
//! the lobby and the writer answered. The table never waits for the database on a chat message, so chat cannot
//! slow the match down; a full writer queue refuses the message with `overloaded`. The last [`CHAT_HISTORY`]
//! messages are kept in memory (loaded from the database after a restart) and pushed as `chat_history` to a
//! client that joins, spectates or resumes. A rematch's lobby starts with the last messages of the lobby it follows
//! (copied when it is created, `Store::create_rematch`), so the conversation goes on at the new table.
//!
//! **Presence.** A seat is `away` without a connection, `idle` when its connection has sent nothing for
//! `idle_after_ms` (on the injected clock) or said its page is hidden, and `connected` otherwise. Every request
//! a seat's connection makes counts as activity. The table wakes when a seat turns idle, and pushes the lobby
//! whenever a seat's presence differs from what it last pushed.

use std::collections::{HashMap, VecDeque};

use protocol::{CHAT_HISTORY, ChatChannel, ChatMessage, ErrorBody, ErrorCode, Presence, Push, ServerMessage};
use rules::{Millis, Seat};
use tokio::sync::mpsc;
use tracing::{error, warn};

use super::{Command, Occupant, Respond, Table, err, store_unavailable};
use crate::{
    store::{Store, StoreError},
    text::check_chat,
};

/// Chat and presence settings every table shares.
#[derive(Clone, Debug)]
pub struct FriendsSettings {
    /// Chat messages a writer may send per second, sustained.
    pub chat_rate_per_sec: f64,
    /// Chat messages a writer may send in one burst.
    pub chat_burst: f64,
    /// A connected seat that sends nothing for this long shows as `idle`.
    pub idle_after_ms: u64,
}

impl Default for FriendsSettings {
    fn default() -> Self {
        FriendsSettings {
            chat_rate_per_sec: 0.5,
            chat_burst: 5.0,
            idle_after_ms: 60_000,
        }
    }
}

/// Chat messages waiting for the chat writer; when it is full, further messages are refused.
const CHAT_QUEUE: usize = 64;

/// One message for the chat writer: store it, then hand it back to the table.
#[derive(Debug)]
pub(crate) struct ChatWrite {
    message: ChatMessage,
    match_id: Option<String>,
    reply: Respond<()>,
}

/// Who wrote a chat message, for the rate limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Writer {
    Seat(u8),
    Spectator(u64),
}

/// A token bucket on the table's clock.
#[derive(Clone, Copy, Debug)]
struct Bucket {
    tokens: f64,
    at: Millis,
}

/// A seat's activity as the table saw it.
#[derive(Clone, Copy, Debug, Default)]
struct Seen {
    last_active: Millis,
    hidden: bool,
}

/// The table's chat and presence state.
#[derive(Debug, Default)]
pub(crate) struct Friends {
    /// Listed in the public list of open lobbies (the host's choice; persisted).
    pub(crate) listed: bool,
    /// The last [`CHAT_HISTORY`] stored messages, oldest first.
    recent: VecDeque<ChatMessage>,
    next_id: u64,
    buckets: HashMap<Writer, Bucket>,
    writer: Option<mpsc::Sender<ChatWrite>>,
    /// The table's own command channel, for the chat writer to hand stored messages back. Weak, so that the
    /// table still ends when every other handle is gone.
    myself: Option<mpsc::WeakSender<Command>>,
    /// Per seat.
    seen: Vec<Seen>,
    /// The connection being seated by the command in progress (active, though not yet marked so).
    arriving: Option<u64>,
    /// The presence of each seat as last pushed.
    pub(crate) shown: Vec<Presence>,
}

impl Friends {
    pub(crate) fn new() -> Friends {
        Friends {
            next_id: 1,
            ..Friends::default()
        }
    }
}

/// The chat writer: stores each message in order, then hands it back to its table (which delivers it). Ends
/// when the table is gone.
async fn chat_writer(
    store: Store,
    code: String,
    mut queue: mpsc::Receiver<ChatWrite>,
    table: mpsc::WeakSender<Command>,
) {
    while let Some(write) = queue.recv().await {
        let stored = store
            .insert_chat(&code, &write.message, write.match_id.as_deref())
            .await;
        let Some(table) = table.upgrade() else { break };
        let handed = table
            .send(Command::ChatStored {
                message: write.message,
                stored,
                reply: write.reply,
            })
            .await;
        if handed.is_err() {
            break;
        }
    }
}

impl Table {
    /// Called by the hub once the table's command channel exists.
    pub(crate) fn set_self_handle(&mut self, handle: mpsc::WeakSender<Command>) {
        self.friends.myself = Some(handle);
    }

    /// After a restart: the lobby's visibility and its recent chat, as stored.
    pub(crate) fn restore_friends(&mut self, listed: bool, recent: Vec<ChatMessage>) {
        self.friends.listed = listed;
        self.friends.next_id = recent.last().map_or(1, |m| m.id + 1);
        self.friends.recent = recent.into();
    }

    /// `chat` from `conn_id`: handed to the chat writer, whose storing of it answers `reply`, or refused now.
    pub(super) fn chat(&mut self, conn_id: u64, text: String, reply: Respond<()>) {
        if let Err(e) = self.write_chat(conn_id, text, reply) {
            // `write_chat` gives the reply back only when it refused the message.
            let (error, reply) = *e;
            let _ = reply.send(Err(error));
        }
    }

    /// `presence` from `conn_id`: a seat's page is hidden (or visible again); a spectator's changes nothing.
    pub(super) fn set_hidden(&mut self, conn_id: u64, hidden: bool) -> Result<(), ErrorBody> {
        match self.seat_of(conn_id) {
            Some(seat) => {
                self.seen_mut(seat).hidden = hidden;
                Ok(())
            }
            None if self.is_spectator(conn_id) => Ok(()),
            None => Err(err(ErrorCode::NotInLobby, "you are not in this lobby")),
        }
    }

    #[allow(clippy::type_complexity)]
    fn write_chat(
        &mut self,
        conn_id: u64,
        text: String,
        reply: Respond<()>,
    ) -> Result<(), Box<(ErrorBody, Respond<()>)>> {
        let refuse = |e: ErrorBody, reply| Err(Box::new((e, reply)));
        let (writer, channel, seat, name) = match self.seat_of(conn_id) {
            Some(seat) => {
                let name = match &self.seats[seat as usize] {
                    Occupant::Human { name, .. } => name.clone(),
                    _ => String::new(),
                };
                (Writer::Seat(seat), ChatChannel::Players, Some(Seat(seat)), name)
            }
            None if self.is_spectator(conn_id) => (
                Writer::Spectator(conn_id),
                ChatChannel::Spectators,
                None,
                self.spectators
                    .iter()
                    .find(|w| w.conn.id == conn_id)
                    .and_then(|w| w.name.clone())
                    .unwrap_or_else(|| "Spectator".to_string()),
            ),
            None => return refuse(err(ErrorCode::NotInLobby, "you are not in this lobby"), reply),
        };
        let text = match check_chat(&text) {
            Ok(text) => text,
            Err(e) => return refuse(e, reply),
        };
        let now = self.clock.now();
        // Spectators who went away leave no bucket behind.
        let spectators: Vec<u64> = self.spectators.iter().map(|w| w.conn.id).collect();
        self.friends.buckets.retain(|w, _| match w {
            Writer::Spectator(id) => spectators.contains(id),
            Writer::Seat(_) => true,
        });
        let settings = &self.settings.friends;
        let bucket = self.friends.buckets.entry(writer).or_insert(Bucket {
            tokens: settings.chat_burst,
            at: now,
        });
        let elapsed = now.saturating_sub(bucket.at) as f64 / 1000.0;
        bucket.tokens = (bucket.tokens + elapsed * settings.chat_rate_per_sec).min(settings.chat_burst);
        bucket.at = now;
        if bucket.tokens < 1.0 {
            return refuse(
                err(ErrorCode::RateLimited, "you are chatting too fast; wait a moment"),
                reply,
            );
        }
        let Some(writer_tx) = self.chat_writer() else {
            return refuse(err(ErrorCode::Internal, "chat is not available"), reply);
        };
        let message = ChatMessage {
            id: self.friends.next_id,
            channel,
            seat,
            name,
            text,
            at: now,
        };
        let write = ChatWrite {
            message,
            match_id: self.running.as_ref().map(|r| r.match_id.to_string()),
            reply,
        };
        match writer_tx.try_send(write) {
            Ok(()) => {
                self.friends.next_id += 1;
                if let Some(bucket) = self.friends.buckets.get_mut(&writer) {
                    bucket.tokens -= 1.0;
                }
                Ok(())
            }
            Err(mpsc::error::TrySendError::Full(write) | mpsc::error::TrySendError::Closed(write)) => {
                warn!("the chat writer is behind; refusing a message");
                refuse(
                    err(ErrorCode::Overloaded, "the chat is busy; try again"),
                    write.reply,
                )
            }
        }
    }

    /// The chat writer's queue, started on first use.
    fn chat_writer(&mut self) -> Option<mpsc::Sender<ChatWrite>> {
        if let Some(tx) = &self.friends.writer
            && !tx.is_closed()
        {
            return Some(tx.clone());
        }
        let myself = self.friends.myself.clone()?;
        let (tx, rx) = mpsc::channel(CHAT_QUEUE);
        tokio::spawn(chat_writer(self.store.clone(), self.code.to_string(), rx, myself));
        self.friends.writer = Some(tx.clone());
        Some(tx)
    }

    /// A message is stored: keep it, deliver it to everyone in the lobby, answer its writer.
    pub(super) fn chat_stored(
        &mut self,
        message: ChatMessage,
        stored: Result<(), StoreError>,
        reply: Respond<()>,
    ) {
        if let Err(e) = stored {
            let answer = if e.is_unavailable() {
                warn!(error = %e, id = message.id, "storing a chat message failed: the database cannot be reached");
                store_unavailable()
            } else {
                error!(error = %e, id = message.id, "storing a chat message failed");
                err(
                    ErrorCode::Internal,
                    "the message could not be stored; it was not sent",
                )
            };
            let _ = reply.send(Err(answer));
            return;
        }
        self.friends.recent.push_back(message.clone());
        while self.friends.recent.len() > CHAT_HISTORY {
            self.friends.recent.pop_front();
        }
        let push = ServerMessage::Push(Push::ChatMessage {
            code: self.code.to_string(),
            message,
        });
        let failed: Vec<u64> = self
            .connections()
            .filter(|(_, c)| !c.push(push.clone()))
            .map(|(_, c)| c.id)
            .collect();
        self.drop_connections(&failed);
        let _ = reply.send(Ok(()));
    }

    /// Pushes the recent chat to a connection that just joined, spectated or resumed.
    fn push_chat_history(&mut self, conn_id: u64) {
        let Some(conn) = self
            .connections()
            .find(|(_, c)| c.id == conn_id)
            .map(|(_, c)| c.clone())
        else {
            return;
        };
        let push = ServerMessage::Push(Push::ChatHistory {
            code: self.code.to_string(),
            messages: self.friends.recent.iter().cloned().collect(),
        });
        if !conn.push(push) {
            self.drop_connections(&[conn_id]);
        }
    }

    /// The connection a command comes from, and whether it binds that connection to this table.
    pub(super) fn command_origin(command: &Command) -> Option<(u64, bool)> {
        match command {
            Command::Join { conn, .. } | Command::Spectate { conn, .. } | Command::Resume { conn, .. } => {
                Some((conn.id, true))
            }
            Command::Leave { conn_id, .. }
            | Command::AddBot { conn_id, .. }
            | Command::Start { conn_id, .. }
            | Command::Act { conn_id, .. }
            | Command::Chat { conn_id, .. }
            | Command::Presence { conn_id, .. }
            | Command::Host { conn_id, .. } => Some((*conn_id, false)),
            _ => None,
        }
    }

    /// Before a command: its sender is active now (so that what the command pushes already shows it so).
    pub(super) fn before_command(&mut self, origin: Option<(u64, bool)>) {
        let Some((conn_id, arriving)) = origin else { return };
        if arriving {
            self.friends.arriving = Some(conn_id);
        } else if let Some(seat) = self.seat_of(conn_id) {
            let now = self.clock.now();
            self.seen_mut(seat).last_active = now;
        }
    }

    /// After a command: the sender was active; a client that has just arrived gets the recent chat; every
    /// client hears of presence changes.
    pub(super) fn after_command(&mut self, origin: Option<(u64, bool)>) {
        self.friends.arriving = None;
        let now = self.clock.now();
        if let Some((conn_id, arrived)) = origin {
            if let Some(seat) = self.seat_of(conn_id) {
                let seen = self.seen_mut(seat);
                seen.last_active = now;
                if arrived {
                    seen.hidden = false;
                }
            }
            if arrived {
                self.push_chat_history(conn_id);
            }
        }
        self.publish_presence(now);
    }

    fn seen_mut(&mut self, seat: u8) -> &mut Seen {
        let i = seat as usize;
        if self.friends.seen.len() <= i {
            self.friends.seen.resize(i + 1, Seen::default());
        }
        &mut self.friends.seen[i]
    }

    /// Marks a seat active now (its player created the lobby).
    pub(super) fn mark_active(&mut self, seat: u8, now: Millis) {
        self.seen_mut(seat).last_active = now;
    }

    /// The presence of the human at `seat` at `now` (the clock's time, read once by the caller: the table asks
    /// this of every seat after every command, and each reading of the clock is a system clock call).
    pub(super) fn presence_of(&self, seat: usize, now: Millis) -> Presence {
        let Some(Occupant::Human { conn: Some(conn), .. }) = self.seats.get(seat) else {
            return Presence::Away;
        };
        if self.friends.arriving == Some(conn.id) {
            return Presence::Connected;
        }
        let seen = self.friends.seen.get(seat).copied().unwrap_or_default();
        if seen.hidden || now.saturating_sub(seen.last_active) >= self.settings.friends.idle_after_ms {
            Presence::Idle
        } else {
            Presence::Connected
        }
    }

    pub(super) fn presences(&self, now: Millis) -> Vec<Presence> {
        (0..self.seats.len()).map(|i| self.presence_of(i, now)).collect()
    }

    /// Whether a seat's presence changed since it was last pushed (`presences() != friends.shown`, without
    /// building the list: this is asked after every command).
    fn presence_changed(&self, now: Millis) -> bool {
        let shown = &self.friends.shown;
        shown.len() != self.seats.len()
            || shown
                .iter()
                .enumerate()
                .any(|(i, p)| *p != self.presence_of(i, now))
    }

    /// Pushes the lobby if a seat's presence changed since it was last pushed.
    pub(super) fn publish_presence(&mut self, now: Millis) {
        if self.presence_changed(now) {
            self.push_lobby_to_all();
        }
    }

    /// When the next connected seat turns idle (or now, if a change is not yet pushed).
    pub(super) fn presence_wake(&self, now: Millis) -> Option<Millis> {
        if self.presence_changed(now) {
            return Some(now);
        }
        let idle_after = self.settings.friends.idle_after_ms;
        self.seats
            .iter()
            .enumerate()
            .filter(|(_, o)| matches!(o, Occupant::Human { conn: Some(_), .. }))
            .filter_map(|(i, _)| {
                let seen = self.friends.seen.get(i).copied().unwrap_or_default();
                let at = seen.last_active.saturating_add(idle_after);
                (!seen.hidden && at > now).then_some(at)
            })
            .min()
    }
}
