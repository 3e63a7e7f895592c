//! Rematches (issue 13, point 4). Once the match is over, a seat holder's `rematch` opens an offer; every human
//! seat holder answers (the asker accepts by asking). The rematch starts when every human seat has answered, when
//! the host sends `start`, or when the offer's time runs out ([`REMATCH_WINDOW_MS`]), provided somebody accepted.
//!
//! It starts as a new lobby with a new join code, already playing a new match of the same game, rules version,
//! options, seat count, turn timer and absence policy, with a new seed: the finished lobby and its match stay as they were (the
//! admin API still finds them), and the new lobby records the code it follows (`lobbies.rematch_of`). The hub
//! starts the new lobby's task at once (`TableDeps::load`), so its bots play before anyone resumes it. Accepting
//! players who are connected when it starts get their old seat numbers with new seat tokens
//! ([`Push::Rematched`]); bots keep their seats; the seats of players who declined, did not answer or are not
//! connected get bots, so that the match can start at once. The offer itself lives in memory only: after a
//! restart the finished lobby has none, and anyone may ask again unless a rematch already started (the database
//! says so through `lobbies.rematch_of`). A rematch that started is rebuilt from the database for whoever arrives
//! at the finished table after a restart (a spectator, a returning player), so that they learn its code: its
//! `accepted` are the seats players hold in the rematch, its `deadline` when it started, and its `requested_by`
//! the rematch's host (who asked is not kept).

use protocol::{ErrorBody, ErrorCode, Push, RematchInfo, SeatToken, ServerMessage};
use rules::{Millis, Seat};
use tracing::{error, info, warn};

use super::{Occupant, Table, err, internal};
use crate::{
    secrets,
    store::{LobbyRecord, Phase, RematchRecord, SeatKind, SeatRecord, StoreError},
};

/// How long the others have to answer a rematch offer.
pub const REMATCH_WINDOW_MS: Millis = 60_000;

/// An open rematch offer.
#[derive(Debug)]
pub(crate) struct Offer {
    requested_by: Seat,
    /// Per seat: `Some(true)` accepted, `Some(false)` declined, `None` no answer (bots never answer).
    answers: Vec<Option<bool>>,
    deadline: Millis,
    /// Set once the rematch has started.
    new_code: Option<String>,
}

impl Table {
    fn rematch_info(&self, offer: &Offer) -> RematchInfo {
        let with = |answer: bool| {
            offer
                .answers
                .iter()
                .enumerate()
                .filter(|(_, a)| **a == Some(answer))
                .map(|(i, _)| Seat(i as u8))
                .collect()
        };
        RematchInfo {
            code: self.code.to_string(),
            requested_by: offer.requested_by,
            accepted: with(true),
            declined: with(false),
            deadline: offer.deadline,
            new_code: offer.new_code.clone(),
        }
    }

    fn push_rematch_to_all(&mut self) {
        let Some(offer) = &self.rematch else { return };
        let message = ServerMessage::Push(Push::Rematch(self.rematch_info(offer)));
        let failed: Vec<u64> = self
            .connections()
            .filter(|(_, c)| !c.push(message.clone()))
            .map(|(_, c)| c.id)
            .collect();
        self.drop_connections(&failed);
    }

    /// The current offer, for a connection that just arrived (after a restart, the rematch that started, read
    /// back from the database).
    pub(crate) async fn push_rematch_to(&mut self, conn: &super::Conn) {
        if self.rematch.is_none() && self.phase == Phase::Finished {
            self.restore_started_rematch().await;
        }
        if let Some(offer) = &self.rematch {
            let message = ServerMessage::Push(Push::Rematch(self.rematch_info(offer)));
            if !conn.push(message) {
                self.drop_connections(&[conn.id]);
            }
        }
    }

    /// A finished table without an offer in memory (loaded after a restart, or unloaded while idle): the rematch
    /// the database says started, as a started offer.
    async fn restore_started_rematch(&mut self) {
        match self.store.rematch_of(&self.code).await {
            Ok(Some(started)) => {
                let mut answers = vec![None; self.seats.len()];
                for seat in &started.humans {
                    if let Some(answer) = answers.get_mut(*seat as usize) {
                        *answer = Some(true);
                    }
                }
                self.rematch = Some(Offer {
                    requested_by: Seat(started.host_seat),
                    answers,
                    deadline: started.started_at,
                    new_code: Some(started.code),
                });
            }
            Ok(None) => {}
            // The newcomer simply hears of no rematch; asking for one checks the database again.
            Err(e) => warn!(error = %e, "could not read whether a rematch started"),
        }
    }

    /// `rematch`: opens the offer or records an answer.
    pub(crate) async fn rematch(&mut self, conn_id: u64, accept: bool) -> Result<(), ErrorBody> {
        let Some(seat) = self.seat_of(conn_id) else {
            return Err(if self.is_spectator(conn_id) {
                err(ErrorCode::Unauthorized, "spectators cannot ask for a rematch")
            } else {
                err(ErrorCode::NotInLobby, "you are not in this lobby")
            });
        };
        if self.phase != Phase::Finished {
            return Err(err(
                ErrorCode::NotOver,
                "a rematch can only be asked for once the match is over",
            ));
        }
        let now = self.clock.now();
        match &mut self.rematch {
            Some(Offer {
                new_code: Some(code), ..
            }) => {
                return Err(err(
                    ErrorCode::AlreadyStarted,
                    format!("the rematch has started as lobby {code}"),
                ));
            }
            Some(offer) => offer.answers[seat as usize] = Some(accept),
            None if !accept => {
                return Err(err(ErrorCode::BadMessage, "nobody has asked for a rematch"));
            }
            None => {
                // A rematch started before a restart (the offer itself lives in memory only).
                if let Some(started) = self.store.rematch_of(&self.code).await.map_err(internal)? {
                    return Err(err(
                        ErrorCode::AlreadyStarted,
                        format!("the rematch has started as lobby {}", started.code),
                    ));
                }
                let mut answers = vec![None; self.seats.len()];
                answers[seat as usize] = Some(true);
                self.rematch = Some(Offer {
                    requested_by: Seat(seat),
                    answers,
                    deadline: now + REMATCH_WINDOW_MS,
                    new_code: None,
                });
                info!(seat, "rematch asked for");
            }
        }
        let all_answered = {
            let offer = self.rematch.as_ref().expect("set above");
            self.seats
                .iter()
                .enumerate()
                .all(|(i, o)| !matches!(o, Occupant::Human { .. }) || offer.answers[i].is_some())
        };
        if all_answered {
            self.start_rematch().await?;
        } else {
            self.push_rematch_to_all();
        }
        Ok(())
    }

    /// `start` from the host while an offer is open: the rematch starts with those who accepted so far.
    pub(crate) async fn start_rematch_now(&mut self, conn_id: u64) -> Result<(), ErrorBody> {
        self.require_host(conn_id)?;
        match &self.rematch {
            Some(Offer { new_code: None, .. }) => self.start_rematch().await,
            _ => Err(err(ErrorCode::AlreadyStarted, "the match has already started")),
        }
    }

    /// When the offer's time runs out.
    pub(crate) fn rematch_wake(&self) -> Option<Millis> {
        match &self.rematch {
            Some(offer) if offer.new_code.is_none() => Some(offer.deadline),
            _ => None,
        }
    }

    pub(crate) async fn on_rematch_timer(&mut self) {
        let now = self.clock.now();
        if self.rematch_wake().is_some_and(|at| at <= now)
            && let Err(e) = self.start_rematch().await
        {
            error!(code = e.code.as_str(), message = %e.message, "the rematch could not start");
            // Try again a second later rather than spinning.
            if let Some(offer) = &mut self.rematch {
                offer.deadline = now + super::RETRY_AFTER_MS;
            }
        }
    }

    /// Starts the rematch with the players who accepted and are connected, or withdraws the offer if nobody
    /// did.
    async fn start_rematch(&mut self) -> Result<(), ErrorBody> {
        let Some(offer) = &self.rematch else {
            return Ok(());
        };
        // Who is seated again: accepting humans with a connection to send their new token to.
        let mut tokens: Vec<Option<String>> = vec![None; self.seats.len()];
        let mut records = Vec::new();
        for (i, occupant) in self.seats.iter().enumerate() {
            let record = match occupant {
                Occupant::Human {
                    name, conn: Some(_), ..
                } if offer.answers[i] == Some(true) => {
                    let token = secrets::seat_token();
                    let record = SeatRecord {
                        seat: i as u8,
                        kind: SeatKind::Human,
                        name: name.clone(),
                        token_hash: Some(secrets::token_hash(&token)),
                    };
                    tokens[i] = Some(token);
                    record
                }
                Occupant::Bot { name } => SeatRecord {
                    seat: i as u8,
                    kind: SeatKind::Bot,
                    name: name.clone(),
                    token_hash: None,
                },
                _ => SeatRecord {
                    seat: i as u8,
                    kind: SeatKind::Bot,
                    name: format!("Bot {}", i + 1),
                    token_hash: None,
                },
            };
            records.push(record);
        }
        if tokens.iter().all(Option::is_none) {
            info!("nobody is left to play the rematch; offer withdrawn");
            self.rematch = None;
            return Err(err(
                ErrorCode::BadMessage,
                "nobody connected accepted the rematch; the offer is withdrawn",
            ));
        }
        let host = if tokens[self.host as usize].is_some() {
            self.host
        } else {
            tokens.iter().position(Option::is_some).expect("someone accepted") as u8
        };
        let (_, record) = self.new_match()?;
        let now = record.started_at;
        let mut attempts = 0;
        let lobby = loop {
            let lobby = LobbyRecord {
                code: secrets::join_code(),
                game: self.game_id.to_string(),
                options: self.options.clone(),
                seat_count: record.players,
                host_seat: host,
                turn_timer_ms: self.turn_timer_ms,
                phase: Phase::Playing,
                created_at: now,
                absent_policy: super::absence::kind_name(self.absence.policy.policy).to_owned(),
                absent_grace_ms: self.absence.policy.grace_ms,
                // The rematch keeps the finished lobby's rules version.
                rules_version: Some(record.rules_version),
                rematch_of: Some(self.code.to_string()),
                pace: self.clocks.pace,
            };
            let written = self
                .store
                .create_rematch(&RematchRecord {
                    lobby: &lobby,
                    seats: &records,
                    record: &record,
                })
                .await;
            match written {
                Ok(()) => break lobby,
                Err(StoreError::Conflict) if attempts < 8 => attempts += 1,
                Err(e) => return Err(internal(e)),
            }
        };
        info!(new_code = %lobby.code, match_id = %record.id, "rematch started");
        // Its task starts now, so that its bots play without waiting for a player to resume it.
        let _ = self.load.send(lobby.code.clone());
        if let Some(offer) = &mut self.rematch {
            offer.new_code = Some(lobby.code.clone());
        }
        // Each accepting player hears of their new seat; everyone hears that the rematch started.
        let mut failed = Vec::new();
        for (i, token) in tokens.into_iter().enumerate() {
            let (Some(token), Occupant::Human { conn: Some(conn), .. }) = (token, &self.seats[i]) else {
                continue;
            };
            let message = ServerMessage::Push(Push::Rematched {
                code: lobby.code.clone(),
                previous: self.code.to_string(),
                seat: Seat(i as u8),
                seat_token: SeatToken::new(token),
                host: i as u8 == host,
            });
            if !conn.push(message) {
                failed.push(conn.id);
            }
        }
        self.drop_connections(&failed);
        self.push_rematch_to_all();
        Ok(())
    }
}
