//! Limits on guessing join codes. A look-up that finds nothing (`unknown_lobby`, or a wrong seat or watch token)
//! is a failure; failures are counted per client address and in total on this node, each in a token bucket. While
//! either bucket is empty, a code-only look-up (`join_lobby`, `spectate` without a watch token) is refused
//! `rate_limited` before anything is looked up, with the seconds to wait. A look-up that carries a secret
//! (`resume` with its seat token, `spectate` with a watch token) still goes through, so that players get back to
//! their tables during an attack, but its failure is answered `rate_limited` too: it says nothing about the code.
//!
//! Cluster mode: each node counts the look-ups it answers (a relayed request counts at the node that serves it,
//! under the client's address it carries), so the total allowance is this node's times the number of nodes.

use std::{collections::HashMap, net::IpAddr, sync::Mutex, time::Duration};

use protocol::{ErrorBody, ErrorCode};
use tokio::time::Instant;

/// How many failed look-ups are allowed, per address and on the whole node.
#[derive(Clone, Debug)]
pub struct GuessLimits {
    /// Failures one address may make at once.
    pub per_ip_burst: f64,
    /// Failures per minute one address gets back.
    pub per_ip_per_min: f64,
    /// Failures this node allows at once, from everyone.
    pub total_burst: f64,
    /// Failures per second this node allows, from everyone.
    pub total_per_sec: f64,
}

/// A token bucket of failures.
#[derive(Clone, Debug)]
struct Bucket {
    tokens: f64,
    last: Instant,
}

impl Bucket {
    fn full(burst: f64, now: Instant) -> Bucket {
        Bucket {
            tokens: burst,
            last: now,
        }
    }

    fn refill(&mut self, rate_per_sec: f64, burst: f64, now: Instant) {
        self.tokens = (self.tokens + now.duration_since(self.last).as_secs_f64() * rate_per_sec).min(burst);
        self.last = now;
    }

    /// How long until one failure is allowed again (zero if it is now).
    fn wait(&self, rate_per_sec: f64) -> Duration {
        if self.tokens >= 1.0 {
            Duration::ZERO
        } else {
            Duration::from_secs_f64((1.0 - self.tokens) / rate_per_sec.max(f64::MIN_POSITIVE))
        }
    }

    fn spend(&mut self) {
        self.tokens = (self.tokens - 1.0).max(0.0);
    }

    fn give_back(&mut self, burst: f64) {
        self.tokens = (self.tokens + 1.0).min(burst);
    }
}

/// The node's failed look-ups (see the module's documentation).
#[derive(Debug)]
pub struct Guesses {
    limits: GuessLimits,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    total: Bucket,
    per_ip: HashMap<IpAddr, Bucket>,
    /// Forget refilled addresses when the map grows past this (doubled after each sweep).
    sweep_at: usize,
}

/// A look-up [`Guesses::check`] allowed, for [`Guesses::settle`] with its outcome.
#[derive(Debug)]
pub struct Guess {
    /// Within the limits: one failure was spent ahead, and is given back if the look-up finds its lobby, so that
    /// look-ups in flight at once cannot pass the limits together.
    reserved: bool,
    /// Over a limit, let through because it carries a secret: its failure is answered with this.
    over: Option<ErrorBody>,
}

/// Addresses remembered before the first sweep of refilled ones.
const SWEEP_FROM: usize = 1024;

impl Guesses {
    pub fn new(limits: GuessLimits) -> Guesses {
        let now = Instant::now();
        Guesses {
            state: Mutex::new(State {
                total: Bucket::full(limits.total_burst, now),
                per_ip: HashMap::new(),
                sweep_at: SWEEP_FROM,
            }),
            limits,
        }
    }

    fn per_ip_rate(&self) -> f64 {
        self.limits.per_ip_per_min / 60.0
    }

    /// Before a look-up by code from `ip`: `Err` refuses it (`rate_limited`, with when to retry); `Ok` lets it
    /// through, and its outcome must go to [`Guesses::settle`]. A look-up that carries a secret is let through
    /// even over a limit.
    pub fn check(&self, ip: Option<IpAddr>, carries_secret: bool) -> Result<Guess, ErrorBody> {
        // One IPv6 host is given a whole /64: count it as one address (idempotent on an admission's key).
        let ip = ip.map(crate::proxy::limit_key);
        let now = Instant::now();
        let mut state = self.state.lock().expect("guesses lock");
        let (rate, burst) = (self.per_ip_rate(), self.limits.per_ip_burst);
        state
            .total
            .refill(self.limits.total_per_sec, self.limits.total_burst, now);
        let mut refusal = None;
        if let Some(ip) = ip
            && let Some(bucket) = state.per_ip.get_mut(&ip)
        {
            bucket.refill(rate, burst, now);
            let wait = bucket.wait(rate);
            if !wait.is_zero() {
                refusal = Some(limited(
                    wait,
                    "too many look-ups of lobby codes that do not exist from your address",
                ));
            }
        }
        if refusal.is_none() {
            let wait = state.total.wait(self.limits.total_per_sec);
            if !wait.is_zero() {
                refusal = Some(limited(
                    wait,
                    "too many look-ups of lobby codes that do not exist on this server (someone is guessing codes)",
                ));
            }
        }
        match refusal {
            None => {
                Self::spend(&mut state, ip, rate, burst, now);
                Ok(Guess {
                    reserved: true,
                    over: None,
                })
            }
            Some(refusal) if carries_secret => Ok(Guess {
                reserved: false,
                over: Some(refusal),
            }),
            Some(refusal) => Err(refusal),
        }
    }

    /// After a look-up by code from `ip` that [`Guesses::check`] let through: a failure (`unknown_lobby`, or
    /// `unauthorized`: a wrong seat or watch token) counts, and is answered `rate_limited` if the look-up was let
    /// through over a limit; a found lobby costs nothing.
    pub fn settle<T>(
        &self,
        ip: Option<IpAddr>,
        guess: Guess,
        result: Result<T, ErrorBody>,
    ) -> Result<T, ErrorBody> {
        let ip = ip.map(crate::proxy::limit_key);
        let failed =
            matches!(&result, Err(e) if matches!(e.code, ErrorCode::UnknownLobby | ErrorCode::Unauthorized));
        let now = Instant::now();
        let (rate, burst) = (self.per_ip_rate(), self.limits.per_ip_burst);
        match (failed, guess.reserved) {
            (true, false) => Self::spend(
                &mut self.state.lock().expect("guesses lock"),
                ip,
                rate,
                burst,
                now,
            ),
            (false, true) => {
                let mut state = self.state.lock().expect("guesses lock");
                let total_burst = self.limits.total_burst;
                state.total.give_back(total_burst);
                if let Some(bucket) = ip.and_then(|ip| state.per_ip.get_mut(&ip)) {
                    bucket.give_back(burst);
                }
            }
            _ => {}
        }
        match (result, guess.over) {
            (Err(_), Some(refusal)) if failed => Err(refusal),
            (result, _) => result,
        }
    }

    /// Spends one failure of the node's allowance and of `ip`'s.
    fn spend(state: &mut State, ip: Option<IpAddr>, rate: f64, burst: f64, now: Instant) {
        state.total.spend();
        let Some(ip) = ip else { return };
        let bucket = state.per_ip.entry(ip).or_insert_with(|| Bucket::full(burst, now));
        bucket.refill(rate, burst, now);
        bucket.spend();
        // An address whose bucket is full again is the same as one never seen. The map holds only addresses that
        // failed (or are looking up) within the time a bucket takes to refill, and every failure also spends the
        // node's allowance: at most about `total_burst + total_per_sec * refill time` addresses.
        if state.per_ip.len() >= state.sweep_at {
            state.per_ip.retain(|_, b| {
                b.refill(rate, burst, now);
                b.tokens < burst
            });
            state.sweep_at = (state.per_ip.len() * 2).max(SWEEP_FROM);
        }
    }

    /// Addresses with failures still counted (for tests).
    #[cfg(test)]
    fn remembered(&self) -> usize {
        self.state.lock().expect("guesses lock").per_ip.len()
    }
}

fn limited(wait: Duration, what: &str) -> ErrorBody {
    let secs = wait.as_secs_f64().ceil().max(1.0) as u64;
    ErrorBody::new(
        ErrorCode::RateLimited,
        format!("{what}; nothing was looked up: try again in {secs} s"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> GuessLimits {
        GuessLimits {
            per_ip_burst: 3.0,
            per_ip_per_min: 6.0,
            total_burst: 5.0,
            total_per_sec: 0.5,
        }
    }

    fn unknown() -> Result<(), ErrorBody> {
        Err(ErrorBody::new(ErrorCode::UnknownLobby, "no lobby"))
    }

    fn guess(g: &Guesses, ip: IpAddr, carries_secret: bool) -> Result<(), ErrorBody> {
        let guess = g.check(Some(ip), carries_secret)?;
        g.settle(Some(ip), guess, unknown())
    }

    #[tokio::test(start_paused = true)]
    async fn an_address_gets_its_allowance_then_waits_for_it() {
        let g = Guesses::new(limits());
        let (a, b): (IpAddr, IpAddr) = ("192.0.2.1".parse().unwrap(), "192.0.2.2".parse().unwrap());
        for _ in 0..3 {
            assert_eq!(guess(&g, a, false).unwrap_err().code, ErrorCode::UnknownLobby);
        }
        let refused = guess(&g, a, false).unwrap_err();
        assert_eq!(refused.code, ErrorCode::RateLimited);
        assert!(
            refused.message.contains("try again in 10 s"),
            "{}",
            refused.message
        );
        // Another address is not held back by this one, and a found lobby costs nothing.
        assert_eq!(guess(&g, b, false).unwrap_err().code, ErrorCode::UnknownLobby);
        assert!(
            g.settle(Some(b), g.check(Some(b), false).unwrap(), Ok(()))
                .is_ok()
        );
        // 6 a minute: one back every 10 s.
        tokio::time::advance(Duration::from_secs(10)).await;
        assert_eq!(guess(&g, a, false).unwrap_err().code, ErrorCode::UnknownLobby);
        assert_eq!(guess(&g, a, false).unwrap_err().code, ErrorCode::RateLimited);
    }

    #[tokio::test(start_paused = true)]
    async fn the_node_total_holds_back_every_address() {
        let g = Guesses::new(limits());
        for i in 0..5u8 {
            let ip = IpAddr::from([198, 51, 100, i]);
            assert_eq!(guess(&g, ip, false).unwrap_err().code, ErrorCode::UnknownLobby);
        }
        let fresh = IpAddr::from([203, 0, 113, 9]);
        let refused = g.check(Some(fresh), false).unwrap_err();
        assert_eq!(refused.code, ErrorCode::RateLimited);
        assert!(
            refused.message.contains("try again in 2 s"),
            "{}",
            refused.message
        );
        assert_eq!(g.check(None, false).unwrap_err().code, ErrorCode::RateLimited);
        // A look-up with a secret still goes through: it succeeds if right, and is answered `rate_limited` if wrong.
        let over = g.check(Some(fresh), true).unwrap();
        assert!(over.over.is_some());
        assert!(g.settle(Some(fresh), over, Ok(())).is_ok());
        let over = g.check(Some(fresh), true).unwrap();
        let wrong = Err::<(), _>(ErrorBody::new(ErrorCode::Unauthorized, "wrong token"));
        assert_eq!(
            g.settle(Some(fresh), over, wrong).unwrap_err().code,
            ErrorCode::RateLimited
        );
        tokio::time::advance(Duration::from_secs(2)).await;
        assert!(g.check(Some(fresh), false).unwrap().over.is_none());
    }

    /// Look-ups in flight at once each hold a failure until they are settled: together they cannot pass the
    /// allowance (64 connections of one address got 78 answers in 10 s before this), and found lobbies give it back.
    #[tokio::test(start_paused = true)]
    async fn look_ups_in_flight_together_cannot_pass_the_allowance() {
        let g = Guesses::new(limits());
        let ip: IpAddr = "192.0.2.1".parse().unwrap();
        let in_flight: Vec<Guess> = (0..3).map(|_| g.check(Some(ip), false).unwrap()).collect();
        assert_eq!(g.check(Some(ip), false).unwrap_err().code, ErrorCode::RateLimited);
        for guess in in_flight {
            assert!(g.settle(Some(ip), guess, Ok(())).is_ok());
        }
        for _ in 0..3 {
            assert_eq!(guess(&g, ip, false).unwrap_err().code, ErrorCode::UnknownLobby);
        }
        assert_eq!(guess(&g, ip, false).unwrap_err().code, ErrorCode::RateLimited);
    }

    #[tokio::test(start_paused = true)]
    async fn refilled_addresses_are_forgotten() {
        let g = Guesses::new(GuessLimits {
            total_burst: 1e9,
            total_per_sec: 1e9,
            ..limits()
        });
        for i in 0..SWEEP_FROM as u32 - 1 {
            let _ = guess(
                &g,
                IpAddr::from(std::net::Ipv4Addr::from(0x0a00_0000u32 + i)),
                false,
            );
        }
        assert_eq!(g.remembered(), SWEEP_FROM - 1);
        tokio::time::advance(Duration::from_secs(60)).await;
        let _ = guess(&g, "192.0.2.1".parse().unwrap(), false);
        assert_eq!(g.remembered(), 1, "only the address that just failed");
    }
}
