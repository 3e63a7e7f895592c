//! Injected time. The match tasks read "now" and wait for deadlines only through a [`Clock`], so tests can hold
//! time still and move it forward on purpose instead of sleeping.

use std::{
    fmt,
    future::Future,
    pin::Pin,
    sync::Arc,
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use rules::Millis;
use tokio::sync::watch;

pub type Sleep = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

/// A source of Unix-millisecond time and of timers on that time.
pub trait Clock: Send + Sync + fmt::Debug + 'static {
    fn now(&self) -> Millis;
    /// Completes once `now() >= at`.
    fn sleep_until(&self, at: Millis) -> Sleep;
}

pub type SharedClock = Arc<dyn Clock>;

/// Wall-clock time (production).
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Millis {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as Millis)
    }

    fn sleep_until(&self, at: Millis) -> Sleep {
        let wait = at.saturating_sub(self.now());
        Box::pin(async move {
            tokio::time::sleep(Duration::from_millis(wait)).await;
            // A wall clock may be a little behind the timer: wait out the rest.
            loop {
                let left = at.saturating_sub(SystemClock.now());
                if left == 0 {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(left)).await;
            }
        })
    }
}

/// A clock that only moves when told to (tests).
#[derive(Clone, Debug)]
pub struct ManualClock {
    now: Arc<watch::Sender<Millis>>,
}

impl ManualClock {
    pub fn new(start: Millis) -> Self {
        ManualClock {
            now: Arc::new(watch::Sender::new(start)),
        }
    }

    /// Moves time forward to `at` (never backwards).
    pub fn set(&self, at: Millis) {
        self.now.send_modify(|now| *now = (*now).max(at));
    }

    pub fn advance(&self, by: Millis) {
        self.now.send_modify(|now| *now += by);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Millis {
        *self.now.borrow()
    }

    fn sleep_until(&self, at: Millis) -> Sleep {
        let mut rx = self.now.subscribe();
        Box::pin(async move {
            // The sender lives as long as the clock; if it is gone, time stops and so does the wait.
            if rx.wait_for(|now| *now >= at).await.is_err() {
                std::future::pending::<()>().await;
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn manual_clock_wakes_sleepers_when_moved_past_their_time() {
        let clock = ManualClock::new(1_000);
        let mut sleep = clock.sleep_until(1_500);
        assert!(futures_util::FutureExt::now_or_never(&mut sleep).is_none());
        clock.advance(499);
        assert!(futures_util::FutureExt::now_or_never(&mut sleep).is_none());
        clock.set(1_500);
        sleep.await;
        clock.set(10);
        assert_eq!(clock.now(), 1_500, "time never goes back");
    }
}
