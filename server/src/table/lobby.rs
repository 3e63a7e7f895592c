//! The lobby's rules: a new lobby with its host, players joining, spectators arriving, seats resumed by token,
//! leaving, bots added by the host, and the start of the match (a fresh game from a secret seed, stored before
//! anyone hears of it). Also the checks a lobby's settings must pass, whether the hub creates the lobby or its host
//! configures it: names, the turn timer's range, the absence policy and the game's own options.

use std::collections::VecDeque;

use protocol::{AbsenceKind, AbsencePolicy, ErrorBody, ErrorCode, SeatToken};
use rules::{AnyGame, Seat, SetupError, Viewer};
use tracing::info;

use super::{
    Conn, Occupant, Respond, Running, Seated, Table, TableDeps, Watcher, err, internal, play::SeatOptions,
};
use crate::{
    secrets,
    store::{LobbyRecord, MatchRecord, Phase, SeatKind, SeatRecord},
    text::check_name,
};

/// Limits on what a lobby may ask for.
pub const MIN_TURN_TIMER_MS: u64 = 1_000;
pub const MAX_TURN_TIMER_MS: u64 = 24 * 60 * 60 * 1_000;

/// The longest grace period an absence policy may ask for.
pub const MAX_ABSENCE_GRACE_MS: u64 = 24 * 60 * 60 * 1_000;

/// Refuses an absence policy the game cannot honour (`skip` where it cannot skip) or an out-of-range grace.
pub(crate) fn check_absence(can_skip: bool, absent: AbsencePolicy) -> Result<(), ErrorBody> {
    if absent.policy == AbsenceKind::Skip && !can_skip {
        return Err(ErrorBody::new(
            ErrorCode::BadOptions,
            "this game cannot skip an absent player's decisions (see can_skip in GET /api/games); use wait or bot",
        ));
    }
    if absent.grace_ms > MAX_ABSENCE_GRACE_MS {
        return Err(ErrorBody::new(
            ErrorCode::BadOptions,
            format!("the absence grace period must be at most {MAX_ABSENCE_GRACE_MS} ms"),
        ));
    }
    Ok(())
}

pub(crate) fn setup_error(e: SetupError) -> ErrorBody {
    match e {
        SetupError::UnknownGame(_) => ErrorBody::new(ErrorCode::UnknownGame, e.to_string()),
        SetupError::PlayerCount { .. } | SetupError::BadOption { .. } | SetupError::RulesVersion { .. } => {
            ErrorBody::new(ErrorCode::BadOptions, e.to_string())
        }
    }
}

/// The newest rules version of `game` (a game the registry lists).
pub(crate) fn newest_rules_version(game: &str) -> u32 {
    rules::rules_versions(game).map_or(0, |versions| *versions.end())
}

/// The rules version a lobby of `game` asks for: one its engine keeps, or the newest when none is asked.
pub(crate) fn check_rules_version(game: &str, asked: Option<u32>) -> Result<u32, ErrorBody> {
    let versions = rules::rules_versions(game)
        .ok_or_else(|| ErrorBody::new(ErrorCode::UnknownGame, format!("no game has the id `{game}`")))?;
    match asked {
        None => Ok(*versions.end()),
        Some(version) if versions.contains(&version) => Ok(version),
        Some(version) => Err(ErrorBody::new(
            ErrorCode::BadOptions,
            format!(
                "`{game}` has rules versions {} to {}, not {version}",
                versions.start(),
                versions.end()
            ),
        )),
    }
}

impl Table {
    /// A new open lobby with its host at seat 0 (already stored by the caller).
    pub fn new_lobby(
        lobby: &LobbyRecord,
        host_name: String,
        host_token_hash: String,
        host_conn: Conn,
        deps: TableDeps,
    ) -> Table {
        let mut seats: Vec<Occupant> = (0..lobby.seat_count).map(|_| Occupant::Empty).collect();
        seats[lobby.host_seat as usize] = Occupant::Human {
            name: host_name,
            token_hash: host_token_hash,
            conn: Some(host_conn),
        };
        let mut table = Table::assemble(
            lobby,
            newest_rules_version(&lobby.game),
            Phase::Open,
            seats,
            None,
            deps,
        );
        let now = table.clock.now();
        table.mark_active(lobby.host_seat, now);
        table
    }

    /// The lobby's match plays by `rules_version` (checked by the caller) rather than the newest.
    pub fn with_rules_version(mut self, rules_version: u32) -> Table {
        self.rules_version = rules_version;
        self
    }

    /// Whether a private lobby's match is over: from then on only its seats and those given its watch token
    /// may read it; its code alone is answered as if no lobby had it.
    fn closed_to_code(&self) -> bool {
        self.phase == Phase::Finished && !self.friends.listed
    }

    /// The lobby's watch token (`secrets::watch_token`), from its seats' token hashes.
    fn watch_token(&self) -> String {
        let hashes = self.seats.iter().filter_map(|o| match o {
            Occupant::Human { token_hash, .. } => Some(token_hash.as_str()),
            _ => None,
        });
        secrets::watch_token(&self.code, hashes)
    }

    /// Whether a spectator may watch: with the lobby's watch token, or by the code alone unless the lobby is
    /// [closed to it](Self::closed_to_code). Refused as an unknown code, so that the answer says nothing more.
    pub(super) fn may_watch(&self, watch: Option<&str>) -> Result<(), ErrorBody> {
        let allowed = match watch {
            Some(token) => secrets::watch_token_matches(token, &self.watch_token()),
            None => !self.closed_to_code(),
        };
        if allowed {
            Ok(())
        } else {
            Err(super::unknown_lobby(&self.code))
        }
    }

    /// The watch token, for a seat holder once the match has started (the seats no longer change).
    pub(super) fn watch_link(&self, conn_id: u64) -> Result<String, ErrorBody> {
        if self.seat_of(conn_id).is_none() {
            return Err(err(
                ErrorCode::Unauthorized,
                "only a seat holder may ask for the watch link",
            ));
        }
        if self.phase == Phase::Open {
            return Err(err(
                ErrorCode::NotStarted,
                "the watch link is given once the match has started; until then the code lets anyone watch",
            ));
        }
        Ok(self.watch_token())
    }

    /// `spectate`: `conn` watches the table (answered on `reply` before anything is pushed to it), given the watch
    /// token when one is needed ([`Table::may_watch`]) and an acceptable name.
    pub(super) async fn spectate(
        &mut self,
        conn: Conn,
        watch: Option<String>,
        name: Option<String>,
        last_version: Option<u64>,
        reply: Respond<()>,
    ) {
        if let Err(refused) = self.may_watch(watch.as_deref()) {
            let _ = reply.send(Err(refused));
            return;
        }
        let name = match name.as_deref().map(check_name).transpose() {
            Ok(name) => name,
            Err(refused) => {
                let _ = reply.send(Err(refused));
                return;
            }
        };
        self.spectators.push(Watcher {
            conn: conn.clone(),
            name,
        });
        let _ = reply.send(Ok(()));
        self.push_lobby_to_all();
        // No version seen: the match so far, as far back as the table keeps it (its last `settings.history`
        // changes, none after a restart), so that a spectator arriving mid-match has its log. The events are those
        // every spectator was shown when they happened.
        let since = last_version.or_else(|| self.earliest_kept());
        self.push_state_to(&conn, Viewer::Spectator, since);
        // A spectator arriving at a finished table hears of its rematch, to follow it there.
        self.push_rematch_to(&conn).await;
    }

    pub(super) async fn join(&mut self, name: String, conn: Conn) -> Result<Seated, ErrorBody> {
        if self.closed_to_code() {
            return Err(super::unknown_lobby(&self.code));
        }
        let name = check_name(&name)?;
        if self.phase != Phase::Open {
            return Err(err(
                ErrorCode::AlreadyStarted,
                "this match has already started; spectate instead",
            ));
        }
        let Some(seat) = self.seats.iter().position(|o| matches!(o, Occupant::Empty)) else {
            return Err(err(ErrorCode::LobbyFull, "every seat of this lobby is taken"));
        };
        let conn_id = conn.id;
        let token = secrets::seat_token();
        let record = SeatRecord {
            seat: seat as u8,
            kind: SeatKind::Human,
            name: name.clone(),
            token_hash: Some(secrets::token_hash(&token)),
        };
        self.commits
            .insert_seat(&self.code, &record)
            .await
            .map_err(internal)?;
        self.seats[seat] = Occupant::Human {
            name,
            token_hash: record.token_hash.expect("set above"),
            conn: Some(conn),
        };
        // A spectator who takes a seat watches no more: it is a seat now.
        self.spectators.retain(|w| w.conn.id != conn_id);
        info!(seat, "seat taken");
        self.push_lobby_to_all();
        Ok(Seated {
            seat: Seat(seat as u8),
            seat_token: SeatToken::new(token),
            host: false,
        })
    }

    pub(super) async fn resume(
        &mut self,
        token: &str,
        last_version: Option<u64>,
        conn: Conn,
    ) -> Result<(Seat, bool), ErrorBody> {
        // Compare against every seat's hash, each in constant time, so the time taken says nothing about which
        // seat (if any) matched.
        let mut found = None;
        for (i, occupant) in self.seats.iter().enumerate() {
            if let Occupant::Human { token_hash, .. } = occupant
                && secrets::token_matches(token, token_hash)
            {
                found = Some(i);
            }
        }
        let Some(seat) = found else {
            if self.closed_to_code() {
                return Err(super::unknown_lobby(&self.code));
            }
            return Err(err(
                ErrorCode::Unauthorized,
                "this seat token does not belong to this lobby",
            ));
        };
        if let Occupant::Human { conn: slot, .. } = &mut self.seats[seat]
            && let Some(older) = slot.replace(conn.clone())
        {
            info!(seat, "seat taken over by a newer connection");
            older.close(
                ErrorCode::SessionReplaced,
                "this seat was resumed by a newer connection",
            );
        }
        // The player is back: the server stops playing for them before anyone hears of it.
        self.mark_present(seat);
        let seat = Seat(seat as u8);
        self.push_lobby_to_all();
        self.push_state_to(&conn, Viewer::Seat(seat), last_version);
        self.push_away_to(&conn, seat, last_version);
        self.push_rematch_to(&conn).await;
        Ok((seat, seat.0 == self.host))
    }

    pub(super) async fn leave(&mut self, conn_id: u64) -> Result<(), ErrorBody> {
        if self.is_spectator(conn_id) {
            self.spectators.retain(|w| w.conn.id != conn_id);
            self.push_lobby_to_all();
            return Ok(());
        }
        let Some(seat) = self.seat_of(conn_id) else {
            return Err(err(ErrorCode::NotInLobby, "you are not in this lobby"));
        };
        if self.phase != Phase::Open {
            // The seat stays yours for the rest of the match: you can resume it with your token.
            if let Occupant::Human { conn, .. } = &mut self.seats[seat as usize] {
                *conn = None;
            }
            let now = self.clock.now();
            self.mark_away(seat as usize, now);
            self.push_lobby_to_all();
            return Ok(());
        }
        let new_host = if seat == self.host {
            self.seats
                .iter()
                .enumerate()
                .find(|(i, o)| *i != seat as usize && matches!(o, Occupant::Human { .. }))
                .map(|(i, _)| i as u8)
        } else {
            Some(self.host)
        };
        self.store
            .free_seat(&self.code, seat, new_host)
            .await
            .map_err(internal)?;
        self.seats[seat as usize] = Occupant::Empty;
        match new_host {
            Some(host) => {
                self.host = host;
                self.push_lobby_to_all();
            }
            None => {
                info!("everyone left; lobby closed");
                self.metrics.phase_change(Some(self.phase), Some(Phase::Closed));
                self.phase = Phase::Closed;
                for s in self.spectators.drain(..) {
                    s.conn
                        .close(ErrorCode::UnknownLobby, "everyone left; the lobby is closed");
                }
            }
        }
        Ok(())
    }

    pub(super) fn require_host(&self, conn_id: u64) -> Result<(), ErrorBody> {
        match self.seat_of(conn_id) {
            Some(seat) if seat == self.host => Ok(()),
            Some(_) => Err(err(ErrorCode::NotHost, "only the host may do this")),
            None if self.is_spectator(conn_id) => Err(err(ErrorCode::NotHost, "only the host may do this")),
            None => Err(err(ErrorCode::NotInLobby, "you are not in this lobby")),
        }
    }

    pub(super) async fn add_bot(&mut self, conn_id: u64, seat: Option<u8>) -> Result<(), ErrorBody> {
        // After the start everyone hears the same answer, host or not.
        if self.phase != Phase::Open {
            return Err(err(
                ErrorCode::AlreadyStarted,
                "bots can only sit down before the start",
            ));
        }
        self.require_host(conn_id)?;
        let seat = match seat {
            Some(s) if (s as usize) >= self.seats.len() => {
                return Err(err(ErrorCode::BadMessage, format!("this lobby has no seat {s}")));
            }
            Some(s) if !matches!(self.seats[s as usize], Occupant::Empty) => {
                return Err(err(ErrorCode::LobbyFull, format!("seat {s} is taken")));
            }
            Some(s) => s as usize,
            None => self
                .seats
                .iter()
                .position(|o| matches!(o, Occupant::Empty))
                .ok_or_else(|| err(ErrorCode::LobbyFull, "every seat of this lobby is taken"))?,
        };
        let name = format!("Bot {}", seat + 1);
        let record = SeatRecord {
            seat: seat as u8,
            kind: SeatKind::Bot,
            name: name.clone(),
            token_hash: None,
        };
        self.commits
            .insert_seat(&self.code, &record)
            .await
            .map_err(internal)?;
        self.seats[seat] = Occupant::Bot { name };
        self.push_lobby_to_all();
        Ok(())
    }

    /// A new match of this table's game, options and seats with a fresh seed, and its record (not yet stored).
    pub(crate) fn new_match(&self) -> Result<(AnyGame, MatchRecord), ErrorBody> {
        let players = self.seats.len() as u8;
        let seed = self.settings.match_seed.unwrap_or_else(secrets::seed);
        let game = AnyGame::new(
            &self.game_id,
            Some(self.rules_version),
            &self.options,
            players,
            seed,
        )
        .map_err(|e| err(ErrorCode::BadOptions, e.to_string()))?;
        let record = MatchRecord {
            id: secrets::match_id(),
            game: self.game_id.to_string(),
            options: self.options.clone(),
            players,
            seed,
            rules_version: self.rules_version,
            started_at: self.clock.now(),
            finished: false,
            to_decide: Some(crate::store::to_decide_text(&game.status())),
        };
        Ok((game, record))
    }

    pub(super) async fn start(&mut self, conn_id: u64) -> Result<(), ErrorBody> {
        let rematch_open = self.phase == Phase::Finished && self.rematch.is_some();
        // After the start everyone hears the same answer, host or not.
        if self.phase != Phase::Open && !rematch_open {
            return Err(err(ErrorCode::AlreadyStarted, "the match has already started"));
        }
        self.require_host(conn_id)?;
        if rematch_open {
            return self.start_rematch_now(conn_id).await;
        }
        if self.seats.iter().any(|o| matches!(o, Occupant::Empty)) {
            return Err(err(
                ErrorCode::SeatsEmpty,
                "every seat must be taken (add bots to empty seats)",
            ));
        }
        let (game, record) = self.new_match()?;
        let now = record.started_at;
        self.commits
            .start_match(&self.code, &record)
            .await
            .map_err(internal)?;
        tracing::Span::current().record("match_id", record.id.as_str());
        info!(match_id = %record.id, players = record.players, "match started");
        self.start_clocks(&game, now);
        self.running = Some(Running {
            match_id: record.id.into(),
            options: SeatOptions::new(&game, 0),
            game,
            version: 0,
            last_change: now,
            history: VecDeque::new(),
            stalled_at: None,
            unsure: false,
            race: None,
        });
        self.metrics.phase_change(Some(self.phase), Some(Phase::Playing));
        self.phase = Phase::Playing;
        // Players who went away before the start count as away from now.
        for seat in 0..self.seats.len() {
            self.mark_away(seat, now);
        }
        self.push_lobby_to_all();
        self.push_state_to_all(0, &[]);
        Ok(())
    }
}
