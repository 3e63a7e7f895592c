//! `my_tables` (issue 47, "my tables"): a player's list of the tables whose seat tokens their client keeps, with
//! whose turn it is at each, answered from the database alone (`Store::inbox_lobby`), so that it is the same on
//! every node and for tables out of memory, and costs no table task anything.
//!
//! Each entry's token is checked as `resume` checks it: hashed and compared with every seat's hash in constant time
//! (`secrets::token_matches`). An unknown code and a wrong token are answered alike (`unknown`), and each counts as
//! a failed look-up against the limits on guessing codes and tokens (`guesses.rs`), as a failed `resume` does, so
//! the request is no faster oracle than `resume`.

use std::collections::HashMap;
use std::net::IpAddr;

use protocol::{ErrorBody, ErrorCode, MY_TABLES_MAX, MyTable, TablePhase, TableRef, TableSeat, TableSummary};
use rules::{Millis, Seat};
use tracing::error;

use crate::guesses::Guesses;
use crate::secrets;
use crate::store::{InboxLobby, SeatKind, Store};

/// Answers `my_tables` for `tables`, at time `now` (the tables' clock): one entry per table, in order.
pub(crate) async fn my_tables(
    store: &Store,
    guesses: &Guesses,
    ip: Option<IpAddr>,
    tables: &[TableRef],
    now: Millis,
) -> Result<Vec<MyTable>, ErrorBody> {
    if tables.len() > MY_TABLES_MAX {
        return Err(ErrorBody::new(
            ErrorCode::TooManyTables,
            format!(
                "`tables` names {} tables; one request may name at most {MY_TABLES_MAX}",
                tables.len()
            ),
        ));
    }
    let names: HashMap<&'static str, &'static str> =
        rules::catalogue().into_iter().map(|g| (g.id, g.name)).collect();
    let mut entries = Vec::with_capacity(tables.len());
    for table in tables {
        // Carries a secret: let through over the limits (a player gets back to their tables during an attack),
        // but a failure still counts.
        let guess = guesses.check(ip, true)?;
        let found = match look_up(store, table).await {
            Ok(found) => found,
            Err(e) => {
                let _ = guesses.settle(ip, guess, Ok(()));
                return Err(e);
            }
        };
        let found = found.ok_or_else(|| ErrorBody::new(ErrorCode::UnknownLobby, "unknown"));
        entries.push(match guesses.settle(ip, guess, found) {
            Ok((lobby, seat)) => MyTable::Seated(Box::new(summary(&table.code, &lobby, seat, &names, now))),
            Err(_) => MyTable::Unknown {
                code: table.code.clone(),
            },
        });
    }
    Ok(entries)
}

/// The lobby `table` names and the seat its token holds; `None` if there is no such lobby (or it closed before
/// its start) or the token holds none of its seats.
async fn look_up(store: &Store, table: &TableRef) -> Result<Option<(InboxLobby, Seat)>, ErrorBody> {
    let code = secrets::normalise_code(&table.code);
    if !secrets::is_code_shaped(&code) {
        return Ok(None);
    }
    let lobby = match store.inbox_lobby(&code).await {
        Ok(Some(lobby)) => lobby,
        Ok(None) => return Ok(None),
        Err(e) if e.is_unavailable() => return Err(crate::table::store_unavailable()),
        Err(e) => {
            error!(error = %e, "reading a lobby for my_tables failed");
            return Err(ErrorBody::new(ErrorCode::Internal, "reading the tables failed"));
        }
    };
    // Compared with every seat's hash, each in constant time, so the time taken says nothing about which seat
    // (if any) matched (as `resume`).
    let mut found = None;
    for seat in &lobby.seats {
        if let Some(hash) = &seat.token_hash
            && secrets::token_matches(table.token.expose(), hash)
        {
            found = Some(Seat(seat.seat));
        }
    }
    Ok(found.map(|seat| (lobby, seat)))
}

/// One seat's bank as an action row stores it (`table/clocks.rs` `Bank`): `left` ms as of `since`, from when it
/// runs.
#[derive(serde::Deserialize)]
struct StoredBank {
    left: Millis,
    #[serde(default)]
    since: Option<Millis>,
}

/// The time left on `seat`'s correspondence clock at `now`, from the clocks its match's last action stored (before
/// the first action: every seat's `move_ms`, running from the start for the seats deciding). An estimate from the
/// database alone: an outage since the last action and a vacation begun since are not known here (the table's own
/// `state` push has the exact clocks).
fn correspondence_left(
    play: &crate::store::InboxMatch,
    seat: Seat,
    move_ms: Millis,
    now: Millis,
) -> Option<Millis> {
    let bank = match &play.clocks {
        Some(text) => serde_json::from_str::<Vec<StoredBank>>(text)
            .ok()?
            .into_iter()
            .nth(seat.index())?,
        None => StoredBank {
            left: move_ms,
            since: play
                .to_decide
                .as_deref()
                .is_some_and(|d| d.contains(&seat))
                .then_some(play.last_at),
        },
    };
    Some(match bank.since {
        Some(since) => bank.left.saturating_sub(now.saturating_sub(since)),
        None => bank.left,
    })
}

/// What the list says of `lobby`, for the player at `seat`.
fn summary(
    code: &str,
    lobby: &InboxLobby,
    seat: Seat,
    names: &HashMap<&'static str, &'static str>,
    now: Millis,
) -> TableSummary {
    let players = (0..lobby.seat_count)
        .map(|i| {
            let taken = lobby.seats.iter().find(|s| s.seat == i);
            TableSeat {
                seat: Seat(i),
                name: taken.map(|s| s.name.clone()),
                bot: taken.is_some_and(|s| s.kind == SeatKind::Bot),
            }
        })
        .collect::<Vec<_>>();
    let play = lobby.play.as_ref();
    let phase = match play.map(|p| p.status.as_str()) {
        None => TablePhase::Open,
        Some("playing") => TablePhase::Playing,
        Some("aborted") => TablePhase::Aborted,
        Some("abandoned") => TablePhase::Abandoned,
        Some(_) => TablePhase::Finished,
    };
    let to_decide = match phase {
        TablePhase::Playing => play.and_then(|p| p.to_decide.clone()),
        _ => Some(Vec::new()),
    };
    let deciding = to_decide.as_deref().unwrap_or_default();
    let your_turn = deciding.contains(&seat);
    let human_decides = deciding
        .iter()
        .any(|s| players.get(s.index()).is_some_and(|p| !p.bot && p.name.is_some()));
    let deadline = match (play, lobby.turn_timer_ms) {
        (Some(p), Some(timer)) if human_decides => Some(p.last_at + timer),
        _ => None,
    };
    TableSummary {
        code: code.to_owned(),
        game: lobby.game.clone(),
        game_name: names
            .get(lobby.game.as_str())
            .copied()
            .unwrap_or(&lobby.game)
            .to_owned(),
        seat,
        players,
        phase,
        to_decide,
        your_turn,
        deadline,
        clock_left_ms: match lobby.pace {
            protocol::Pace::Live => deadline.filter(|_| your_turn).map(|at| at.saturating_sub(now)),
            protocol::Pace::Correspondence { move_ms, .. } if phase == TablePhase::Playing => {
                play.and_then(|p| correspondence_left(p, seat, move_ms, now))
            }
            protocol::Pace::Correspondence { .. } => None,
        },
        last_move_at: play.map(|p| p.last_at),
        version: play.map_or(0, |p| p.version),
        result: play.and_then(|p| p.outcome.clone()),
    }
}
