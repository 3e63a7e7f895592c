//! The "while you were away" report (issue 44): a seat's player who resumes with a `last_version` older than the
//! match's version is told, in an `away` push after the `state` push, which of the seat's own actions were made
//! after that version and who made each (the player from another connection, the stand-in bot, the skip, the
//! turn timer, an administrator: the log's `made_by`, which the table records where it applies an action), with
//! the events of each that the seat may see and the seat's view at `last_version`, so that a client can say the
//! standing then and now. It is also the catch-up (issue 47): every action after that version, every seat's
//! and the clock's (the last `protocol::CATCH_UP_MAX`, saying how many earlier ones it leaves out), with who
//! acted, the events the seat may see (as the `state` push filters them) and the action itself only for the seat's
//! own, so that a player who comes back sees what happened in order before the board.
//!
//! The report is read from the stored action log and the match replayed from its seed (as the admin replay does),
//! so it is the same after a restart or a takeover by another node, and the events in memory (the last
//! `TableSettings::history` changes) do not bound it. The reading and the replay run in a task of their own: the
//! table serves its other commands meanwhile, and the report covers exactly the versions up to the one the
//! resumed connection's `state` push showed (every one of them is committed before it was published).

use protocol::{AwayAction, AwayReport, CATCH_UP_MAX, CaughtUp, Push, RawJson, ServerMessage};
use rules::{Actor, Seat, Viewer};
use tracing::{Instrument, debug, warn};

use super::{Conn, Table};
use crate::store::{Store, StoreError};

/// What the report's task needs: where to read, which span, and whom to tell.
#[derive(Debug)]
pub(super) struct AwayJob {
    store: Store,
    code: String,
    match_id: String,
    seat: Seat,
    since: u64,
    version: u64,
    conn: Conn,
}

/// Why a report could not be made (logged; the player then simply gets none).
#[derive(Debug, thiserror::Error)]
enum AwayError {
    #[error("{0}")]
    Store(#[from] StoreError),
    #[error("{0}")]
    Replay(String),
}

impl Table {
    /// After a seat's `resume`: prepares the task that tells `conn` what was played for `seat` after
    /// `last_version` (nothing when the client saw the current version, or sent none). It starts once the command
    /// is handled ([`Table::start_away_reports`]), so that the report follows everything the resume pushed.
    pub(super) fn push_away_to(&mut self, conn: &Conn, seat: Seat, last_version: Option<u64>) {
        let Some(running) = &self.running else { return };
        let Some(since) = last_version.filter(|v| *v < running.version) else {
            return;
        };
        let job = AwayJob {
            store: self.store.clone(),
            code: self.code.to_string(),
            match_id: running.match_id.to_string(),
            seat,
            since,
            version: running.version,
            conn: conn.clone(),
        };
        self.absence.reports.push(job);
    }

    /// Starts the report tasks [`Table::push_away_to`] prepared: each reads the store and replays the match apart
    /// from the table, and pushes its report to its connection when done.
    pub(super) fn start_away_reports(&mut self) {
        if self.absence.reports.is_empty() {
            return;
        }
        for job in std::mem::take(&mut self.absence.reports) {
            let span = tracing::Span::current();
            tokio::spawn(
                async move {
                    match job.report().await {
                        Ok(report) => {
                            debug!(seat = %job.seat, actions = report.actions.len(), "away report");
                            job.conn.push(ServerMessage::Push(Push::Away(Box::new(report))));
                        }
                        Err(e) => warn!(error = %e, seat = %job.seat, "no away report"),
                    }
                }
                .instrument(span),
            );
        }
    }
}

impl AwayJob {
    /// Reads the match and its log and replays it up to `version`: the seat's view at `since`, the seat's own
    /// actions after it with who made them and the events the seat may see, and the catch-up: every action after
    /// it (the last [`CATCH_UP_MAX`]) with the events the seat may see, the action itself only for its own.
    async fn report(&self) -> Result<AwayReport, AwayError> {
        let stored = self
            .store
            .load_lobby(&self.code)
            .await?
            .and_then(|s| s.game)
            .filter(|m| m.record.id == self.match_id)
            .ok_or_else(|| AwayError::Replay("the match is not stored".into()))?;
        let log = self.store.action_log(&self.match_id).await?;
        let mut game = stored
            .record
            .setup()
            .map_err(|e| AwayError::Replay(e.to_string()))?;
        let viewer = Viewer::Seat(self.seat);
        let mut size = 0;
        let mut before = None;
        let mut actions = Vec::new();
        let refused = |seq: u64, e: rules::Rejection| {
            AwayError::Replay(format!("logged action {seq} was refused: {e}"))
        };
        // The catch-up lists the last `CATCH_UP_MAX` actions of the span; the earlier ones are replayed only.
        let span = log
            .iter()
            .filter(|e| e.seq > self.since && e.seq <= self.version)
            .count();
        let left_out = span.saturating_sub(CATCH_UP_MAX);
        let mut moves = Vec::with_capacity(span - left_out);
        for entry in log.iter().take_while(|e| e.seq <= self.version) {
            if entry.seq > self.since && before.is_none() {
                before = Some(crate::table::view_json(&game, viewer, &mut size));
            }
            let listed = entry.seq > self.since + left_out as u64;
            let own = entry.actor == Actor::Seat(self.seat);
            if entry.seq <= self.since || !(listed || own) {
                game.replay([(entry.actor, entry.action.get(), entry.at)])
                    .map_err(|e| refused(entry.seq, e.rejection))?;
                continue;
            }
            let applied = game
                .apply(entry.actor, entry.action.get(), entry.at)
                .map_err(|e| refused(entry.seq, e))?;
            let events: Vec<RawJson> = applied
                .events
                .into_iter()
                .filter(|e| e.audience.includes(viewer))
                .map(|e| RawJson::from(e.body))
                .collect();
            if listed {
                moves.push(CaughtUp {
                    seq: entry.seq,
                    seat: match entry.actor {
                        Actor::Seat(seat) => Some(seat),
                        Actor::Clock => None,
                    },
                    by: entry.by,
                    at: entry.at,
                    action: own.then(|| entry.action.clone()),
                    events: events.clone(),
                });
            }
            if own {
                actions.push(AwayAction {
                    seq: entry.seq,
                    by: entry.by,
                    action: entry.action.clone(),
                    at: entry.at,
                    events,
                });
            }
        }
        let before = before
            .ok_or_else(|| AwayError::Replay(format!("the log ends before version {}", self.since + 1)))?;
        Ok(AwayReport {
            code: self.code.clone(),
            match_id: self.match_id.clone(),
            seat: self.seat,
            since: self.since,
            version: self.version,
            actions,
            before,
            moves,
            moves_left_out: left_out as u64,
        })
    }
}
