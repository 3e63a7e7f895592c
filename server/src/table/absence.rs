//! Absent players (issue 13, point 3): the lobby's policy says what happens to the seat of a player who is away.
//!
//! - `wait`: nothing (a turn timer, if set, still plays the server bot's move for an idle seat).
//! - `bot`: from `stand_in_from` on, the server plays the game's bot moves for the seat, like a bot and at the
//!   bots' pace, in every kind of step (turns, simultaneous choices, races such as the Eeek! claim).
//! - `skip`: the same, with the game's passive choice (`AnyGame::skip_action`) instead; only for games whose
//!   `can_skip` is true (`create_lobby` refuses it otherwise).
//!
//! A seat's `stand_in_from` is set when its player disconnects (to that time plus the grace period) or when the
//! turn timer ran out for it (to that time), and cleared the moment the player resumes or acts. It is stored with
//! the seat, so the takeover survives a restart; after a restart every human seat without one gets the recovery
//! time plus the grace period, since nobody is connected then. The wake-ups are derived from it and from the
//! time of the last change, like the bots'.

use protocol::{AbsenceKind, AbsencePolicy, ActedBy};
use rules::{Millis, Seat};
use tracing::{debug, error};

use super::{Occupant, Phase, Running, Table};
use crate::store::StoredAbsence;

/// A table's absence policy and the per-seat times from which the server stands in.
#[derive(Debug, Default)]
pub(crate) struct Absence {
    pub(crate) policy: AbsencePolicy,
    /// Per seat: from when the server plays for the seat's player.
    from: Vec<Option<Millis>>,
    /// What the database holds, to write only changes.
    stored: Vec<Option<Millis>>,
    /// The `stand_in` flags the last lobby push showed.
    pub(crate) shown: Vec<bool>,
    /// The "while you were away" reports of seats resumed by the command being handled, started after it
    /// (`table/away.rs`).
    pub(super) reports: Vec<super::away::AwayJob>,
}

impl Absence {
    pub(crate) fn new(seats: usize) -> Absence {
        Absence {
            policy: AbsencePolicy::default(),
            from: vec![None; seats],
            stored: vec![None; seats],
            shown: vec![false; seats],
            reports: Vec::new(),
        }
    }

    /// Downtime is not charged (`table/downtime.rs`): moves each stand-in time still ahead when one of `outages`
    /// began by that outage's length. `stored`: only the times as the database holds them, and what it holds too
    /// (the caller writes the returned seats' new times); otherwise every time in memory (`sync_absence` writes
    /// them).
    pub(crate) fn shift_stand_ins(
        &mut self,
        outages: &[crate::store::Outage],
        stored: bool,
    ) -> Vec<(u8, Option<Millis>)> {
        let mut moved = Vec::new();
        for seat in 0..self.from.len() {
            let Some(mut at) = self.from[seat] else { continue };
            if stored && self.stored[seat] != Some(at) {
                continue;
            }
            for (a, b) in outages {
                if at > *a {
                    at = at.saturating_add(b.saturating_sub(*a));
                }
            }
            if Some(at) != self.from[seat] {
                self.from[seat] = Some(at);
                if stored {
                    self.stored[seat] = Some(at);
                }
                moved.push((seat as u8, Some(at)));
            }
        }
        moved
    }

    /// Follows a change of the open lobby's seat count (no seat has a stand-in before the start).
    pub(crate) fn resize(&mut self, seats: usize) {
        self.from.resize(seats, None);
        self.stored.resize(seats, None);
        self.shown.resize(seats, false);
    }
}

/// The wire name of a policy kind, as stored.
pub(crate) fn kind_name(kind: AbsenceKind) -> &'static str {
    match kind {
        AbsenceKind::Wait => "wait",
        AbsenceKind::Bot => "bot",
        AbsenceKind::Skip => "skip",
    }
}

fn parse_kind(name: &str) -> AbsenceKind {
    match name {
        "bot" => AbsenceKind::Bot,
        "skip" => AbsenceKind::Skip,
        _ => AbsenceKind::Wait,
    }
}

impl Table {
    /// Sets the policy of a new lobby (already stored by the caller).
    pub fn with_absence_policy(mut self, policy: AbsencePolicy) -> Table {
        self.absence.policy = policy;
        self
    }

    /// Restores the policy and the stand-in times of a recovered table. Nobody is connected after a restart, so
    /// a human seat of a playing match without a stand-in time gets one from now.
    pub fn with_stored_absence(mut self, stored: StoredAbsence) -> Table {
        self.absence.policy = AbsencePolicy {
            policy: parse_kind(&stored.policy),
            grace_ms: stored.grace_ms,
        };
        for (seat, from) in stored.stand_in_from {
            let seat = seat as usize;
            if seat < self.absence.from.len() {
                self.absence.from[seat] = from;
                self.absence.stored[seat] = from;
            }
        }
        let now = self.clock.now();
        for seat in 0..self.seats.len() {
            self.mark_away(seat, now);
        }
        self.absence.shown = self.stand_in_flags(now);
        self
    }

    fn standing_in(&self) -> bool {
        self.absence.policy.policy != AbsenceKind::Wait
    }

    /// A seat's player went away at `now` (disconnected or left a started match): the server stands in after the
    /// grace period, unless it already does or will sooner.
    pub(crate) fn mark_away(&mut self, seat: usize, now: Millis) {
        if !self.standing_in() || self.phase != Phase::Playing {
            return;
        }
        if let Some(Occupant::Human { conn: None, .. }) = self.seats.get(seat)
            && self.absence.from[seat].is_none()
        {
            self.absence.from[seat] = Some(now + self.absence.policy.grace_ms);
        }
    }

    /// The turn timer ran out for `seat`: under `bot` and `skip` the server stands in from now on.
    pub(crate) fn mark_timed_out(&mut self, seat: Seat, now: Millis) {
        if !self.standing_in() {
            return;
        }
        let from = &mut self.absence.from[seat.index()];
        *from = Some(from.map_or(now, |f| f.min(now)));
    }

    /// The seat's player is back (resumed or acted): the server stops playing for them at once.
    pub(crate) fn mark_present(&mut self, seat: usize) {
        if let Some(from) = self.absence.from.get_mut(seat) {
            *from = None;
        }
    }

    /// Whether the server plays for this seat's player at `now`.
    pub(crate) fn stands_in(&self, seat: usize, now: Millis) -> bool {
        self.standing_in()
            && self.phase == Phase::Playing
            && matches!(self.seats.get(seat), Some(Occupant::Human { .. }))
            && self
                .absence
                .from
                .get(seat)
                .copied()
                .flatten()
                .is_some_and(|f| f <= now)
    }

    pub(crate) fn stand_in_flags(&self, now: Millis) -> Vec<bool> {
        (0..self.seats.len()).map(|s| self.stands_in(s, now)).collect()
    }

    /// When the server next plays for an absent seat, or next shows a stand-in starting: the later of its
    /// stand-in time and the bots' delay after the last change for a seat with something to decide, its
    /// stand-in time alone for one whose flag the lobby does not show yet.
    pub(super) fn stand_in_wake(&self, running: &Running) -> Option<Millis> {
        if !self.standing_in() {
            return None;
        }
        (0..self.seats.len())
            .filter(|s| matches!(self.seats[*s], Occupant::Human { .. }))
            .filter_map(|s| {
                let from = self.absence.from[s]?;
                let seat = Seat(s as u8);
                let acts = running.options.any(seat) && !running.game.bot_waits(seat);
                let announce = !self.absence.shown.get(s).copied().unwrap_or(false);
                match (acts, announce) {
                    (true, _) => Some(from.max(self.bot_due(running, Seat(s as u8)))),
                    (false, true) => Some(from),
                    (false, false) => None,
                }
            })
            .min()
    }

    /// The absent seats the server plays for now (they have something to decide and the bots' delay passed).
    pub(super) fn stand_ins_due(&self, running: &Running, now: Millis) -> Vec<Seat> {
        (0..self.seats.len())
            .filter(|s| self.stands_in(*s, now))
            .map(|s| Seat(s as u8))
            .filter(|s| running.options.any(*s) && !running.game.bot_waits(*s))
            .filter(|s| self.bot_due(running, *s) <= now)
            .collect()
    }

    /// Plays for an absent seat: the game's bot move (`bot`) or the game's skip (`skip`). `timed_out`: the turn
    /// timer ran out for the seat (the action is logged as the turn timer's, not the stand-in's).
    pub(crate) async fn play_stand_in(&mut self, seat: Seat, timed_out: bool) {
        let by = |stand_in| if timed_out { ActedBy::TurnTimer } else { stand_in };
        match self.absence.policy.policy {
            AbsenceKind::Skip => {
                let Some(running) = &self.running else { return };
                let Some(action) = running.game.skip_action(seat) else {
                    return;
                };
                debug!(%seat, "skipping an absent player's decision");
                if let Err(e) = self
                    .apply(
                        rules::Actor::Seat(seat),
                        by(ActedBy::Skip),
                        protocol::RawJson::from(action),
                    )
                    .await
                {
                    error!(%seat, code = e.code.as_str(), message = %e.message, "a skip action failed");
                    let now = self.clock.now();
                    self.stall(&e, now);
                }
            }
            _ => self.play_bot(seat, by(ActedBy::StandIn)).await,
        }
    }

    /// After each command or wake-up: stores the stand-in times that changed and pushes the lobby when a
    /// `stand_in` flag changed. A failed write is retried after the next command or wake-up.
    pub(crate) async fn sync_absence(&mut self) {
        let now = self.clock.now();
        for seat in 0..self.seats.len() {
            if !matches!(self.seats[seat], Occupant::Human { .. }) {
                self.absence.from[seat] = None;
            }
            if self.absence.from[seat] != self.absence.stored[seat] {
                match self
                    .store
                    .set_stand_in_from(&self.code, seat as u8, self.absence.from[seat])
                    .await
                {
                    Ok(()) => self.absence.stored[seat] = self.absence.from[seat],
                    Err(e) => error!(error = %e, seat, "storing a stand-in time failed"),
                }
            }
        }
        let flags = self.stand_in_flags(now);
        if flags != self.absence.shown {
            self.absence.shown = flags;
            self.push_lobby_to_all();
        }
    }
}
