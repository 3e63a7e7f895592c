//! A webhook receiver for tests: a real HTTP server on loopback that answers every POST with a status the test sets
//! (200 unless changed), after holding it for a time the test sets (0 unless changed), and hands each request's
//! headers and JSON body to the test.

use std::sync::Arc;
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering::SeqCst};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::mpsc;

/// "Within 2 s" (issue 47): how long [`Receiver::next`] waits.
pub const DELIVERY: Duration = Duration::from_secs(2);

/// One POST a receiver got.
#[derive(Debug)]
pub struct Delivery {
    /// Header names in lower case.
    pub headers: Vec<(String, String)>,
    pub body: Value,
    /// The body's bytes as sent (what a signature covers).
    pub raw: Vec<u8>,
}

impl Delivery {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// The receiver: its URL (path `/hook?group=7`, which every request must carry) and what it got.
#[derive(Debug)]
pub struct Receiver {
    pub url: String,
    /// The status every POST is answered with.
    pub status: Arc<AtomicU16>,
    /// How long every POST is held (in ms) before its answer.
    pub hold_ms: Arc<AtomicU64>,
    got: mpsc::UnboundedReceiver<Delivery>,
}

impl Receiver {
    pub async fn start() -> Receiver {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook?group=7", listener.local_addr().unwrap());
        let status = Arc::new(AtomicU16::new(200));
        let hold_ms = Arc::new(AtomicU64::new(0));
        let (tx, got) = mpsc::unbounded_channel();
        let (answer, hold) = (status.clone(), hold_ms.clone());
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                tokio::spawn(serve(socket, tx.clone(), answer.clone(), hold.clone()));
            }
        });
        Receiver {
            url,
            status,
            hold_ms,
            got,
        }
    }

    /// The next delivery, within [`DELIVERY`].
    pub async fn next(&mut self) -> Delivery {
        self.within(DELIVERY).await.expect("a delivery within 2 s")
    }

    /// The next delivery if one comes within `wait`.
    pub async fn within(&mut self, wait: Duration) -> Option<Delivery> {
        tokio::time::timeout(wait, self.got.recv())
            .await
            .ok()
            .map(|got| got.expect("the receiver runs"))
    }

    /// Every delivery that has arrived, without waiting.
    pub fn arrived(&mut self) -> Vec<Delivery> {
        std::iter::from_fn(|| self.got.try_recv().ok()).collect()
    }

    /// The next delivery, moving the manual clock on by `step` until it comes (a retry waits for its backoff).
    pub async fn next_moving(&mut self, clock: &server::ManualClock, step: u64) -> Delivery {
        for _ in 0..50 {
            clock.advance(step);
            if let Some(got) = self.within(Duration::from_millis(200)).await {
                return got;
            }
        }
        panic!("no retry came");
    }
}

/// Reads one request from `socket`, holds it `hold_ms`, answers it with `status` and hands it over.
async fn serve(
    mut socket: tokio::net::TcpStream,
    tx: mpsc::UnboundedSender<Delivery>,
    status: Arc<AtomicU16>,
    hold_ms: Arc<AtomicU64>,
) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        let n = socket.read(&mut chunk).await.unwrap_or(0);
        if n == 0 {
            return;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let headers: Vec<(String, String)> = head
        .lines()
        .skip(1)
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_lowercase(), v.trim().to_string()))
        .collect();
    let len: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .map_or(0, |(_, v)| v.parse().unwrap());
    while buf.len() < head_end + len {
        let n = socket.read(&mut chunk).await.unwrap_or(0);
        if n == 0 {
            return;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let raw = buf[head_end..head_end + len].to_vec();
    assert!(head.starts_with("POST /hook?group=7 HTTP/1.1"), "{head}");
    tokio::time::sleep(Duration::from_millis(hold_ms.load(SeqCst))).await;
    let status = status.load(SeqCst);
    let reply = format!("HTTP/1.1 {status} X\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok");
    let _ = socket.write_all(reply.as_bytes()).await;
    let body = serde_json::from_slice(&raw).unwrap();
    let _ = tx.send(Delivery { headers, body, raw });
}
