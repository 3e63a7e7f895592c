//! The worker: claims the outbox's due rows, sends each through its channel with the notification's id, and
//! deletes it once delivered. A failed delivery is tried again after an exponential backoff (capped); an
//! endpoint that fails [`WorkerSettings::switch_off_after`] times in a row, or for good (410 Gone), is switched
//! off for its seat, and the seat is told wherever its table is served (`tell.rs`). Rate limits per seat and per
//! endpoint postpone a delivery, never drop it; they are counted in the store (`Store::reserve_delivery`), so
//! they hold for the cluster as a whole, whichever node's worker sends.
//!
//! At least once: a row stays until its delivery succeeded, so a crash between the commit and the send (or
//! between the send and the delete) sends it after the restart; receivers drop a repeat by its id. In cluster
//! mode each node runs a worker and a row is claimed by one of them at a time (`Store::claim_outbox`); a claim
//! expires, so the rows of a node that died are sent by another.

use std::sync::Arc;
use std::time::Duration;

use protocol::{NotifyKind, NotifyLanguage};
use tokio::sync::watch;
use tracing::{debug, warn};

use super::tell::Teller;
use super::{Channels, Endpoint, Notification, SendError, send, words};
use crate::clock::SharedClock;
use crate::store::{OutboxRow, RateLimits, Store, StoredEndpoint};

/// Rows claimed at once.
const CLAIM_BATCH: usize = 32;
/// How long a claim keeps other nodes off a row (longer than a delivery's timeout).
const CLAIM_MS: u64 = 30_000;

/// The worker's settings (`Config`).
#[derive(Clone, Debug)]
pub struct WorkerSettings {
    pub public_url: String,
    pub retry_base_ms: u64,
    pub retry_max_ms: u64,
    pub switch_off_after: u32,
    /// Deliveries per endpoint, and per seat (all its endpoints), within a window.
    pub limits: RateLimits,
    /// How often the outbox is looked at.
    pub poll: Duration,
}

/// Starts the worker; it stops when `stop` turns true.
pub fn spawn(
    store: Store,
    clock: SharedClock,
    tell: Teller,
    channels: Arc<Channels>,
    settings: WorkerSettings,
    stop: watch::Receiver<bool>,
) {
    let mut worker = Worker {
        store,
        clock,
        tell,
        channels,
        settings,
        pruned_at: 0,
    };
    tokio::spawn(async move { worker.run(stop).await });
}

struct Worker {
    store: Store,
    clock: SharedClock,
    tell: Teller,
    channels: Arc<Channels>,
    settings: WorkerSettings,
    /// When this worker last forgot the deliveries older than the rate window.
    pruned_at: u64,
}

impl Worker {
    async fn run(&mut self, mut stop: watch::Receiver<bool>) {
        loop {
            if *stop.borrow() {
                return;
            }
            let now = self.clock.now();
            self.prune(now).await;
            let rows = match self.store.claim_outbox(now, now + CLAIM_MS, CLAIM_BATCH).await {
                Ok(rows) => rows,
                Err(e) => {
                    warn!(error = %e, "the notification outbox could not be read");
                    Vec::new()
                }
            };
            let busy = rows.len() == CLAIM_BATCH;
            for row in rows {
                self.deliver(row).await;
            }
            if !busy {
                tokio::select! {
                    () = tokio::time::sleep(self.settings.poll) => {}
                    _ = stop.changed() => {}
                }
            }
        }
    }

    /// Forgets the deliveries that left the rate window, once per window.
    async fn prune(&mut self, now: u64) {
        let window = self.settings.limits.window_ms;
        if now < self.pruned_at.saturating_add(window) {
            return;
        }
        self.pruned_at = now;
        if let Err(e) = self.store.prune_sent(now.saturating_sub(window)).await {
            warn!(error = %e, "the notifications' delivery counts could not be pruned");
        }
    }

    async fn deliver(&mut self, row: OutboxRow) {
        let now = self.clock.now();
        let reserved = self
            .store
            .reserve_delivery(
                row.endpoint.id,
                &row.lobby_code,
                row.seat,
                now,
                &self.settings.limits,
            )
            .await
            // Not counted: tried again after the claim (a store that fails now sends nothing now).
            .unwrap_or_else(|e| {
                warn!(error = %e, "a notification's rate limits could not be checked");
                Some(now + CLAIM_MS)
            });
        if let Some(free_at) = reserved {
            debug!(outbox = row.id, "notification postponed by its rate limit");
            if let Err(e) = self.store.outbox_postponed(row.id, free_at).await {
                warn!(error = %e, "a notification could not be postponed");
            }
            return;
        }
        let result = match (
            notification_of(&row, &self.settings.public_url),
            endpoint_of(&row.endpoint),
        ) {
            (Some(notification), Some(endpoint)) => send(&self.channels, &endpoint, &notification).await,
            _ => Err(SendError::Permanent("this notification cannot be read".into())),
        };
        let written = match &result {
            Ok(()) => self
                .store
                .outbox_delivered(row.id, row.endpoint.id)
                .await
                .map(|()| false),
            Err(e) => {
                let retry_at = self.clock.now() + backoff(&self.settings, row.attempts);
                self.store
                    .outbox_failed(
                        row.id,
                        row.endpoint.id,
                        retry_at,
                        &e.to_string(),
                        e.is_permanent(),
                        self.settings.switch_off_after,
                    )
                    .await
            }
        };
        match written {
            Ok(true) => {
                warn!(
                    channel = %row.endpoint.channel,
                    endpoint = row.endpoint.id,
                    "a notification endpoint kept failing and was switched off"
                );
                self.tell.endpoints_changed(&row.lobby_code, row.seat).await;
            }
            Ok(false) => {}
            Err(e) => warn!(error = %e, "a notification's delivery could not be recorded"),
        }
    }
}

/// The wait before try `attempts + 2`: the base doubled per earlier failure, capped.
pub fn backoff(settings: &WorkerSettings, attempts: u32) -> u64 {
    settings
        .retry_base_ms
        .saturating_mul(1u64 << attempts.min(30))
        .min(settings.retry_max_ms)
}

/// The notification a row carries, in its endpoint's language.
fn notification_of(row: &OutboxRow, public_url: &str) -> Option<Notification> {
    let kind = NotifyKind::from_code(&row.kind)?;
    let language = NotifyLanguage::from_code(&row.endpoint.language).unwrap_or_default();
    let game = rules::catalogue()
        .into_iter()
        .find(|g| g.id == row.game)
        .map_or_else(|| row.game.clone(), |g| g.name.to_owned());
    let (title, body) = words::words(language, kind, &game, &row.lobby_code);
    Some(Notification {
        id: uuid::Uuid::parse_str(&row.notification_id).ok()?,
        kind,
        lobby_code: row.lobby_code.clone(),
        game,
        seat: row.seat,
        language,
        link: words::link(public_url, &row.lobby_code),
        title,
        body,
        at_ms: row.created_at,
    })
}

/// A stored endpoint as its channel takes it.
pub fn endpoint_of(e: &StoredEndpoint) -> Option<Endpoint> {
    Some(match e.channel.as_str() {
        "webhook" => Endpoint::Webhook {
            url: e.target.clone(),
            secret: e.secret.clone()?,
        },
        "web_push" => Endpoint::WebPush {
            endpoint: e.target.clone(),
            p256dh: e.secret.clone()?,
            auth: e.auth.clone()?,
        },
        "email" => Endpoint::Email {
            address: e.target.clone(),
        },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_backoff_doubles_up_to_its_cap() {
        let settings = WorkerSettings {
            public_url: String::new(),
            retry_base_ms: 1_000,
            retry_max_ms: 10_000,
            switch_off_after: 5,
            limits: RateLimits {
                per_endpoint: 10,
                per_seat: 20,
                window_ms: 60_000,
            },
            poll: Duration::from_millis(100),
        };
        let waits: Vec<u64> = (0..6).map(|a| backoff(&settings, a)).collect();
        assert_eq!(waits, [1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
    }
}
