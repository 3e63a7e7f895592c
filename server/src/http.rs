//! The HTTP/1 connections themselves, before any request reaches the router: accepting, the request-head
//! timeout, the cap on connections not yet upgraded, graceful shutdown, and the process's open-file limit.
//!
//! `axum::serve` exposes none of these knobs, so connections are served here with hyper directly:
//! - a connection that has not sent a complete request head within `--header-timeout-secs` (a silent socket, a
//!   slow header trickle, or a keep-alive connection idle between requests) is closed (hyper's
//!   `header_read_timeout`);
//! - at most `--max-http-connections` connections are held before they become WebSockets (an upgraded one leaves
//!   this count for the WebSocket cap, `--max-connections`). When a new one would pass the cap, the oldest
//!   connection with no request in progress (silent, trickling or idle) is closed to make room, so a burst of
//!   silent sockets cannot lock out a health check or a player: they get in while the sockets hold nothing but
//!   a place. Only when every held connection has a request in progress is the new one answered 503 at once.
//!
//! A handler sees the peer's address as `ConnectInfo<SocketAddr>`, as under `axum::serve`; every accepted socket
//! has `TCP_NODELAY`.

use std::{
    collections::BTreeMap,
    net::SocketAddr,
    pin::pin,
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, Ordering::Relaxed},
    },
    time::Duration,
};

use axum::{Router, body::Body, extract::ConnectInfo};
use hyper::{body::Incoming, server::conn::http1};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::{
    net::{TcpListener, TcpStream},
    sync::{Notify, watch},
};
use tracing::{debug, trace, warn};

/// What bounds the HTTP connections of one listener.
#[derive(Clone, Copy, Debug)]
pub struct HttpLimits {
    /// A connection must send a complete request head within this long of connecting, or of the end of its
    /// previous request.
    pub header_timeout: Duration,
    /// Connections held at once before they are upgraded.
    pub max_connections: usize,
}

/// The answer to a connection past the cap when every held connection has a request in progress.
const FULL: &[u8] =
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\n\
connection: close\r\ncontent-length: 97\r\n\r\n\
{\"code\":\"too_many_connections\",\"message\":\"the server holds as many connections as it can; retry\"}";

/// Serves `router` on `listener` until `stop` turns true; then stops accepting, lets every connection finish
/// its request in progress (idle ones close at once) and returns once all have ended. Upgraded connections
/// (WebSockets) are not waited for here: they belong to their handler's task.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: HttpLimits,
    mut stop: watch::Receiver<bool>,
) {
    let held = Arc::new(Held::new(limits.max_connections));
    // Every connection task holds a clone of `open`; `closed` completes once all have ended.
    let (all, open) = watch::channel(());
    loop {
        let (tcp, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors (or another transient failure): try again shortly rather than
                    // spinning; the connections already held are being served meanwhile.
                    warn!(error = %e, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = stopped(&mut stop) => break,
        };
        let _ = tcp.set_nodelay(true);
        let Some(place) = held.enter() else {
            debug!(%peer, "connection refused: every held connection is busy");
            let _ = tcp.try_write(FULL);
            continue;
        };
        trace!(%peer, "connection accepted");
        tokio::spawn(connection(
            tcp,
            peer,
            router.clone(),
            limits,
            place,
            stop.clone(),
            open.clone(),
        ));
    }
    drop(listener);
    drop(open);
    all.closed().await;
}

/// Serves one connection until it ends, is upgraded, is evicted to make room, or the server stops.
async fn connection(
    tcp: TcpStream,
    peer: SocketAddr,
    router: Router,
    limits: HttpLimits,
    place: Place,
    mut stop: watch::Receiver<bool>,
    _open: watch::Receiver<()>,
) {
    let slot = place.slot.clone();
    let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
        request.extensions_mut().insert(ConnectInfo(peer));
        let busy = Busy::new(slot.clone());
        let answer = tower::ServiceExt::oneshot(router.clone(), request.map(Body::new));
        async move {
            let response = answer.await;
            drop(busy);
            response
        }
    });
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    let mut served = pin!(
        builder
            .serve_connection(TokioIo::new(tcp), service)
            .with_upgrades()
    );
    let mut stopping = false;
    loop {
        tokio::select! {
            ended = served.as_mut() => {
                if let Err(e) = ended {
                    debug!(%peer, error = %e, "HTTP connection ended");
                }
                break;
            }
            () = place.slot.evict.notified() => {
                debug!(%peer, "HTTP connection closed to make room for a new one");
                break;
            }
            () = stopped(&mut stop), if !stopping => {
                served.as_mut().graceful_shutdown();
                stopping = true;
            }
        }
    }
}

/// Completes once `stop` is true (or its sender is gone).
async fn stopped(stop: &mut watch::Receiver<bool>) {
    let _ = stop.wait_for(|stopping| *stopping).await;
}

/// One held connection: whether a request of it is in progress, and the signal that closes it.
#[derive(Debug, Default)]
struct Slot {
    busy: AtomicBool,
    evict: Notify,
}

/// Marks a slot busy while a request is being answered.
struct Busy(Arc<Slot>);

impl Busy {
    fn new(slot: Arc<Slot>) -> Busy {
        slot.busy.store(true, Relaxed);
        Busy(slot)
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.busy.store(false, Relaxed);
    }
}

/// The connections held, oldest first.
#[derive(Debug)]
struct Held {
    max: usize,
    slots: Mutex<(u64, BTreeMap<u64, Arc<Slot>>)>,
}

/// A connection's place among the held ones, given back when dropped.
#[derive(Debug)]
struct Place {
    held: Arc<Held>,
    id: u64,
    slot: Arc<Slot>,
}

impl Drop for Place {
    fn drop(&mut self) {
        self.held.slots.lock().expect("held lock").1.remove(&self.id);
    }
}

impl Held {
    fn new(max: usize) -> Held {
        Held {
            max: max.max(1),
            slots: Mutex::default(),
        }
    }

    /// A place for a new connection: when all are taken, the oldest connection with no request in progress is
    /// told to close and gives up its place; `None` when every held connection is busy.
    fn enter(self: &Arc<Self>) -> Option<Place> {
        let mut guard = self.slots.lock().expect("held lock");
        let (next, slots) = &mut *guard;
        if slots.len() >= self.max {
            let idle = slots
                .iter()
                .find(|(_, slot)| !slot.busy.load(Relaxed))
                .map(|(id, _)| *id)?;
            if let Some(slot) = slots.remove(&idle) {
                slot.evict.notify_one();
            }
        }
        let id = *next;
        *next += 1;
        let slot = Arc::new(Slot::default());
        slots.insert(id, slot.clone());
        Some(Place {
            held: self.clone(),
            id,
            slot,
        })
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.slots.lock().unwrap().1.len()
    }
}

/// The open-file limit (RLIMIT_NOFILE) before and after [`raise_open_file_limit`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenFileLimit {
    pub soft_before: u64,
    pub soft: u64,
    pub hard: u64,
}

/// Raises the soft open-file limit to the hard one: every socket is a file descriptor, and the usual soft limit
/// (1024) is below what the connection caps allow. `None` when the limit cannot be read.
pub fn raise_open_file_limit() -> Option<OpenFileLimit> {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    let (soft_before, hard) = getrlimit(Resource::RLIMIT_NOFILE).ok()?;
    if soft_before < hard
        && let Err(e) = setrlimit(Resource::RLIMIT_NOFILE, hard, hard)
    {
        warn!(error = %e, soft = soft_before, hard, "could not raise the open-file limit");
    }
    let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE).ok()?;
    Some(OpenFileLimit {
        soft_before,
        soft,
        hard,
    })
}

/// The soft open-file limit in force now (`None` when it cannot be read or is unlimited).
pub fn open_file_limit() -> Option<u64> {
    use nix::sys::resource::{RLIM_INFINITY, Resource, getrlimit};
    getrlimit(Resource::RLIMIT_NOFILE)
        .ok()
        .map(|(soft, _)| soft)
        .filter(|soft| *soft != RLIM_INFINITY)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_the_cap_the_oldest_idle_connection_makes_room_and_busy_ones_are_kept() {
        let held = Arc::new(Held::new(3));
        let first = held.enter().unwrap();
        let second = held.enter().unwrap();
        let third = held.enter().unwrap();
        // The first is answering a request: the second, the oldest idle one, is told to close.
        let busy = Busy::new(first.slot.clone());
        let fourth = held.enter().unwrap();
        assert_eq!(held.len(), 3);
        let told = |place: &Place| {
            let notified = place.slot.evict.notified();
            futures_util::FutureExt::now_or_never(notified).is_some()
        };
        assert!(told(&second), "the oldest idle connection is evicted");
        assert!(!told(&first) && !told(&third) && !told(&fourth));
        // Its place is already free: dropping it later takes nothing from the others.
        drop(second);
        assert_eq!(held.len(), 3);
        // Every held connection busy: a new one is refused.
        let _busy = [
            busy,
            Busy::new(third.slot.clone()),
            Busy::new(fourth.slot.clone()),
        ];
        assert!(held.enter().is_none());
        // One ends: room again.
        drop(fourth);
        assert!(held.enter().is_some());
    }

    #[test]
    fn the_full_answer_is_a_well_formed_response() {
        let text = std::str::from_utf8(FULL).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(
            head.contains(&format!("content-length: {}", body.len())),
            "{head}"
        );
        let body: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(body["code"], "too_many_connections");
    }
}
