//! One WebSocket connection: a thin adapter between JSON text frames and the tables. It reads and checks
//! frames (size, rate, shape), keeps the handshake and which table it is bound to, forwards requests to that
//! table and writes back the one reply to each request, and the table's pushes in between.
//!
//! The loop is generic over the frame `Sink`/`Stream`, as in axum's testing-websockets example, so it can be
//! driven by channels in unit tests as well as by a real socket.

use std::{
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering::Relaxed},
    },
    time::Instant,
};

use axum::extract::ws::Message;
use futures_util::{Sink, SinkExt, Stream, StreamExt};
use protocol::{
    ClientMessage, ErrorBody, ErrorCode, Push, Reply, Request, SUPPORTED_VERSIONS, ServerMessage,
    parse_client_message,
};
use tokio::sync::{mpsc, oneshot, watch};
use tracing::{Instrument, debug, info_span};

use crate::{
    hub::Hub,
    metrics::Metrics,
    table::{Closer, Command, Conn, HostOp, Respond, TableHandle},
};

/// Limits applied to every connection.
#[derive(Clone, Debug)]
pub struct ConnectionLimits {
    /// Largest accepted text frame, in bytes; larger ones get `too_large` and the connection stays open.
    pub max_message_bytes: usize,
    /// Sustained requests per second.
    pub rate_per_sec: f64,
    /// Requests allowed in a burst.
    pub rate_burst: f64,
    /// Messages queued for a client before it counts as too slow and is disconnected.
    pub outbox: usize,
}

/// What a connection needs from the server.
#[derive(Debug)]
pub struct Shared {
    pub hub: Hub,
    pub metrics: Arc<Metrics>,
    pub limits: ConnectionLimits,
    pub shutdown: watch::Receiver<bool>,
    pub server_name: String,
    next_id: AtomicU64,
}

impl Shared {
    pub fn new(
        hub: Hub,
        metrics: Arc<Metrics>,
        limits: ConnectionLimits,
        shutdown: watch::Receiver<bool>,
    ) -> Shared {
        Shared {
            hub,
            metrics,
            limits,
            shutdown,
            server_name: format!("tabletop-server {}", env!("CARGO_PKG_VERSION")),
            next_id: AtomicU64::new(1),
        }
    }
}

/// A token bucket: `burst` requests at once, refilled at `rate` per second.
#[derive(Debug)]
struct RateLimit {
    tokens: f64,
    rate: f64,
    burst: f64,
    last: Instant,
}

impl RateLimit {
    fn new(rate: f64, burst: f64) -> Self {
        RateLimit {
            tokens: burst,
            rate,
            burst,
            last: Instant::now(),
        }
    }

    fn allow(&mut self) -> bool {
        let now = Instant::now();
        self.tokens = (self.tokens + now.duration_since(self.last).as_secs_f64() * self.rate).min(self.burst);
        self.last = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Seat,
    Spectator,
}

#[derive(Debug, Clone)]
struct Bound {
    table: TableHandle,
    role: Role,
}

/// The per-connection state the loop keeps.
#[derive(Debug)]
struct Session {
    shared: Arc<Shared>,
    conn: Conn,
    greeted: bool,
    bound: Option<Bound>,
}

/// The `closing` push for a frame the WebSocket layer could not read: `too_large` for a frame over the hard size
/// limit, `bad_message` for anything else (such as invalid UTF-8 in a text frame).
fn unreadable_frame(e: &(dyn std::error::Error + 'static)) -> ServerMessage {
    let mut cause = Some(e);
    let mut code = ErrorCode::BadMessage;
    while let Some(c) = cause {
        if let Some(tungstenite::Error::Capacity(_)) = c.downcast_ref::<tungstenite::Error>() {
            code = ErrorCode::TooLarge;
        }
        cause = c.source();
    }
    ServerMessage::Push(Push::Closing(ErrorBody::new(
        code,
        format!("unreadable frame: {e}"),
    )))
}

/// Serves one connection until the client leaves, the table drops it, or the server shuts down.
pub async fn serve<S, R, E>(mut sink: S, mut stream: R, shared: Arc<Shared>)
where
    S: Sink<Message> + Unpin,
    R: Stream<Item = Result<Message, E>> + Unpin,
    E: std::error::Error + 'static,
{
    let id = shared.next_id.fetch_add(1, Relaxed);
    let (tx, mut outbox) = mpsc::channel(shared.limits.outbox);
    let closer = Arc::new(Closer::default());
    let mut session = Session {
        shared: shared.clone(),
        conn: Conn {
            id,
            tx,
            closer: closer.clone(),
        },
        greeted: false,
        bound: None,
    };
    let mut shutdown = shared.shutdown.clone();
    let mut rate = RateLimit::new(shared.limits.rate_per_sec, shared.limits.rate_burst);
    shared.metrics.connections.fetch_add(1, Relaxed);
    shared.metrics.connections_total.fetch_add(1, Relaxed);
    async {
        debug!("connected");
        loop {
            if *shutdown.borrow() {
                let _ = send(&mut sink, &closing(ErrorCode::ShuttingDown)).await;
                break;
            }
            tokio::select! {
                frame = stream.next() => {
                    let frame = match frame {
                        Some(Ok(frame)) => frame,
                        Some(Err(e)) => {
                            // A frame the WebSocket layer cannot read (invalid UTF-8 in a text frame, over the
                            // hard size limit, a protocol violation) fails the connection (RFC 6455): say why.
                            let _ = sink.send(Message::Text(unreadable_frame(&e).to_json().into())).await;
                            break;
                        }
                        None => break,
                    };
                    let reply = match frame {
                        Message::Text(text) => {
                            if !rate.allow() {
                                let re = protocol::request_id_of(text.as_str());
                                Some(ServerMessage::error(re, ErrorCode::RateLimited, "slow down: too many messages"))
                            } else if text.len() > shared.limits.max_message_bytes {
                                Some(ServerMessage::error(
                                    None,
                                    ErrorCode::TooLarge,
                                    format!("messages are limited to {} bytes", shared.limits.max_message_bytes),
                                ))
                            } else {
                                Some(session.handle_text(text.as_str()).await)
                            }
                        }
                        Message::Binary(_) => {
                            Some(ServerMessage::error(None, ErrorCode::BadMessage, "only JSON text frames are read"))
                        }
                        Message::Close(_) => break,
                        Message::Ping(_) | Message::Pong(_) => None,
                    };
                    if let Some(reply) = reply
                        && send(&mut sink, &reply).await.is_err() {
                            break;
                        }
                }
                pushed = outbox.recv() => {
                    // The session holds a sender, so the outbox never ends while we are here.
                    let Some(message) = pushed else { break };
                    if send(&mut sink, &message).await.is_err() {
                        break;
                    }
                }
                () = closer.notify.notified() => {
                    // The table dropped us: deliver what it queued, then the reason, then close.
                    while let Ok(message) = outbox.try_recv() {
                        if send(&mut sink, &message).await.is_err() {
                            break;
                        }
                    }
                    if let Some(reason) = closer.reason() {
                        let _ = send(&mut sink, &ServerMessage::Push(Push::Closing(reason.clone()))).await;
                    }
                    session.bound = None;
                    break;
                }
                _ = shutdown.changed() => {}
            }
        }
        let _ = sink.send(Message::Close(None)).await;
        session.disconnect().await;
        debug!("disconnected");
    }
    .instrument(info_span!("conn", id))
    .await;
    shared.metrics.connections.fetch_sub(1, Relaxed);
}

fn closing(code: ErrorCode) -> ServerMessage {
    let message = match code {
        ErrorCode::ShuttingDown => {
            "the server is shutting down; reconnect later and resume with your seat token"
        }
        _ => "closing",
    };
    ServerMessage::Push(Push::Closing(ErrorBody::new(code, message)))
}

async fn send<S: Sink<Message> + Unpin>(sink: &mut S, message: &ServerMessage) -> Result<(), ()> {
    sink.send(Message::Text(message.to_json().into()))
        .await
        .map_err(|_| ())
}

impl Session {
    async fn disconnect(&mut self) {
        if let Some(bound) = self.bound.take() {
            let _ = bound
                .table
                .tx
                .send(Command::Disconnect {
                    conn_id: self.conn.id,
                })
                .await;
        }
    }

    async fn handle_text(&mut self, text: &str) -> ServerMessage {
        let ClientMessage { id, request } = match parse_client_message(text) {
            Ok(message) => message,
            Err(e) => return ServerMessage::error(e.re, e.code, e.message),
        };
        let kind = request.kind();
        let result = self.handle(request).await;
        match result {
            Ok(reply) => ServerMessage::reply(id, reply),
            Err(error) => {
                debug!(request = kind, code = error.code.as_str(), "request refused");
                ServerMessage::reply(id, Reply::Error(error))
            }
        }
    }

    fn refused(code: ErrorCode, message: &str) -> Result<Reply, ErrorBody> {
        Err(ErrorBody::new(code, message))
    }

    async fn handle(&mut self, request: Request) -> Result<Reply, ErrorBody> {
        if let Request::Hello { protocol, .. } = request {
            if !SUPPORTED_VERSIONS.contains(&protocol) {
                return Err(ErrorBody::new(
                    ErrorCode::UnsupportedVersion,
                    format!("this server speaks protocol versions {SUPPORTED_VERSIONS:?}, not {protocol}"),
                ));
            }
            self.greeted = true;
            return Ok(Reply::Welcome {
                protocol,
                server: self.shared.server_name.clone(),
            });
        }
        if let Request::Ping {} = request {
            return Ok(Reply::Pong {});
        }
        if !self.greeted {
            return Self::refused(ErrorCode::HandshakeRequired, "say hello first");
        }
        match request {
            Request::Hello { .. } | Request::Ping {} => unreachable!("answered above"),
            Request::CreateLobby {
                game,
                options,
                seats,
                name,
                turn_timer_ms,
            } => {
                self.require_unbound()?;
                let (table, seated) = self
                    .shared
                    .hub
                    .create(&game, &options, seats, &name, turn_timer_ms, self.conn.clone())
                    .await?;
                let code = table.code.clone();
                self.bound = Some(Bound {
                    table,
                    role: Role::Seat,
                });
                Ok(Reply::Seated {
                    code,
                    seat: seated.seat,
                    seat_token: seated.seat_token,
                    host: seated.host,
                })
            }
            Request::JoinLobby { code, name } => {
                self.require_unbound()?;
                let table = self.shared.hub.find(&code).await?;
                let conn = self.conn.clone();
                let seated = self
                    .ask(&table, |reply| Command::Join { name, conn, reply })
                    .await?;
                self.bound = Some(Bound {
                    table: table.clone(),
                    role: Role::Seat,
                });
                Ok(Reply::Seated {
                    code: table.code.clone(),
                    seat: seated.seat,
                    seat_token: seated.seat_token,
                    host: seated.host,
                })
            }
            Request::Spectate { code } => {
                self.require_unbound()?;
                let table = self.shared.hub.find(&code).await?;
                let conn = self.conn.clone();
                self.ask(&table, |reply| Command::Spectate { conn, reply })
                    .await?;
                self.bound = Some(Bound {
                    table: table.clone(),
                    role: Role::Spectator,
                });
                Ok(Reply::Spectating {
                    code: table.code.clone(),
                })
            }
            Request::Resume {
                code,
                token,
                last_version,
            } => {
                self.require_unbound()?;
                let table = self.shared.hub.find(&code).await?;
                let conn = self.conn.clone();
                let (seat, host) = self
                    .ask(&table, |reply| Command::Resume {
                        token,
                        last_version,
                        conn,
                        reply,
                    })
                    .await?;
                self.bound = Some(Bound {
                    table: table.clone(),
                    role: Role::Seat,
                });
                Ok(Reply::Resumed {
                    code: table.code.clone(),
                    seat,
                    host,
                })
            }
            Request::Leave {} => {
                let table = self.require_bound()?;
                let conn_id = self.conn.id;
                self.ask(&table, |reply| Command::Leave { conn_id, reply })
                    .await?;
                self.bound = None;
                Ok(Reply::Ok {})
            }
            Request::AddBot { seat } => {
                let table = self.require_bound()?;
                let conn_id = self.conn.id;
                self.ask(&table, |reply| Command::AddBot { conn_id, seat, reply })
                    .await?;
                Ok(Reply::Ok {})
            }
            Request::Start {} => {
                let table = self.require_bound()?;
                let conn_id = self.conn.id;
                self.ask(&table, |reply| Command::Start { conn_id, reply })
                    .await?;
                Ok(Reply::Ok {})
            }
            Request::Action { action, version } => {
                let table = self.require_bound()?;
                if let Some(Bound {
                    role: Role::Spectator,
                    ..
                }) = &self.bound
                {
                    return Self::refused(ErrorCode::Unauthorized, "spectators cannot act");
                }
                let conn_id = self.conn.id;
                let version = self
                    .ask(&table, |reply| Command::Act {
                        conn_id,
                        action,
                        version,
                        reply,
                    })
                    .await?;
                Ok(Reply::Accepted { version })
            }
            Request::Chat { text } => {
                let table = self.require_bound()?;
                let conn_id = self.conn.id;
                self.ask(&table, |reply| Command::Chat { conn_id, text, reply })
                    .await?;
                Ok(Reply::Ok {})
            }
            Request::Presence { hidden } => {
                let table = self.require_bound()?;
                let conn_id = self.conn.id;
                self.ask(&table, |reply| Command::Presence {
                    conn_id,
                    hidden,
                    reply,
                })
                .await?;
                Ok(Reply::Ok {})
            }
            Request::ConfigureLobby {
                options,
                seats,
                turn_timer_ms,
            } => {
                self.host_op(HostOp::Configure {
                    options,
                    seats,
                    turn_timer_ms,
                })
                .await
            }
            Request::RemovePlayer { seat } => self.host_op(HostOp::Remove { seat }).await,
            Request::MakeHost { seat } => self.host_op(HostOp::MakeHost { seat }).await,
            Request::SetListed { listed } => self.host_op(HostOp::SetListed { listed }).await,
        }
    }

    /// Sends a host control to the bound table.
    async fn host_op(&mut self, op: HostOp) -> Result<Reply, ErrorBody> {
        let table = self.require_bound()?;
        let conn_id = self.conn.id;
        self.ask(&table, |reply| Command::Host { conn_id, op, reply })
            .await?;
        Ok(Reply::Ok {})
    }

    fn require_unbound(&self) -> Result<(), ErrorBody> {
        match &self.bound {
            Some(b) => Err(ErrorBody::new(
                ErrorCode::AlreadyInLobby,
                format!(
                    "this connection is already in lobby {}; leave it first",
                    b.table.code
                ),
            )),
            None => Ok(()),
        }
    }

    fn require_bound(&self) -> Result<TableHandle, ErrorBody> {
        self.bound
            .as_ref()
            .map(|b| b.table.clone())
            .ok_or_else(|| ErrorBody::new(ErrorCode::NotInLobby, "join, resume or spectate a lobby first"))
    }

    /// Sends a command to a table and waits for its answer. A table that is gone means the server is shutting
    /// down or the lobby closed.
    async fn ask<T>(
        &mut self,
        table: &TableHandle,
        command: impl FnOnce(Respond<T>) -> Command,
    ) -> Result<T, ErrorBody> {
        let (reply, answer) = oneshot::channel();
        let gone = |shared: &Shared| {
            if *shared.shutdown.borrow() {
                ErrorBody::new(ErrorCode::ShuttingDown, "the server is shutting down")
            } else {
                ErrorBody::new(ErrorCode::UnknownLobby, "this lobby is closed")
            }
        };
        if table.tx.send(command(reply)).await.is_err() {
            self.bound = None;
            return Err(gone(&self.shared));
        }
        match answer.await {
            Ok(result) => result,
            Err(_) => {
                self.bound = None;
                Err(gone(&self.shared))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::convert::Infallible;

    use futures_channel::mpsc as channel;
    use serde_json::{Value, json};

    use super::*;
    use crate::{clock::ManualClock, config::Config, store::Store};

    async fn next(rx: &mut channel::UnboundedReceiver<Message>) -> Value {
        match rx.next().await.expect("a frame") {
            Message::Text(text) => serde_json::from_str(text.as_str()).unwrap(),
            other => panic!("not a text frame: {other:?}"),
        }
    }

    /// The connection loop driven by plain channels instead of a socket.
    #[tokio::test]
    async fn the_loop_answers_each_frame_and_closes_on_shutdown() {
        let store = Store::connect("sqlite::memory:").await.unwrap();
        let (stop, stopped) = watch::channel(false);
        let (done, _) = mpsc::channel(1);
        let metrics = Arc::new(Metrics::default());
        let config = Config::defaults();
        let hub = Hub::new(
            store,
            Arc::new(ManualClock::new(0)),
            metrics.clone(),
            config.table_settings(),
            stopped.clone(),
            done,
        );
        let shared = Arc::new(Shared::new(hub, metrics.clone(), config.limits(), stopped));
        let (to_server, from_client) = channel::unbounded::<Result<Message, Infallible>>();
        let (to_client, mut from_server) = channel::unbounded::<Message>();
        let task = tokio::spawn(serve(to_client, from_client, shared));
        let send = |v: Value| {
            to_server
                .unbounded_send(Ok(Message::Text(v.to_string().into())))
                .unwrap()
        };

        send(json!({"id": 1, "type": "start"}));
        assert_eq!(next(&mut from_server).await["code"], "handshake_required");
        send(json!({"id": 2, "type": "hello", "protocol": protocol::PROTOCOL_VERSION}));
        assert_eq!(next(&mut from_server).await["type"], "welcome");
        to_server
            .unbounded_send(Ok(Message::Text("nonsense".into())))
            .unwrap();
        assert_eq!(next(&mut from_server).await["code"], "bad_message");
        let game = rules::AnyGame::catalogue()[0].clone();
        send(
            json!({"id": 3, "type": "create_lobby", "game": game.id, "seats": game.min_players, "name": "Ann"}),
        );
        let seated = next(&mut from_server).await;
        assert_eq!(
            (seated["re"].as_u64(), seated["type"].as_str()),
            (Some(3), Some("seated")),
            "{seated}"
        );
        assert_eq!(next(&mut from_server).await["type"], "lobby");
        assert_eq!(metrics.connections.load(Relaxed), 1);

        stop.send(true).unwrap();
        let closing = next(&mut from_server).await;
        assert_eq!(
            (closing["type"].as_str(), closing["code"].as_str()),
            (Some("closing"), Some("shutting_down"))
        );
        assert!(matches!(from_server.next().await, Some(Message::Close(_))));
        task.await.unwrap();
        assert_eq!(metrics.connections.load(Relaxed), 0);
    }
}
