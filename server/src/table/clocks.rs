//! Correspondence clocks (issue 47, point 1). A correspondence lobby's match gives every seat a bank of time that
//! runs while that seat must decide (`Table::seats_deciding`: its turn, or its part of a simultaneous step, each
//! seat its own clock; a race is the engine's own deadline and charges nobody). When an action commits, every
//! running bank loses the time it used ([`Table::charged_ms`], the one place time used is measured), and the
//! acting seat gains the pace's `move_ms`, up to `bank_cap_ms`, if the action ends its decision: once per turn, as
//! on BGA and Rally the Troops, not once per action (a Quacks brew of many draws is one decision). When a running
//! bank reaches zero, the table's wake-up applies the lobby's stall policy: the bot plays for the seat (logged as
//! `turn_timer`; with the bank empty until the decision ends, it plays the decision out), the seat's decision is
//! skipped (`skip`), or the match ends as timed out (`end`: match status `timed_out`, lobby `timed_out` naming the
//! seat).
//!
//! A seat's player may pause their own clock for a few days a month (`vacation`): the time before the vacation is
//! charged at once and the bank runs again from its end (its `since` is then in the future).
//!
//! Derived from what is stored: each action's row carries the clocks after it (`actions.clocks`, in the group
//! commit's one INSERT), a vacation writes the clocks it changed beside the seat's vacation (`matches.clocks`,
//! with the version it follows), and a match without either starts from its start time. A live match keeps none.

use protocol::{ActedBy, ErrorBody, ErrorCode, Pace, RawJson, SeatClock, StallPolicy};
use rules::{Actor, AnyGame, Millis, Seat};
use serde::{Deserialize, Serialize};
use tracing::{debug, error, info, warn};

use super::{Occupant, Phase, RETRY_AFTER_MS, Table, err, internal};
use crate::store::{StoreError, StoredClocks, StoredVacation, Unfinished};

pub(super) const DAY_MS: Millis = 24 * 60 * 60 * 1_000;

/// One seat's bank: `left` ms as of `since`, from when it runs (`None`: it does not run; a `since` in the future:
/// it runs from then, the end of a vacation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Bank {
    pub(crate) left: Millis,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) since: Option<Millis>,
    /// While the seat must decide: the version from which it has, and its bank then (the 80 % reminder's base).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) turn: Option<Turn>,
}

/// The start of a seat's current decision: the match's version then and the bank it had.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Turn {
    pub(crate) from: u64,
    pub(crate) left: Millis,
}

/// The reminder comes when this share of the bank a decision began with is used (issue 47: "passes 80 %").
const REMIND_AT_PERCENT: Millis = 80;

/// The clocks after a vacation, with the version they follow (`matches.clocks`).
#[derive(Debug, Serialize, Deserialize)]
struct AfterVacation {
    version: u64,
    banks: Vec<Bank>,
}

/// A table's pace and, in a correspondence match, every seat's bank and vacation.
#[derive(Debug, Default)]
pub(crate) struct Clocks {
    pub(crate) pace: Pace,
    /// Per seat; empty outside a correspondence match.
    banks: Vec<Bank>,
    vacations: Vec<Option<StoredVacation>>,
    /// The seat whose clock ran out when the match ended as timed out.
    pub(crate) timed_out: Option<Seat>,
    /// No clock stalls the table before this (after a failed write).
    retry_at: Millis,
    /// Per seat: the decision (its `Turn::from`) whose 80 % reminder this process has written.
    reminded: Vec<Option<u64>>,
}

impl Clocks {
    pub(crate) fn new(pace: Pace) -> Clocks {
        Clocks {
            pace,
            ..Clocks::default()
        }
    }

    /// `(move_ms, bank_cap_ms, stall)` of a correspondence pace.
    pub(super) fn correspondence(&self) -> Option<(Millis, Millis, StallPolicy)> {
        match self.pace {
            Pace::Live => None,
            Pace::Correspondence {
                move_ms,
                bank_cap_ms,
                stall,
            } => Some((move_ms, bank_cap_ms, stall)),
        }
    }

    fn vacation_until(&self, seat: usize, now: Millis) -> Option<Millis> {
        self.vacations
            .get(seat)
            .copied()
            .flatten()
            .map(|v| v.until)
            .filter(|until| *until > now)
    }

    /// When a seat that starts deciding at `now` starts running: now, or the end of its vacation.
    fn run_from(&self, seat: usize, now: Millis) -> Millis {
        self.vacation_until(seat, now).unwrap_or(now)
    }
}

/// The calendar month (UTC) of a Unix time in milliseconds, as `year * 12 + month - 1`.
pub(crate) fn month_of(at: Millis) -> u32 {
    // Howard Hinnant's civil_from_days.
    let z = (at / DAY_MS) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year * 12 + month - 1) as u32
}

/// Checks a pace asked for a lobby of a game that can (or cannot) skip, with its turn timer and absence policy.
pub(crate) fn check_pace(
    pace: &Pace,
    can_skip: bool,
    turn_timer_ms: Option<u64>,
    absent: protocol::AbsencePolicy,
) -> Result<(), ErrorBody> {
    let Pace::Correspondence {
        move_ms,
        bank_cap_ms,
        stall,
    } = *pace
    else {
        return Ok(());
    };
    let bad = |message: String| Err(err(ErrorCode::BadOptions, message));
    if !(protocol::MIN_MOVE_MS..=protocol::MAX_MOVE_MS).contains(&move_ms) {
        return bad(format!(
            "`pace.move_ms` must be between {} (1 hour) and {} (14 days), not {move_ms}",
            protocol::MIN_MOVE_MS,
            protocol::MAX_MOVE_MS
        ));
    }
    if !(move_ms..=protocol::MAX_BANK_CAP_MS).contains(&bank_cap_ms) {
        return bad(format!(
            "`pace.bank_cap_ms` must be at least `pace.move_ms` ({move_ms}) and at most {} (30 days), not {bank_cap_ms}",
            protocol::MAX_BANK_CAP_MS
        ));
    }
    if stall == StallPolicy::Skip && !can_skip {
        return bad(
            "this game cannot skip a decision (see can_skip in GET /api/games): `pace.stall` must be bot or end"
                .into(),
        );
    }
    if turn_timer_ms.is_some() {
        return bad("a correspondence lobby has no turn timer: leave `turn_timer_ms` out".into());
    }
    if absent.policy != protocol::AbsenceKind::Wait {
        return bad(
            "a correspondence lobby waits for its absent players until their clock runs out: `absent` must be wait"
                .into(),
        );
    }
    Ok(())
}

impl Table {
    /// Sets every seat's bank at a correspondence match's start (or its recovery before any action): `move_ms`
    /// each, running for the seats that must decide.
    pub(super) fn start_clocks(&mut self, game: &AnyGame, at: Millis) {
        let Some((move_ms, ..)) = self.clocks.correspondence() else {
            self.clocks.banks.clear();
            return;
        };
        let deciding = Self::seats_deciding(game);
        let seats = self.seats.len();
        self.clocks.vacations.resize(seats, None);
        let version = self.version();
        self.clocks.banks = (0..seats)
            .map(|s| {
                let decides = deciding.contains(&Seat(s as u8));
                Bank {
                    left: move_ms,
                    since: decides.then(|| self.clocks.run_from(s, at)),
                    turn: decides.then_some(Turn {
                        from: version,
                        left: move_ms,
                    }),
                }
            })
            .collect();
    }

    /// The banks after `actor`'s action at `now` leads to `next`, as the text its row stores; `None` in a live
    /// match. Every running clock is charged the time it used. The acting seat gains `move_ms` (capped) once per
    /// decision, when its action ends it: after it the seat no longer decides, or a new step began (a seat that
    /// was not deciding starts to, as when the last brewer's stop opens the buying). A seat's actions within one
    /// decision (Quacks' draws) gain nothing. A seat that starts deciding starts running and a new decision.
    pub(super) fn clocks_after(
        &self,
        next: &AnyGame,
        actor: Actor,
        now: Millis,
    ) -> Option<(Vec<Bank>, String)> {
        let (move_ms, cap, _) = self.clocks.correspondence()?;
        if self.clocks.banks.is_empty() {
            return None;
        }
        let deciding = Self::seats_deciding(next);
        // A seat that was not deciding (its bank not running) starts to.
        let step_began = deciding.iter().any(|seat| {
            self.clocks
                .banks
                .get(seat.index())
                .is_some_and(|b| b.since.is_none())
        });
        let banks: Vec<Bank> = (0..self.clocks.banks.len())
            .map(|s| {
                let mut bank = self.clocks.banks[s];
                let seat = Seat(s as u8);
                let decides = deciding.contains(&seat);
                // The acting seat's decision ends here, and (if it decides again) a new one begins.
                let ended = actor == Actor::Seat(seat) && (!decides || step_began);
                // Every running clock is settled at every action (and a seat still deciding runs on from now):
                // the table keeps its outages only since its last action (`table/downtime.rs`).
                if let Some(since) = bank.since {
                    bank.left = bank.left.saturating_sub(self.charged_ms(since, now));
                    bank.since = None;
                    if ended {
                        bank.left = bank.left.saturating_add(move_ms).min(cap);
                    }
                }
                if bank.since.is_none() && decides {
                    bank.since = Some(self.clocks.run_from(s, now));
                }
                // A decision lasts from when the seat starts deciding until it stops (or its action ends it).
                if !decides {
                    bank.turn = None;
                } else if ended || bank.turn.is_none() {
                    bank.turn = Some(Turn {
                        from: self.version() + 1,
                        left: bank.left,
                    });
                }
                bank
            })
            .collect();
        let text = serde_json::to_string(&banks).expect("banks serialise");
        Some((banks, text))
    }

    /// The banks of a committed action (see [`Table::clocks_after`]).
    pub(super) fn set_banks(&mut self, banks: Option<Vec<Bank>>) {
        if let Some(banks) = banks {
            self.clocks.banks = banks;
        }
    }

    /// When a human seat's running clock runs out next, and whose.
    pub(super) fn clock_out_at(&self) -> Option<(Millis, Seat)> {
        if self.phase != Phase::Playing || self.clocks.correspondence().is_none() {
            return None;
        }
        self.clocks
            .banks
            .iter()
            .enumerate()
            .filter(|(s, _)| matches!(self.seats.get(*s), Some(Occupant::Human { .. })))
            .filter_map(|(s, b)| Some((self.served_until(b.since?, b.left), Seat(s as u8))))
            .min()
            .map(|(at, seat)| (at.max(self.clocks.retry_at), seat))
    }

    /// Every seat's clock at `now`, for a correspondence match's `state` push.
    pub(super) fn seat_clocks(&self, now: Millis) -> Option<Vec<SeatClock>> {
        self.clocks.correspondence()?;
        if self.clocks.banks.is_empty() {
            return None;
        }
        let playing = self.phase == Phase::Playing;
        Some(
            self.clocks
                .banks
                .iter()
                .enumerate()
                .map(|(s, b)| {
                    let running = playing && b.since.is_some_and(|since| since <= now);
                    let used = match b.since {
                        Some(since) if playing => self.charged_ms(since, now),
                        _ => 0,
                    };
                    SeatClock {
                        seat: Seat(s as u8),
                        left_ms: b.left.saturating_sub(used),
                        running,
                        vacation_until: self.clocks.vacation_until(s, now),
                    }
                })
                .collect(),
        )
    }

    /// When a human seat's running clock passes 80 % of the bank its decision began with, and whose (once per
    /// decision and process; `on_clock_low`).
    pub(super) fn clock_low_at(&self) -> Option<(Millis, Seat)> {
        if self.phase != Phase::Playing || self.clocks.correspondence().is_none() {
            return None;
        }
        self.clocks
            .banks
            .iter()
            .enumerate()
            .filter(|(s, _)| matches!(self.seats.get(*s), Some(Occupant::Human { .. })))
            .filter_map(|(s, b)| {
                let (since, turn) = (b.since?, b.turn?);
                if self.clocks.reminded.get(s).copied().flatten() == Some(turn.from) {
                    return None;
                }
                // What is left when 80 % of the decision's bank is used.
                let rest = turn.left * (100 - REMIND_AT_PERCENT) / 100;
                let at = self.served_until(since, b.left.saturating_sub(rest));
                Some((at, Seat(s as u8)))
            })
            .min()
    }

    /// A seat's clock passed 80 % of its decision's bank: one `clock_low` notification for it (if it has an
    /// endpoint). Its id is derived from the table, the seat and the decision, so that a reminder written again
    /// after a restart carries the same id and receivers drop it. Returns whether one was due.
    pub(super) async fn on_clock_low(&mut self, now: Millis) -> bool {
        let Some((_, seat)) = self.clock_low_at().filter(|(at, _)| *at <= now) else {
            return false;
        };
        let Some(turn) = self.clocks.banks.get(seat.index()).and_then(|b| b.turn) else {
            return false;
        };
        self.clocks.reminded.resize(self.seats.len(), None);
        self.clocks.reminded[seat.index()] = Some(turn.from);
        if let Err(e) = self.notify_clock_low(seat.0, turn.from).await {
            // Not written: try again a second later.
            warn!(%seat, error = %e, "the clock reminder could not be written");
            self.clocks.reminded[seat.index()] = None;
            self.not_before = now + RETRY_AFTER_MS;
        }
        true
    }

    /// A seat's clock ran out: the lobby's stall policy. Returns whether it was due.
    pub(super) async fn on_clock_out(&mut self, now: Millis) -> bool {
        let Some((at, seat)) = self.clock_out_at() else {
            return false;
        };
        if at > now {
            return false;
        }
        let Some((_, _, stall)) = self.clocks.correspondence() else {
            return false;
        };
        info!(%seat, ?stall, "a correspondence clock ran out");
        let Some(running) = &self.running else {
            return false;
        };
        let skip = (stall == StallPolicy::Skip)
            .then(|| running.game.skip_action(seat))
            .flatten()
            .map(|a| (ActedBy::Skip, a));
        let action = match stall {
            StallPolicy::End => {
                self.time_out(seat, now).await;
                return true;
            }
            _ => skip.or_else(|| {
                running
                    .game
                    .bot_action(seat, &mut self.rng)
                    .map(|a| (ActedBy::TurnTimer, a))
            }),
        };
        let Some((by, action)) = action else {
            // Nothing to play for the seat (an engine that lists no move): wait for the state to change.
            warn!(%seat, "no move to play for a seat whose clock ran out");
            if let Some(running) = &mut self.running {
                running.stalled_at = Some(running.version);
            }
            return true;
        };
        debug!(%seat, why = by.as_str(), "playing for a seat whose clock ran out");
        if let Err(e) = self.apply(Actor::Seat(seat), by, RawJson::from(action)).await {
            error!(%seat, code = e.code.as_str(), message = %e.message, "a clock's stall move failed");
            self.stall(&e, now);
        }
        true
    }

    /// Ends the match as timed out by `seat` (stall policy `end`): stored first, then everyone told.
    async fn time_out(&mut self, seat: Seat, now: Millis) {
        let Some(running) = &self.running else { return };
        let match_id = running.match_id.clone();
        match self
            .store
            .end_unfinished(&match_id, &self.code, Unfinished::TimedOut { seat: seat.0 }, now)
            .await
        {
            Ok(()) => {}
            Err(StoreError::Conflict) => {
                error!(%match_id, "the match to time out is not playing in the database");
                if let Some(running) = &mut self.running {
                    running.stalled_at = Some(running.version);
                }
                return;
            }
            Err(e) => {
                warn!(error = %e, "ending a timed-out match failed; trying again shortly");
                self.clocks.retry_at = now.saturating_add(RETRY_AFTER_MS);
                return;
            }
        }
        info!(%seat, "match ended: the seat's correspondence clock ran out");
        self.metrics.phase_change(Some(self.phase), Some(Phase::Finished));
        self.phase = Phase::Finished;
        self.clocks.timed_out = Some(seat);
        self.push_lobby_to_all();
        let version = self.version();
        self.push_state_to_all(version, &[]);
    }

    /// The lobby code and match id whose stored clocks a recovered correspondence match needs, if it is one.
    pub fn clocks_to_load(&self) -> Option<(String, String)> {
        self.clocks.correspondence()?;
        let running = self.running.as_ref()?;
        Some((self.code.to_string(), running.match_id.to_string()))
    }

    /// Restores a recovered correspondence match's clocks, vacations and time-out (see the module's doc).
    pub fn with_stored_clocks(mut self, stored: StoredClocks) -> Table {
        self.clocks.timed_out = stored.timed_out_seat.map(Seat);
        if self.clocks.correspondence().is_none() {
            return self;
        }
        let seats = self.seats.len();
        self.clocks.vacations = vec![None; seats];
        for (seat, vacation) in stored.vacations {
            if let Some(slot) = self.clocks.vacations.get_mut(seat as usize) {
                *slot = vacation;
            }
        }
        let version = self.version();
        let after_vacation = stored
            .after_vacation
            .as_deref()
            .and_then(|t| serde_json::from_str::<AfterVacation>(t).ok())
            .filter(|v| v.version == version);
        let after_action = stored
            .after_action
            .filter(|(seq, _)| *seq == version)
            .and_then(|(_, text)| serde_json::from_str::<Vec<Bank>>(text.as_deref()?).ok());
        match after_vacation.map(|v| v.banks).or(after_action) {
            Some(banks) if banks.len() == seats => self.clocks.banks = banks,
            _ => {
                let Some(running) = self.running.take() else {
                    return self;
                };
                let started = running.last_change;
                if version > 0 {
                    error!(
                        version,
                        "a correspondence match's clocks are not stored; they start again"
                    );
                }
                self.start_clocks(&running.game, started);
                self.running = Some(running);
            }
        }
        self
    }

    /// `vacation`: the seat's player pauses their clock for `days` days from now, within the monthly allowance.
    pub(super) async fn vacation(&mut self, conn_id: u64, days: u32) -> Result<(), ErrorBody> {
        let seat = self.vacation_seat(conn_id)?;
        let now = self.clock.now();
        if let Some(until) = self.clocks.vacation_until(seat, now) {
            return Err(err(
                ErrorCode::BadOptions,
                format!("you are on vacation until {until} (Unix ms): end it first with end_vacation"),
            ));
        }
        let allowance = self.settings.vacation_days_per_month;
        let month = month_of(now);
        let taken = self.clocks.vacations[seat]
            .filter(|v| v.month == month)
            .map_or(0, |v| v.days);
        let left = allowance.saturating_sub(taken);
        if days == 0 || days > left {
            return Err(err(
                ErrorCode::BadOptions,
                format!(
                    "`days` must be between 1 and the {left} vacation days you have left this month (the server allows {allowance} a month), not {days}"
                ),
            ));
        }
        let vacation = StoredVacation {
            from: now,
            until: now.saturating_add(u64::from(days) * DAY_MS),
            month,
            days: taken + days,
        };
        let mut bank = self.clocks.banks[seat];
        if let Some(since) = bank.since {
            // The time before the vacation is charged now; the clock runs again from its end.
            bank.left = bank.left.saturating_sub(self.charged_ms(since, now));
            bank.since = Some(vacation.until.max(since));
        }
        self.store_vacation(seat, vacation, bank).await
    }

    /// `end_vacation`: the seat's clock runs again from now (the days taken stay taken).
    pub(super) async fn end_vacation(&mut self, conn_id: u64) -> Result<(), ErrorBody> {
        let seat = self.vacation_seat(conn_id)?;
        let now = self.clock.now();
        let Some(until) = self.clocks.vacation_until(seat, now) else {
            return Err(err(ErrorCode::BadOptions, "you are not on vacation"));
        };
        let mut vacation = self.clocks.vacations[seat].expect("on vacation");
        vacation.until = now;
        let mut bank = self.clocks.banks[seat];
        if bank.since == Some(until) {
            bank.since = Some(now);
        }
        self.store_vacation(seat, vacation, bank).await
    }

    /// The sender's seat, if a vacation may be asked for now.
    fn vacation_seat(&self, conn_id: u64) -> Result<usize, ErrorBody> {
        let Some(seat) = self.seat_of(conn_id) else {
            return Err(err(ErrorCode::NotInLobby, "you hold no seat in this lobby"));
        };
        if self.phase != Phase::Playing || self.clocks.banks.is_empty() {
            return Err(err(
                ErrorCode::BadOptions,
                "a vacation pauses a correspondence clock: only while a correspondence match is playing",
            ));
        }
        Ok(seat as usize)
    }

    /// Stores a seat's vacation and its bank, then applies and shows them.
    async fn store_vacation(
        &mut self,
        seat: usize,
        vacation: StoredVacation,
        bank: Bank,
    ) -> Result<(), ErrorBody> {
        let mut banks = self.clocks.banks.clone();
        banks[seat] = bank;
        let version = self.version();
        let text = serde_json::to_string(&AfterVacation { version, banks }).expect("banks serialise");
        let Some(running) = &self.running else {
            return Err(err(ErrorCode::NotStarted, "the match has not started"));
        };
        self.store
            .set_vacation(&self.code, &running.match_id, seat as u8, vacation, &text)
            .await
            .map_err(internal)?;
        self.clocks.vacations[seat] = Some(vacation);
        self.clocks.banks[seat] = bank;
        info!(seat, until = vacation.until, "vacation changed");
        self.push_state_to_all(version, &[]);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::month_of;

    #[test]
    fn months_are_calendar_months_in_utc() {
        // 1970-01-01 and 1970-01-31T23:59:59.999 are January 1970; 1970-02-01 is February.
        assert_eq!(month_of(0), 1970 * 12);
        assert_eq!(month_of(31 * 86_400_000 - 1), 1970 * 12);
        assert_eq!(month_of(31 * 86_400_000), 1970 * 12 + 1);
        // 2026-12-07 is December 2026; 2027-01-01T00:00:00Z (1798761600000) January 2027.
        assert_eq!(month_of(1_796_601_600_000), 2026 * 12 + 11);
        assert_eq!(month_of(1_798_761_600_000), 2027 * 12);
        assert_eq!(month_of(1_798_761_600_000 - 1), 2026 * 12 + 11);
    }
}
