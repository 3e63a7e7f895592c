//! The admin side of a table: inspections and admin actions, served by the table's own task like every other
//! command, so an admin never writes a match from outside its owner. Each action is recorded in the audit log
//! (in the same transaction as its change where the change is a single write).

use protocol::{ActedBy, ErrorBody, ErrorCode, Push, RawJson, ServerMessage};
use rules::{Actor, Seat, Viewer};
use serde_json::{Value, json};
use tracing::{info, warn};

use super::{Occupant, Table, err, internal};
use crate::store::{AuditEntry, Phase, SeatKind, SeatRecord, StoreError, Unfinished};

/// What an admin asks of a table.
#[derive(Debug)]
pub enum AdminOp {
    /// Everything about the table: configuration, seats and their connections, the complete state (hidden
    /// information included), the deadlines.
    Inspect,
    /// The `state` push `viewer` would get now, exactly as they see it.
    View { viewer: Viewer },
    /// Ends the match without a result; everyone connected is told.
    Abort { by: String, reason: String },
    /// Takes a seat from its human: the token stops working and their connection is closed with `removed`.
    /// With `bot`, a server-side bot plays the seat from now on; without, the seat stays idle (the turn timer,
    /// if the lobby has one, plays for it).
    RemoveSeat {
        seat: u8,
        bot: bool,
        by: String,
        reason: String,
    },
    /// Plays the pending deadline now: the engine's (e.g. a claim window closing), else the turn timer's.
    FireDeadline { by: String, reason: String },
}

fn phase_name(phase: Phase) -> &'static str {
    match phase {
        Phase::Open => "open",
        Phase::Playing => "playing",
        Phase::Finished => "finished",
        Phase::Closed => "closed",
    }
}

impl Table {
    pub(super) async fn admin(&mut self, op: AdminOp) -> Result<Value, ErrorBody> {
        match op {
            AdminOp::Inspect => Ok(self.inspect()),
            AdminOp::View { viewer } => self.admin_view(viewer),
            AdminOp::Abort { by, reason } => self.admin_abort(by, reason).await,
            AdminOp::RemoveSeat {
                seat,
                bot,
                by,
                reason,
            } => self.admin_remove(seat, bot, by, reason).await,
            AdminOp::FireDeadline { by, reason } => self.admin_fire(by, reason).await,
        }
    }

    fn inspect(&self) -> Value {
        let now = self.clock.now();
        let seats: Vec<Value> = self
            .seats
            .iter()
            .enumerate()
            .map(|(i, o)| match o {
                Occupant::Empty => json!({"seat": i, "kind": "empty"}),
                Occupant::Human {
                    name,
                    token_hash,
                    conn,
                } => json!({
                    "seat": i, "kind": "human", "name": name, "connected": conn.is_some(),
                    "presence": self.presence_of(i, now), "stand_in": self.stands_in(i, now),
                    "removed": token_hash.is_empty(),
                }),
                Occupant::Bot { name } => json!({"seat": i, "kind": "bot", "name": name}),
            })
            .collect();
        let running = self.running.as_ref();
        json!({
            "code": self.code,
            "game": self.game_id,
            "options": self.options,
            "seat_count": self.seats.len(),
            "host": self.host,
            "turn_timer_ms": self.turn_timer_ms,
            "absent": self.absence.policy,
            "listed": self.friends.listed,
            "phase": phase_name(self.phase),
            "seats": seats,
            "spectators": self.spectators.len(),
            "match_id": running.map(|r| &r.match_id),
            "version": running.map(|r| r.version),
            "last_change": running.map(|r| r.last_change),
            "status": running.map(|r| r.game.status()),
            "full_state": running.map(|r| serde_json::from_str::<Value>(&r.game.full_state()).expect("the game writes JSON")),
            "deadline": running.and_then(|r| r.game.deadline()).map(|d| json!({"at": d.at, "action": d.action})),
            "turn_deadline": running.and_then(|r| self.turn_deadline(r)),
            "next_wake": self.next_wake(now),
            "stalled": running.is_some_and(|r| r.stalled_at == Some(r.version)),
            "outcome": running.and_then(|r| r.game.outcome()),
        })
    }

    fn admin_view(&self, viewer: Viewer) -> Result<Value, ErrorBody> {
        let running = self
            .running
            .as_ref()
            .ok_or_else(|| err(ErrorCode::NotStarted, "the match has not started"))?;
        if let Viewer::Seat(s) = viewer
            && s.index() >= self.seats.len()
        {
            return Err(err(ErrorCode::BadMessage, format!("this match has no seat {s}")));
        }
        let mut shared = self.shared_state().expect("the match is running");
        let message = self
            .state_for(viewer, running.version, Vec::new(), &mut shared)
            .expect("the match is running");
        Ok(serde_json::to_value(message).expect("messages serialise"))
    }

    fn audit(&self, by: String, action: &str, seat: Option<u8>, reason: String, detail: Value) -> AuditEntry {
        AuditEntry {
            id: 0,
            at: self.clock.now(),
            admin: by,
            action: action.to_string(),
            lobby_code: self.code.to_string(),
            match_id: self.running.as_ref().map(|r| r.match_id.to_string()),
            seat,
            reason,
            detail,
        }
    }

    fn require_playing(&self) -> Result<u64, ErrorBody> {
        match (&self.running, self.phase) {
            (None, _) => Err(err(ErrorCode::NotStarted, "the match has not started")),
            (Some(r), Phase::Playing) => Ok(r.version),
            (Some(_), _) => Err(err(ErrorCode::GameOver, "the match is over")),
        }
    }

    async fn admin_abort(&mut self, by: String, reason: String) -> Result<Value, ErrorBody> {
        let version = self.require_playing()?;
        let audit = self.audit(by, "abort", None, reason, json!({"version": version}));
        let match_id = audit.match_id.clone().expect("running");
        match self
            .store
            .end_unfinished(&match_id, &self.code, Unfinished::Aborted(&audit), audit.at)
            .await
        {
            Ok(()) => {}
            Err(StoreError::Conflict) => return Err(err(ErrorCode::GameOver, "the match is over")),
            Err(e) => return Err(internal(e)),
        }
        warn!(admin = %audit.admin, reason = %audit.reason, version, "match aborted by an administrator");
        self.metrics.phase_change(Some(self.phase), Some(Phase::Finished));
        self.phase = Phase::Finished;
        let message = ServerMessage::Push(Push::Aborted {
            code: self.code.to_string(),
            match_id,
            reason: audit.reason.clone(),
            at: audit.at,
        });
        let failed: Vec<u64> = self
            .connections()
            .filter(|(_, c)| !c.push(message.clone()))
            .map(|(_, c)| c.id)
            .collect();
        self.drop_connections(&failed);
        self.push_lobby_to_all();
        Ok(json!({"version": version}))
    }

    async fn admin_remove(
        &mut self,
        seat: u8,
        bot: bool,
        by: String,
        reason: String,
    ) -> Result<Value, ErrorBody> {
        let version = self.require_playing()?;
        let (name, conn) = match self.seats.get(seat as usize) {
            None => {
                return Err(err(
                    ErrorCode::BadMessage,
                    format!("this match has no seat {seat}"),
                ));
            }
            Some(Occupant::Human {
                name,
                token_hash,
                conn,
            }) => {
                if token_hash.is_empty() && !bot {
                    return Err(err(
                        ErrorCode::BadMessage,
                        format!("seat {seat}'s player was already removed"),
                    ));
                }
                (name.clone(), conn.clone())
            }
            Some(_) => {
                return Err(err(
                    ErrorCode::BadMessage,
                    format!("seat {seat} is not held by a person"),
                ));
            }
        };
        let record = SeatRecord {
            seat,
            kind: if bot { SeatKind::Bot } else { SeatKind::Human },
            name: if bot {
                format!("Bot {}", seat + 1)
            } else {
                name.clone()
            },
            token_hash: None,
        };
        let action = if bot { "replace_with_bot" } else { "remove_player" };
        let audit = self.audit(
            by,
            action,
            Some(seat),
            reason,
            json!({"name": name, "version": version}),
        );
        self.store
            .replace_seat(&self.code, &record, &audit)
            .await
            .map_err(internal)?;
        info!(admin = %audit.admin, seat, action, "seat taken by an administrator");
        if let Some(conn) = conn {
            conn.close(
                ErrorCode::Removed,
                &format!("an administrator removed you from seat {seat}: {}", audit.reason),
            );
        }
        self.seats[seat as usize] = if bot {
            Occupant::Bot { name: record.name }
        } else {
            Occupant::Human {
                name,
                token_hash: String::new(),
                conn: None,
            }
        };
        self.push_lobby_to_all();
        Ok(json!({"version": version}))
    }

    async fn admin_fire(&mut self, by: String, reason: String) -> Result<Value, ErrorBody> {
        let before = self.require_playing()?;
        let now = self.clock.now();
        let running = self.running.as_ref().expect("playing");
        let mut failure = None;
        let (fired, at) = if let Some(deadline) = running.game.deadline() {
            // The engine refuses its clock's action before the deadline: play it as if the deadline had come.
            let at = deadline.at.max(now);
            self.apply_at(Actor::Clock, ActedBy::Admin, RawJson::from(deadline.action), at)
                .await?;
            ("engine", at)
        } else if let Some(due) = self.turn_deadline(running) {
            let at = due.max(now);
            for seat in self.timed_seats(running) {
                let Some(running) = &self.running else { break };
                let legal: Vec<Value> = serde_json::from_str(
                    running
                        .game
                        .legal_actions(seat, &mut json_write::Buffer::default()),
                )
                .expect("the game writes JSON");
                if legal.is_empty() {
                    continue;
                }
                let action = RawJson::from(&legal[self.rng.index(legal.len())]);
                if let Err(e) = self
                    .apply_at(Actor::Seat(Seat(seat.0)), ActedBy::Admin, action, at)
                    .await
                {
                    failure = Some(e);
                    break;
                }
            }
            ("turn_timer", at)
        } else {
            return Err(err(ErrorCode::IllegalAction, "no deadline is pending"));
        };
        let after = self.version();
        if after == before
            && let Some(e) = failure
        {
            return Err(e);
        }
        let audit = self.audit(
            by,
            "fire_deadline",
            None,
            reason,
            json!({"fired": fired, "deadline": at, "from_version": before, "to_version": after}),
        );
        // What was played is committed; it is audited even if a later seat's action failed.
        self.store.insert_audit(&audit).await.map_err(internal)?;
        info!(admin = %audit.admin, fired, before, after, "deadline fired by an administrator");
        match failure {
            Some(e) => Err(e),
            None => Ok(json!({"version": after, "fired": fired})),
        }
    }
}
