//! Tables nobody is at (issue 42, point 7). An open lobby or a playing match to which no seat and no spectator
//! has been connected for `idle_unload_ms` leaves memory, unless it has something to do by itself before that
//! long again (a bot's move, a turn timer, a stand-in, an engine deadline): it then stays for that and looks
//! again after. Bots do not count as someone: a match of bots nobody watches leaves memory between its moves
//! the same way.
//!
//! Leaving memory writes, with since when nobody has been connected, the time by which the table must be loaded
//! again by itself (`lobbies.unloaded_until`): its next wake-up (derived from the state, as after a restart) or
//! its abandonment. The hub loads it then (`Hub`'s sweep), or earlier when someone asks for its code; loaded, it
//! clears the mark. Nothing of the match is in memory only: every action was committed before anyone heard of
//! it, the stand-in times are stored, and the history of events is only a convenience for reconnections.
//!
//! A playing match nobody has been connected to for `abandon_after_ms` (a correspondence match: at least what its
//! clocks may take, [`Table::abandon_after_ms`]) ends as abandoned: its match's status
//! becomes `abandoned` (no result), its lobby finished, and a seat that comes back sees `"abandoned": true` in
//! the lobby. "Nobody connected since" is stored when it changes, so a restart keeps counting from it.

use rules::Millis;
use tracing::{error, info, warn};

use super::{Phase, RETRY_AFTER_MS, Table};
use crate::store::{StoreError, StoredIdleness, UNLOADED_FOR_GOOD, Unfinished};

/// Since when nobody has been connected, and what the database holds of it.
#[derive(Debug, Default)]
pub(crate) struct Idleness {
    /// Since when no seat and no spectator has been connected (`None` while someone is).
    since: Option<Millis>,
    /// What the database holds: `idle_since` and whether `unloaded_until` is set.
    stored_since: Option<Millis>,
    stored_unloaded: bool,
    /// The match ended as abandoned.
    pub(crate) abandoned: bool,
    /// Neither leaves memory nor abandons before this (set after a failed write).
    retry_at: Millis,
}

impl Table {
    /// Restores a loaded table's idleness: nobody is connected yet, since the stored time (or from now).
    pub fn with_stored_idleness(mut self, stored: StoredIdleness) -> Table {
        let now = self.clock.now();
        self.idleness.since = Some(stored.idle_since.unwrap_or(now));
        self.idleness.stored_since = stored.idle_since;
        self.idleness.stored_unloaded = stored.unloaded;
        self.idleness.abandoned = stored.abandoned;
        self
    }

    /// Starts or stops counting the time nobody has been connected (after every command and wake-up).
    pub(super) fn note_unwatched(&mut self) {
        if self.connections().next().is_some() {
            self.idleness.since = None;
        } else if self.idleness.since.is_none() {
            self.idleness.since = Some(self.clock.now());
        }
    }

    /// Open lobbies and playing matches leave memory when idle (finished ones by `Table::unload_at`).
    fn idle_tracked(&self) -> bool {
        matches!(self.phase, Phase::Open | Phase::Playing)
    }

    /// When this playing match ends as abandoned, if nobody connects before.
    pub(super) fn abandon_at(&self) -> Option<Millis> {
        if self.phase != Phase::Playing || self.running.is_none() {
            return None;
        }
        let at = self.idleness.since?.saturating_add(self.abandon_after_ms());
        Some(at.max(self.idleness.retry_at))
    }

    /// How long nobody may be at a playing match before it ends as abandoned: `abandon_after_ms`, and in a
    /// correspondence match at least the time every seat's clock could take in turn (its bank's cap and two
    /// months' vacations each), so that abandonment never cuts a clock that still has time: a match of absent
    /// players ends by its stall policy first.
    fn abandon_after_ms(&self) -> Millis {
        let after = self.settings.abandon_after_ms;
        let Some((_, cap, _)) = self.clocks.correspondence() else {
            return after;
        };
        let vacations = 2 * Millis::from(self.settings.vacation_days_per_month) * super::clocks::DAY_MS;
        let seats = self.seats.len() as Millis;
        after.max(seats.saturating_mul(cap.saturating_add(vacations)))
    }

    /// The next time the table must act by itself: its wake-ups and its abandonment.
    fn next_self_wake(&self, now: Millis) -> Option<Millis> {
        [self.next_wake(now), self.abandon_at()]
            .into_iter()
            .flatten()
            .min()
    }

    /// When this open or playing table leaves memory: once nobody has been connected for the idle time, unless
    /// it has something to do by itself within that time again (it wakes for that, and this is asked again).
    pub(super) fn idle_unload_at(&self, now: Millis) -> Option<Millis> {
        if !self.idle_tracked() {
            return None;
        }
        let idle = self.settings.idle_unload_ms;
        let at = self
            .idleness
            .since?
            .saturating_add(idle)
            .max(self.idleness.retry_at);
        if at > now {
            return Some(at);
        }
        match self.next_self_wake(now) {
            Some(wake) if wake < now.saturating_add(idle) => None,
            _ => Some(at),
        }
    }

    /// Records that the table leaves memory and by when it must be loaded again by itself. False if the write
    /// failed: the table stays, and tries again a second later.
    pub(super) async fn store_unloaded(&mut self, now: Millis) -> bool {
        let due = self.next_self_wake(now).unwrap_or(UNLOADED_FOR_GOOD);
        match self
            .store
            .set_idleness(&self.code, self.idleness.since, Some(due))
            .await
        {
            Ok(()) => {
                self.idleness.stored_since = self.idleness.since;
                self.idleness.stored_unloaded = true;
                true
            }
            Err(e) => {
                warn!(error = %e, "storing that an idle table leaves memory failed; it stays for now");
                self.idleness.retry_at = now.saturating_add(RETRY_AFTER_MS);
                false
            }
        }
    }

    /// What the database should hold of since when nobody has been connected.
    fn idle_since_to_store(&self) -> Option<Millis> {
        if self.idle_tracked() {
            self.idleness.since
        } else {
            self.idleness.stored_since
        }
    }

    /// Whether [`Table::sync_idleness`] has something to write (checked before every command and wake-up).
    pub(super) fn idleness_to_store(&self) -> bool {
        self.idleness.stored_unloaded || self.idle_since_to_store() != self.idleness.stored_since
    }

    /// Stores since when nobody has been connected to an open or playing table, and clears the mark of a table
    /// loaded again (before it serves anything). A failed write is retried before the next command or wake-up.
    pub(crate) async fn sync_idleness(&mut self) {
        let since = self.idle_since_to_store();
        match self.store.set_idleness(&self.code, since, None).await {
            Ok(()) => {
                self.idleness.stored_since = since;
                self.idleness.stored_unloaded = false;
            }
            Err(e) => error!(error = %e, "storing since when nobody is connected failed"),
        }
    }

    /// Ends the match as abandoned (nobody has been connected to it for the abandonment time).
    pub(super) async fn abandon(&mut self, now: Millis) {
        let Some(running) = &self.running else { return };
        let match_id = running.match_id.clone();
        let version = running.version;
        match self
            .store
            .end_unfinished(&match_id, &self.code, Unfinished::Abandoned, now)
            .await
        {
            Ok(()) => {}
            Err(StoreError::Conflict) => {
                // The database does not hold it as playing: leave it be (another abandonment time from now).
                error!(%match_id, "the match to abandon is not playing in the database");
                self.idleness.retry_at = now.saturating_add(self.settings.abandon_after_ms);
                return;
            }
            Err(e) => {
                warn!(error = %e, "abandoning a match failed; trying again shortly");
                self.idleness.retry_at = now.saturating_add(RETRY_AFTER_MS);
                return;
            }
        }
        info!(
            version,
            idle_since = self.idleness.since,
            "match abandoned: nobody was connected for the abandonment time"
        );
        self.metrics.phase_change(Some(self.phase), Some(Phase::Finished));
        self.metrics
            .matches_abandoned
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.phase = Phase::Finished;
        self.idleness.abandoned = true;
        self.idleness.stored_unloaded = false;
        self.push_lobby_to_all();
    }
}
