//! What the table does by itself, computed from the state alone so that a restart re-arms the same deadlines:
//! the engine's deadline (played as the clock's action), bots acting one at a time after their delay, and the turn
//! timer playing the server bot's move for the seats that must decide, and a correspondence clock that ran out
//! (its stall policy, `clocks.rs`). An action of its own that the engine
//! refuses stalls the table until the state changes; one the database fails to store is tried again later.

use protocol::{ActedBy, ErrorBody, ErrorCode, RawJson};
use rules::{Actor, AnyGame, Millis, Seat, Status};
use tracing::{debug, error};

use super::{Occupant, RETRY_AFTER_MS, Running, Table};
use crate::store::Phase;

impl Table {
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
            .filter(|s| running.options.any(*s) && !running.game.bot_waits(*s))
            .collect()
    }

    /// When the bot (or stand-in) playing `seat` acts: at the moment the game sets (a human-like reaction in a
    /// race, `Game::bot_acts_at`), otherwise the bots' delay after the last change.
    pub(super) fn bot_due(&self, running: &Running, seat: Seat) -> Millis {
        let base = running.last_change;
        match running.game.bot_acts_at(seat) {
            Some(at) => self.rebased(base, at),
            None => self.served_until(base, self.settings.bot_delay_ms),
        }
    }

    pub(super) fn timed_seats(&self, running: &Running) -> Vec<Seat> {
        Self::seats_deciding(&running.game)
            .into_iter()
            .filter(|s| matches!(self.seats.get(s.index()), Some(Occupant::Human { .. })))
            .filter(|s| running.options.any(*s))
            // The server already plays for an absent seat at the bots' pace.
            .filter(|s| !self.stands_in(s.index(), self.clock.now()))
            .collect()
    }

    /// The engine's deadline, moved later by the outages since the last action (downtime is not charged).
    pub(super) fn engine_deadline(&self, running: &Running) -> Option<Millis> {
        let at = running.game.deadline()?.at;
        Some(self.rebased(running.last_change, at))
    }

    pub(super) fn turn_deadline(&self, running: &Running) -> Option<Millis> {
        let timer = self.turn_timer_ms?;
        (!self.timed_seats(running).is_empty()).then(|| self.served_until(running.last_change, timer))
    }

    /// The next time this table must act by itself: the engine's deadline, a bot's move, or the turn timer.
    /// Derived from the state alone, so it is re-armed unchanged after a restart.
    pub(super) fn next_wake(&self, now: Millis) -> Option<Millis> {
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
        let engine = self.engine_deadline(running);
        let bots = self
            .bot_seats_to_act(running)
            .into_iter()
            .map(|seat| self.bot_due(running, seat))
            .min();
        let wake = [
            engine,
            bots,
            self.turn_deadline(running),
            self.stand_in_wake(running),
            self.clock_out_at().map(|(at, _)| at),
            self.clock_low_at().map(|(at, _)| at),
        ]
        .into_iter()
        .flatten()
        .min()?;
        Some(wake.max(self.not_before))
    }

    pub(super) async fn on_timer(&mut self) {
        let now = self.clock.now();
        self.publish_presence(now);
        let Some(running) = &self.running else { return };
        if let Some(deadline) = running
            .game
            .deadline()
            .filter(|d| self.rebased(running.last_change, d.at) <= now)
        {
            if let Err(e) = self
                .apply(Actor::Clock, ActedBy::Clock, RawJson::from(deadline.action))
                .await
            {
                error!(code = e.code.as_str(), message = %e.message, "the deadline action failed");
                self.stall(&e, now);
            }
            return;
        }
        let bot = self
            .bot_seats_to_act(running)
            .into_iter()
            .map(|seat| (self.bot_due(running, seat), seat))
            .filter(|(at, _)| *at <= now)
            .min();
        if let Some((_, seat)) = bot {
            self.play_bot(seat, ActedBy::Bot).await;
            return;
        }
        if let Some(seat) = self.stand_ins_due(running, now).first().copied() {
            self.play_stand_in(seat, false).await;
            return;
        }
        // A correspondence clock that ran out: the lobby's stall policy (`table/clocks.rs`).
        if self.on_clock_out(now).await || self.on_clock_low(now).await {
            return;
        }
        let Some(running) = &self.running else { return };
        if self.turn_deadline(running).is_some_and(|at| at <= now) {
            for seat in self.timed_seats(running) {
                if self.absence.policy.policy == protocol::AbsenceKind::Skip {
                    self.play_stand_in(seat, true).await;
                } else {
                    self.play_bot(seat, ActedBy::TurnTimer).await;
                }
                self.mark_timed_out(seat, now);
            }
        }
    }

    /// After an action the table took by itself failed: if the database failed, try again a second later; if
    /// the engine refused (a bug), stop acting by itself until the state changes (see `Running::stalled_at`).
    pub(super) fn stall(&mut self, error: &ErrorBody, now: Millis) {
        if matches!(
            error.code,
            ErrorCode::Internal | ErrorCode::StoreUnavailable | ErrorCode::StaleVersion
        ) {
            self.not_before = now + RETRY_AFTER_MS;
        } else if let Some(running) = &mut self.running {
            running.stalled_at = Some(running.version);
        }
    }

    /// Plays the game's bot move for `seat` (`Game::bot_action`): a bot's move, a stand-in's, or the turn
    /// timer's for an idle seat; `by` says which (logged with the action).
    pub(super) async fn play_bot(&mut self, seat: Seat, by: ActedBy) {
        let why = by.as_str();
        let Some(running) = &self.running else { return };
        let Some(action) = running.game.bot_action(seat, &mut self.rng) else {
            return;
        };
        debug!(%seat, why, "playing the bot's move");
        if let Err(e) = self.apply(Actor::Seat(seat), by, RawJson::from(action)).await {
            error!(%seat, why, code = e.code.as_str(), message = %e.message, "the bot's legal action failed");
            let now = self.clock.now();
            self.stall(&e, now);
        }
    }
}
