//! Playing the match: an action from a seat is checked against the engine on a copy of the game, appended to the
//! log through group commit, and only once that write has committed does the copy become the state, the history
//! grow and the viewers hear of it (the other viewers' pushes first, then the sender's reply). A failed write
//! reloads the match (`recover.rs`) instead of guessing what the database holds.

use std::time::Instant;

use protocol::{ActedBy, ErrorBody, ErrorCode, RawJson};
use rules::{Actor, AnyGame, Event, Millis, Seat, Status};
use tracing::{debug, error, info};

use super::{Table, err, store_unavailable};
use crate::{
    commit::Pending,
    store::{LogEntry, Phase, StoreError, to_decide_text},
};

/// The most of a connection's round trip that is taken off a race claim's reaction time (the push's way down and
/// the claim's way up, see [`claim_time`]): a link up to this slow is not charged for its latency, and a
/// client that answers pings late to look slower than it is gains at most this less its true round trip.
pub(crate) const MAX_ROUND_TRIP_ALLOWANCE_MS: u64 = 400;

/// What the connection knows of an action's timing (`connection.rs`), for a claim in a race.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timing {
    /// When the connection's socket received the action, on the table's clock: before any wait for the table.
    pub received_at: Millis,
    /// The connection's round-trip estimate: the least of its recent ping samples.
    pub rtt_ms: Option<u64>,
    /// The last race a `state` push showed this connection.
    pub race_shown: Option<RaceShown>,
}

/// A race as one connection was shown it: the race's deadline (which tells one race from the next) and when the
/// first `state` push showing it was written to the connection's socket, on the table's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RaceShown {
    pub deadline: Millis,
    pub written_at: Millis,
}

/// The race open now, as the table opened it: what a claim's reaction is measured from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct RaceOpened {
    /// The race's deadline, as its pushes show it.
    deadline: Millis,
    /// The time the action that opened it was applied at: the engine's opening time of the race.
    applied_at: Millis,
    /// When the table handed the pushes showing it to the connections, after its commit.
    published_at: Millis,
}

/// The deadline of the race `game` is in, if it is in one.
fn race_deadline(game: &AnyGame) -> Option<Millis> {
    // Only a game with a deadline can be in a race: most actions never ask for the status here.
    let at = game.deadline()?.at;
    matches!(game.status(), Status::Race { .. }).then_some(at)
}

impl Table {
    pub(super) async fn act(
        &mut self,
        conn_id: u64,
        action: RawJson,
        version: Option<u64>,
        timing: Timing,
    ) -> Result<u64, ErrorBody> {
        // A spectator's action never comes here: its connection, which knows its role, refuses it.
        let Some(seat) = self.seat_of(conn_id) else {
            return Err(err(ErrorCode::NotInLobby, "you are not in this lobby"));
        };
        // After a lost database connection, learn what the database holds before checking the version (a newer
        // state is then checked below like any other).
        self.reload_if_unsure().await?;
        let Some(running) = &self.running else {
            return Err(err(ErrorCode::NotStarted, "the match has not started"));
        };
        // An action is stale only if this seat's options changed after the version it was chosen on (another
        // seat's independent move is no reason to refuse it), or if it names a version not reached yet.
        if let Some(v) = version {
            let changed = running.options.changed_at(Seat(seat));
            if v > running.version {
                return Err(err(
                    ErrorCode::StaleVersion,
                    format!("the state is at version {}, not {v}", running.version),
                ));
            }
            if v < changed {
                return Err(err(
                    ErrorCode::StaleVersion,
                    format!(
                        "your seat's options changed at version {changed}, after version {v} (the state is at version {})",
                        running.version
                    ),
                ));
            }
        }
        // A race's deadline that has passed is played before anything received after it: the window closes for
        // real, and a claim that arrives later finds it closed (the engine says why). A claim the socket received
        // before the deadline is not refused for waiting in the table's queue meanwhile.
        let now = self.clock.now();
        let received_at = timing.received_at.min(now);
        if matches!(running.game.status(), Status::Race { .. })
            && let Some(deadline) = running
                .game
                .deadline()
                .filter(|d| self.rebased(running.last_change, d.at) <= received_at)
            && let Err(e) = self
                .apply(Actor::Clock, ActedBy::Clock, RawJson::from(deadline.action))
                .await
        {
            return Err(e);
        }
        let now = match self
            .running
            .as_ref()
            .and_then(|r| Some((r, race_deadline(&r.game)?)))
        {
            Some((running, deadline)) => {
                let at = claim_time(
                    running.race,
                    deadline,
                    Timing {
                        received_at,
                        ..timing
                    },
                );
                if running.race.is_some_and(|r| r.deadline == deadline) {
                    at
                } else {
                    // A race opened before the table was loaded: the outage since is not part of the reaction.
                    self.unrebased(running.last_change, at)
                }
            }
            None => now,
        };
        let result = self
            .apply_at(Actor::Seat(Seat(seat)), ActedBy::Player, action, now)
            .await;
        if result.is_ok() {
            // A player who acts is present: the server stops playing for them.
            self.mark_present(seat as usize);
        }
        result
    }

    /// Applies an action of `actor`, made by `by` (logged with it), at the clock's current time: check on a
    /// copy, commit, then publish.
    pub(super) async fn apply(
        &mut self,
        actor: Actor,
        by: ActedBy,
        action: RawJson,
    ) -> Result<u64, ErrorBody> {
        let now = self.clock.now();
        self.apply_at(actor, by, action, now).await
    }

    /// [`Table::apply`] at a given time (an admin firing a deadline early plays it at the deadline's time).
    pub(super) async fn apply_at(
        &mut self,
        actor: Actor,
        by: ActedBy,
        action: RawJson,
        now: Millis,
    ) -> Result<u64, ErrorBody> {
        if self.reload_if_unsure().await? {
            // The action was chosen on the state before the lost commit: choose again.
            return Err(err(
                ErrorCode::StaleVersion,
                format!("the state is at version {}", self.version()),
            ));
        }
        if self.phase == Phase::Finished {
            return Err(err(ErrorCode::GameOver, "the match is over"));
        }
        // Whom this action may notify (nobody, at no cost, unless a seat has an endpoint: `notify.rs`).
        let notify = self.notify_plan();
        let Some(running) = &self.running else {
            return Err(err(ErrorCode::NotStarted, "the match has not started"));
        };
        if matches!(running.game.status(), Status::Over) {
            return Err(err(ErrorCode::GameOver, "the match is over"));
        }
        let mut next = running.game.clone();
        let applied = next
            .apply(actor, action.get(), now)
            .map_err(|r| ErrorBody::new(r.kind.into(), r.message))?;
        let events: Vec<Event<RawJson>> = applied
            .events
            .into_iter()
            .map(|e| Event {
                audience: e.audience,
                body: RawJson::from(e.body),
            })
            .collect();
        let seq = running.version + 1;
        let status = next.status();
        let over = matches!(status, Status::Over);
        // Whose turn it is now, stored with the action for the players' lists of tables (`my_tables`).
        let to_decide = Some(to_decide_text(&status));
        let outcome = if over { next.outcome() } else { None };
        let snapshot = (self.settings.snapshot_every > 0 && seq % self.settings.snapshot_every == 0)
            .then(|| next.full_state());
        // The log keeps the action as the engine read it (its canonical text), not as the client wrote it.
        let entry = LogEntry {
            seq,
            actor,
            action: RawJson::from(applied.action),
            at: now,
            by,
        };
        let match_id = running.match_id.clone();
        let notices = notify.map_or_else(Vec::new, |plan| plan.notices(&running.game, &next, now));
        // A correspondence match's clocks after this action, stored in its row (`clocks.rs`).
        let (banks, clocks) = self.clocks_after(&next, actor, now).unzip();
        let write_started = Instant::now();
        let written = self
            .commits
            .append(Pending {
                match_id,
                lobby_code: self.code.clone(),
                entry,
                snapshot,
                outcome: outcome.clone(),
                to_decide,
                clocks,
                notices,
            })
            .await;
        self.metrics.db_write_latency.observe(write_started.elapsed());
        if let Err(e) = written {
            return Err(self.not_appended(e, seq).await);
        }
        debug!(seq, ?actor, "action committed");
        self.set_banks(banks);
        let running = self.running.as_mut().expect("checked above");
        // A race that begins here is timed from this action's time and from its pushes (`claim_time`).
        let race = race_deadline(&next);
        let race_opens = race.is_some() && race != race_deadline(&running.game);
        running.race = match race {
            Some(deadline) if race_opens => Some(RaceOpened {
                deadline,
                applied_at: now,
                published_at: now,
            }),
            Some(_) => running.race,
            None => None,
        };
        running.game = next;
        running.version = seq;
        running.options.update(&running.game, seq, actor);
        running.last_change = now;
        running.history.push_back((seq, events.clone()));
        while running.history.len() > self.settings.history {
            running.history.pop_front();
        }
        self.note_write_succeeded(now);
        self.forget_outages_until(now);
        if over {
            info!(version = seq, "match finished");
            self.metrics.phase_change(Some(self.phase), Some(Phase::Finished));
            self.phase = Phase::Finished;
            self.push_lobby_to_all();
        }
        if race_opens && let Some(race) = self.running.as_mut().and_then(|r| r.race.as_mut()) {
            race.published_at = self.clock.now();
        }
        self.push_state_to_all(seq - 1, &events);
        Ok(seq)
    }
}

impl Table {
    /// The answer to an action whose append (of sequence number `seq`) failed with `e`; nothing was published.
    /// Whatever the database holds now is the truth: the match is reloaded. If the database cannot be reached, the
    /// reload is retried before the next action (see `Running::unsure`).
    async fn not_appended(&mut self, e: StoreError, seq: u64) -> ErrorBody {
        if e.is_fenced() {
            // Cluster mode: another node owns the table now; this one stops (`cluster/`).
            return super::moved();
        }
        error!(error = %e, seq, "appending an action failed; reloading the match from the database");
        let unavailable = e.is_unavailable();
        if unavailable {
            let now = self.clock.now();
            self.note_write_failed(now);
        }
        // Boxed: rare, and its database reads would make every action's future large.
        if !Box::pin(self.reload()).await || unavailable {
            return store_unavailable();
        }
        if self.version() != seq - 1 {
            // The database held an action memory did not (a write that timed out and committed after all): the
            // sequence number was taken. The state is the database's now; choose again.
            return err(
                ErrorCode::StaleVersion,
                format!("the state is at version {}", self.version()),
            );
        }
        err(
            ErrorCode::Internal,
            "the action could not be stored; nothing changed",
        )
    }
}

/// The time a claim in the race that closes at `deadline` is applied at: the race's opening time (as the engine has
/// it) plus the claim's reaction, so that the engine, which takes a reaction as the claim's time less the opening
/// time, sees the reaction measured here. The reaction is the time from the push that showed the race leaving the
/// server for the claimant's connection to the claim reaching that connection's socket, less the connection's
/// whole round trip (at most [`MAX_ROUND_TRIP_ALLOWANCE_MS`]): the push took one leg down and the claim one leg up.
/// Never below zero (a claim sent before its sender could see the race). `race` is the race the table opened.
fn claim_time(race: Option<RaceOpened>, deadline: Millis, timing: Timing) -> Millis {
    let allowance = timing.rtt_ms.unwrap_or(0).min(MAX_ROUND_TRIP_ALLOWANCE_MS);
    match race.filter(|r| r.deadline == deadline) {
        Some(race) => {
            // The connection's own write of the push, or the table's hand-over if it has not written one of this
            // race (its claim came before the push could reach it).
            let shown_at = timing
                .race_shown
                .filter(|s| s.deadline == deadline)
                .map_or(race.published_at, |s| s.written_at.max(race.published_at));
            let reaction = timing
                .received_at
                .saturating_sub(shown_at)
                .saturating_sub(allowance);
            race.applied_at + reaction
        }
        // A race opened before this table was loaded (a restart): when its pushes left is not known; the claim is
        // timed as received less the round trip.
        None => timing.received_at.saturating_sub(allowance),
    }
}

/// What each seat may do now, as the JSON text of its legal actions (written once per change and carried by its
/// `state` pushes), and the version at which that last changed. An action's `version` is checked against its
/// seat's mark: older is stale (the seat chose among options it no longer has, or it has acted since), anything
/// from the mark to the current version is as good as the current one (only other seats' independent moves
/// happened since). A seat's own action always moves its mark, even if its options read the same afterwards
/// (Quacks: `draw` again), so a second action chosen on one state is refused.
#[derive(Debug, Default)]
pub(super) struct SeatOptions {
    legal: Vec<RawJson>,
    changed_at: Vec<u64>,
    /// Where each seat's list is written before it is compared with the kept one: a list that did not change (a
    /// seat waiting while others plan) costs no allocation.
    buffer: json_write::Buffer,
}

impl SeatOptions {
    /// Every seat's options at `version`, each marked as changed there (a match just started or recovered: what
    /// happened before is not known, so an action chosen before it is stale).
    pub(super) fn new(game: &AnyGame, version: u64) -> SeatOptions {
        let mut options = SeatOptions::default();
        for seat in Seat::all(game.players()) {
            game.legal_actions(seat, &mut options.buffer);
            options.legal.push(RawJson::from(options.buffer.to_raw_value()));
            options.changed_at.push(version);
        }
        options
    }

    /// After `actor`'s action made `version`: rewrites each seat's options and moves the mark of every seat whose
    /// options changed, and of the seat that acted.
    pub(super) fn update(&mut self, game: &AnyGame, version: u64, actor: Actor) {
        for seat in Seat::all(game.players()) {
            let i = seat.index();
            let changed = self.legal[i].get() != game.legal_actions(seat, &mut self.buffer);
            if changed {
                self.legal[i] = RawJson::from(self.buffer.to_raw_value());
            }
            if changed || actor == Actor::Seat(seat) {
                self.changed_at[i] = version;
            }
        }
    }

    /// `seat`'s legal actions as JSON text (an empty array for a seat the game does not have).
    /// Whether `seat` may act now: its kept list is not empty (the engine is not asked again).
    pub(super) fn any(&self, seat: Seat) -> bool {
        self.legal.get(seat.index()).is_some_and(|l| l.get() != "[]")
    }

    pub(super) fn legal(&self, seat: Seat) -> RawJson {
        self.legal
            .get(seat.index())
            .cloned()
            .unwrap_or_else(RawJson::empty_array)
    }

    /// The version at which `seat`'s options last changed.
    pub(super) fn changed_at(&self, seat: Seat) -> u64 {
        self.changed_at.get(seat.index()).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OPENED: RaceOpened = RaceOpened {
        deadline: 9_000,
        applied_at: 1_000,
        published_at: 1_010,
    };

    fn claim(received_at: Millis, rtt_ms: Option<u64>, written_at: Option<Millis>) -> Millis {
        let timing = Timing {
            received_at,
            rtt_ms,
            race_shown: written_at.map(|written_at| RaceShown {
                deadline: OPENED.deadline,
                written_at,
            }),
        };
        claim_time(Some(OPENED), OPENED.deadline, timing)
    }

    #[test]
    fn a_reaction_runs_from_the_push_written_to_the_claim_received_less_the_whole_round_trip() {
        // Written at 1,012, received 300 ms of link and 200 ms of reaction later: the engine sees 200 ms.
        assert_eq!(claim(1_512, Some(300), Some(1_012)), OPENED.applied_at + 200);
        // A connection that has not written the push yet is timed from the table's hand-over.
        assert_eq!(claim(1_510, Some(300), None), OPENED.applied_at + 200);
        // A push of another race does not count.
        let other = Timing {
            received_at: 1_600,
            rtt_ms: Some(100),
            race_shown: Some(RaceShown {
                deadline: 1,
                written_at: 1_500,
            }),
        };
        assert_eq!(
            claim_time(Some(OPENED), OPENED.deadline, other),
            OPENED.applied_at + 490
        );
    }

    #[test]
    fn the_round_trip_taken_off_is_capped_and_a_reaction_is_never_negative() {
        // A round trip of 2 s (pongs answered late on purpose) buys MAX_ROUND_TRIP_ALLOWANCE_MS, no more.
        let received = 1_010 + 2_000 + 150;
        assert_eq!(
            claim(received, Some(2_000), Some(1_010)),
            OPENED.applied_at + 2_150 - MAX_ROUND_TRIP_ALLOWANCE_MS
        );
        // Received sooner than a round trip after the push: sent before the race could be seen.
        assert_eq!(claim(1_100, Some(300), Some(1_010)), OPENED.applied_at);
        // No estimate yet: nothing is taken off.
        assert_eq!(claim(1_300, None, Some(1_010)), OPENED.applied_at + 290);
    }

    #[test]
    fn a_race_the_table_did_not_see_open_is_timed_as_received_less_the_round_trip() {
        let timing = Timing {
            received_at: 5_000,
            rtt_ms: Some(120),
            race_shown: None,
        };
        assert_eq!(claim_time(None, 9_000, timing), 4_880);
        // A race opened since (another deadline) is not the one the table timed.
        assert_eq!(claim_time(Some(OPENED), 9_500, timing), 4_880);
    }
}
