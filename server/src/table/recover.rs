//! Recovery: a table rebuilt from the database (the lobby, its seats, and its match from the latest snapshot plus
//! the actions logged after it, refused when the stored rules version is not the engine's), and the reload of the
//! match after a failed write, which keeps the state in memory and marks it unsure while the database cannot be
//! read.

use std::collections::VecDeque;

use protocol::ErrorBody;
use rules::{AnyGame, Status};
use tracing::{error, info, warn};

use super::{
    Occupant, RecoverError, Running, Table, TableDeps, lobby::newest_rules_version, play::SeatOptions,
    store_unavailable,
};
use crate::store::{Phase, SeatKind, StoredLobby, StoredMatch};

impl Table {
    /// Rebuilds a table from the database: the lobby, its seats, and its match from the latest snapshot plus
    /// the actions logged after it.
    pub fn recover(stored: StoredLobby, deps: TableDeps) -> Result<Table, RecoverError> {
        let lobby = stored.lobby;
        let mut seats: Vec<Occupant> = (0..lobby.seat_count).map(|_| Occupant::Empty).collect();
        for seat in stored.seats {
            let Some(slot) = seats.get_mut(seat.seat as usize) else {
                continue;
            };
            *slot = match seat.kind {
                SeatKind::Bot => Occupant::Bot { name: seat.name },
                SeatKind::Human => Occupant::Human {
                    name: seat.name,
                    token_hash: seat.token_hash.unwrap_or_default(),
                    conn: None,
                },
            };
        }
        // A started match plays by the version it started with, whatever the lobby says.
        let rules_version = match &stored.game {
            Some(m) => m.record.rules_version,
            None => lobby
                .rules_version
                .unwrap_or_else(|| newest_rules_version(&lobby.game)),
        };
        let running = stored.game.map(|m| recover_match(&m)).transpose()?;
        let phase = match (&running, lobby.phase) {
            (Some(r), _) if matches!(r.game.status(), Status::Over) => Phase::Finished,
            // A match an administrator aborted: finished without being over.
            (Some(_), Phase::Finished) => Phase::Finished,
            (Some(_), _) => Phase::Playing,
            (None, phase) => phase,
        };
        Ok(Table::assemble(
            &lobby,
            rules_version,
            phase,
            seats,
            running,
            deps,
        ))
    }

    /// The one decision on a match left unsure (`Running::unsure`: a write of unknown outcome whose reload
    /// failed): before anything is checked against its state, reload it, so that a retried action whose commit
    /// went through is refused as stale rather than applied twice; `store_unavailable` while the database cannot
    /// be read. Returns whether the reload found a newer state than memory had (`false` for a match that is sure).
    pub(super) async fn reload_if_unsure(&mut self) -> Result<bool, ErrorBody> {
        if !self.running.as_ref().is_some_and(|r| r.unsure) {
            return Ok(false);
        }
        let before = self.version();
        // Boxed: rare, and its database reads would make every action's future large.
        if !Box::pin(self.reload()).await {
            return Err(store_unavailable());
        }
        Ok(self.version() != before)
    }

    /// After a failed write: rebuild the match from what the database holds. Returns false, and marks the
    /// match unsure, when the database could not be read: the state in memory is kept (nothing unacknowledged
    /// was published) and no action is applied until a later reload succeeds.
    pub(super) async fn reload(&mut self) -> bool {
        let Some(running) = &mut self.running else {
            return true;
        };
        let match_id = running.match_id.clone();
        match self.store.load_lobby(&self.code).await {
            Ok(Some(StoredLobby {
                game: Some(stored), ..
            })) => match recover_match(&stored) {
                Ok(mut recovered) => {
                    let changed = recovered.version != running.version;
                    if !changed {
                        // Same state: keep the recent events for reconnecting clients, and when each seat's
                        // options last changed (a newer state marks every seat as changed at its version).
                        recovered.history = std::mem::take(&mut running.history);
                        recovered.options = std::mem::take(&mut running.options);
                    }
                    self.running = Some(recovered);
                    if changed {
                        info!(
                            version = self.version(),
                            "reloaded a newer state from the database"
                        );
                        let v = self.version();
                        let over = self
                            .running
                            .as_ref()
                            .is_some_and(|r| matches!(r.game.status(), Status::Over));
                        if over && self.phase == Phase::Playing {
                            // The lost commit ended the match.
                            self.metrics.phase_change(Some(self.phase), Some(Phase::Finished));
                            self.phase = Phase::Finished;
                            self.push_lobby_to_all();
                        }
                        self.push_state_to_all(v, &[]);
                    }
                    true
                }
                Err(e) => {
                    error!(error = %e, %match_id, "reload failed; keeping the state in memory");
                    running.unsure = false;
                    true
                }
            },
            Ok(_) => {
                error!(%match_id, "reload found no match; keeping the state in memory");
                running.unsure = false;
                true
            }
            Err(e) => {
                warn!(error = %e, %match_id, "reload failed; will retry before the next action");
                running.unsure = true;
                false
            }
        }
    }
}

/// Rebuilds a match: the latest snapshot (or a fresh setup from the seed) and the actions logged after it.
fn recover_match(stored: &StoredMatch) -> Result<Running, RecoverError> {
    let record = &stored.record;
    let fail = |reason: String| RecoverError::Unrecoverable {
        match_id: record.id.clone(),
        reason,
    };
    // A match replays under the rules version it started with; the engine says which versions it still plays.
    let versions = rules::rules_versions(&record.game)
        .ok_or_else(|| fail(format!("the game `{}` is no longer served", record.game)))?;
    if !versions.contains(&record.rules_version) {
        return Err(fail(format!(
            "stored under rules version {}, but this server replays versions {} to {}",
            record.rules_version,
            versions.start(),
            versions.end()
        )));
    }
    let (mut game, mut version, mut last_change) = match &stored.snapshot {
        Some(s) => (
            AnyGame::from_full_state(&s.state.to_string())
                .map_err(|e| fail(format!("snapshot {}: {e}", s.seq)))?,
            s.seq,
            s.at,
        ),
        None => (
            record.setup().map_err(|e| fail(e.to_string()))?,
            0,
            record.started_at,
        ),
    };
    for entry in &stored.log_after_snapshot {
        if entry.seq != version + 1 {
            return Err(fail(format!("the log jumps from {version} to {}", entry.seq)));
        }
        game.replay([(entry.actor, entry.action.get(), entry.at)])
            .map_err(|r| {
                fail(format!(
                    "logged action {} was refused: {}",
                    entry.seq, r.rejection
                ))
            })?;
        version = entry.seq;
        last_change = entry.at;
    }
    Ok(Running {
        match_id: record.id.as_str().into(),
        options: SeatOptions::new(&game, version),
        game,
        version,
        last_change,
        history: VecDeque::new(),
        stalled_at: None,
        unsure: false,
        race: None,
    })
}

#[cfg(test)]
mod tests {
    use rules::testkit::Parsed;
    use rules::{Actor, AnyGame, Seat};
    use serde_json::Value;

    use super::*;
    use crate::store::{LogEntry, MatchRecord};

    /// A stored match of the first game, with `actions` random legal actions logged under `rules_version`.
    fn stored(rules_version: u32, actions: usize) -> StoredMatch {
        let info = &rules::catalogue()[0];
        let mut game = AnyGame::new(info.id, None, &Value::Null, info.min_players, 42).unwrap();
        let mut log = Vec::new();
        for seq in 1..=actions as u64 {
            let seat = Seat::all(info.min_players)
                .find(|s| !game.legal_values(*s).is_empty())
                .expect("a seat may act");
            let action = game.legal_values(seat).remove(0);
            let applied = game.apply(Actor::Seat(seat), &action.to_string(), seq).unwrap();
            log.push(LogEntry {
                seq,
                actor: Actor::Seat(seat),
                action: protocol::RawJson::from(applied.action),
                at: seq,
                by: protocol::ActedBy::Player,
            });
        }
        StoredMatch {
            record: MatchRecord {
                id: "m".into(),
                game: info.id.into(),
                options: Value::Null,
                players: info.min_players,
                seed: 42,
                rules_version,
                started_at: 0,
                finished: false,
                to_decide: None,
            },
            snapshot: None,
            log_after_snapshot: log,
        }
    }

    /// A stored match is rebuilt under the rules version it was started with, when the engine still plays that
    /// version; a version it does not play is refused with both versions named, not replayed under other rules.
    #[test]
    fn a_match_recovers_only_under_a_rules_version_its_engine_replays() {
        let current = rules::catalogue()[0].rules_version;
        let running = recover_match(&stored(current, 3)).unwrap();
        assert_eq!(running.version, 3);
        match recover_match(&stored(current + 1, 3)) {
            Err(RecoverError::Unrecoverable { reason, .. }) => {
                assert!(
                    reason.contains(&format!("rules version {}", current + 1)),
                    "{reason}"
                );
            }
            other => panic!(
                "a newer rules version must not recover: {:?}",
                other.map(|r| r.version)
            ),
        }
    }
}
