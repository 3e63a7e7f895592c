//! The host's controls of an open lobby (issue 13): change the game's options, the seat count and the turn
//! timer; remove a player; hand the host role to another seated human; list the lobby publicly or make it
//! private. Only the host may (`not_host`), only before the start (`already_started`); each change is stored
//! before anyone hears of it, so it survives a restart.

use protocol::{AbsencePolicy, ErrorBody, ErrorCode};
use rules::AnyGame;
use serde_json::Value;
use tracing::info;

use super::{
    MAX_TURN_TIMER_MS, MIN_TURN_TIMER_MS, Occupant, Table, absence::kind_name, check_absence, check_pace,
    check_rules_version, err, internal, setup_error,
};
use crate::store::Phase;

/// What the host asks of an open lobby.
#[derive(Debug)]
pub enum HostOp {
    /// New options (missing ones take their defaults), seat count and turn timer, together.
    Configure {
        options: Value,
        seats: u8,
        turn_timer_ms: Option<u64>,
        /// The new absence policy, or `None` to keep it.
        absent: Option<AbsencePolicy>,
        /// The new rules version, or `None` to keep it.
        rules_version: Option<u32>,
        /// The new pace, or `None` to keep it.
        pace: Option<protocol::Pace>,
    },
    /// Frees a seat; a human there is told `removed` and disconnected.
    Remove { seat: u8 },
    /// Hands the host role to the human at this seat.
    MakeHost { seat: u8 },
    /// Lists the lobby publicly, or makes it private.
    SetListed { listed: bool },
}

impl Table {
    pub(super) async fn host_op(&mut self, conn_id: u64, op: HostOp) -> Result<(), ErrorBody> {
        // After the start everyone hears the same answer, host or not.
        if self.phase != Phase::Open {
            return Err(err(
                ErrorCode::AlreadyStarted,
                "the match has started: the lobby can no longer be changed",
            ));
        }
        self.require_host(conn_id)?;
        match op {
            HostOp::Configure {
                options,
                seats,
                turn_timer_ms,
                absent,
                rules_version,
                pace,
            } => {
                self.configure(options, seats, turn_timer_ms, absent, (rules_version, pace))
                    .await
            }
            HostOp::Remove { seat } => self.remove_player(seat).await,
            HostOp::MakeHost { seat } => self.make_host(seat).await,
            HostOp::SetListed { listed } => {
                self.store
                    .set_listed(&self.code, listed)
                    .await
                    .map_err(internal)?;
                self.friends.listed = listed;
                info!(listed, "lobby visibility changed");
                self.push_lobby_to_all();
                Ok(())
            }
        }
    }

    fn check_seat(&self, seat: u8) -> Result<usize, ErrorBody> {
        if (seat as usize) < self.seats.len() {
            Ok(seat as usize)
        } else {
            Err(err(
                ErrorCode::BadMessage,
                format!("this lobby has no seat {seat}"),
            ))
        }
    }

    async fn configure(
        &mut self,
        options: Value,
        seats: u8,
        turn_timer_ms: Option<u64>,
        absent: Option<AbsencePolicy>,
        (rules_version, pace): (Option<u32>, Option<protocol::Pace>),
    ) -> Result<(), ErrorBody> {
        let options = rules::normalise_config(&self.game_id, &options).map_err(setup_error)?;
        // Set the game up once with a throwaway seed to check the seat count and the options together.
        AnyGame::new(&self.game_id, None, &options, seats, 0).map_err(setup_error)?;
        if let Some(ms) = turn_timer_ms
            && !(MIN_TURN_TIMER_MS..=MAX_TURN_TIMER_MS).contains(&ms)
        {
            return Err(err(
                ErrorCode::BadOptions,
                format!("the turn timer must be between {MIN_TURN_TIMER_MS} and {MAX_TURN_TIMER_MS} ms"),
            ));
        }
        let can_skip = rules::catalogue()
            .into_iter()
            .any(|g| g.id == &*self.game_id && g.can_skip);
        if let Some(absent) = absent {
            check_absence(can_skip, absent)?;
        }
        let pace = pace.unwrap_or(self.clocks.pace);
        check_pace(
            &pace,
            can_skip,
            turn_timer_ms,
            absent.unwrap_or(self.absence.policy),
        )?;
        let rules_version = match rules_version {
            Some(version) => check_rules_version(&self.game_id, Some(version))?,
            None => self.rules_version,
        };
        if let Some(taken) = self
            .seats
            .iter()
            .enumerate()
            .skip(seats as usize)
            .find(|(_, o)| matches!(o, Occupant::Human { .. }))
            .map(|(i, _)| i)
        {
            return Err(err(
                ErrorCode::BadOptions,
                format!("seat {taken} holds a player: remove them before removing their seat"),
            ));
        }
        let absent = absent.unwrap_or(self.absence.policy);
        if pace != self.clocks.pace {
            // Stored apart from the other settings, first: if the rest fails, the new pace stands alone.
            let text = crate::store::pace_text(&pace);
            self.store
                .set_pace(&self.code, text.as_deref())
                .await
                .map_err(internal)?;
            self.clocks.pace = pace;
        }
        self.store
            .configure_lobby(
                &self.code,
                &options,
                seats,
                turn_timer_ms,
                rules_version,
                kind_name(absent.policy),
                absent.grace_ms,
            )
            .await
            .map_err(internal)?;
        self.absence.policy = absent;
        self.options = options;
        self.rules_version = rules_version;
        self.turn_timer_ms = turn_timer_ms;
        self.absence.resize(seats as usize);
        self.seats.truncate(seats as usize);
        while self.seats.len() < seats as usize {
            self.seats.push(Occupant::Empty);
        }
        info!(seats, "lobby settings changed by the host");
        self.push_lobby_to_all();
        Ok(())
    }

    async fn remove_player(&mut self, seat: u8) -> Result<(), ErrorBody> {
        let index = self.check_seat(seat)?;
        if seat == self.host {
            return Err(err(
                ErrorCode::BadMessage,
                "the host cannot remove themselves: hand the host role over, or leave",
            ));
        }
        if matches!(self.seats[index], Occupant::Empty) {
            return Err(err(ErrorCode::BadMessage, format!("seat {seat} is empty")));
        }
        self.store
            .free_seat(&self.code, seat, Some(self.host))
            .await
            .map_err(internal)?;
        if let Occupant::Human { conn: Some(conn), .. } =
            std::mem::replace(&mut self.seats[index], Occupant::Empty)
        {
            conn.close(ErrorCode::Removed, "the host removed you from this lobby");
        }
        info!(seat, "player removed by the host");
        self.push_lobby_to_all();
        Ok(())
    }

    async fn make_host(&mut self, seat: u8) -> Result<(), ErrorBody> {
        let index = self.check_seat(seat)?;
        if !matches!(self.seats[index], Occupant::Human { .. }) {
            return Err(err(
                ErrorCode::BadMessage,
                format!("seat {seat} holds no player; only a seated player can host"),
            ));
        }
        if seat == self.host {
            return Ok(());
        }
        self.store.set_host(&self.code, seat).await.map_err(internal)?;
        self.host = seat;
        info!(seat, "host role handed over");
        self.push_lobby_to_all();
        Ok(())
    }
}
