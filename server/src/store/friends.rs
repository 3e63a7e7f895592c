//! Queries for playing with friends (issue 13): the lobby chat, the host's changes to an open lobby (options,
//! seat count, turn timer, host, visibility) and the public list of open lobbies. Only the table task that owns
//! a lobby writes its rows (the chat through the table's chat writer, in the table's order).

use protocol::{ChatChannel, ChatMessage, ListedLobby};
use rules::Seat;
use serde_json::Value;
use sqlx::Row;

use super::{Db, Phase, Store, StoreError, classify, corrupt, json_text, parse_json, small, to_i64};

/// How many lobbies the public list shows at most (the newest first).
pub const LISTED_LIMIT: i64 = 100;

fn channel_str(channel: ChatChannel) -> &'static str {
    match channel {
        ChatChannel::Players => "players",
        ChatChannel::Spectators => "spectators",
    }
}

impl Store {
    /// Stores one chat message of a lobby (and of its match, when one is being played).
    pub async fn insert_chat(
        &self,
        code: &str,
        message: &ChatMessage,
        match_id: Option<&str>,
    ) -> Result<(), StoreError> {
        on_pool!(self, pool => {
            sqlx::query(
                "INSERT INTO chat_messages (lobby_code, id, channel, seat, name, text, match_id, at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            )
            .bind(code)
            .bind(to_i64(message.id))
            .bind(channel_str(message.channel))
            .bind(message.seat.map(|s| i64::from(s.0)))
            .bind(&message.name)
            .bind(&message.text)
            .bind(match_id)
            .bind(to_i64(message.at))
            .execute(pool)
            .await
            .map(|_| ())
            .map_err(classify)
        })
    }

    /// The last `limit` chat messages of a lobby, oldest first.
    pub async fn recent_chat(&self, code: &str, limit: usize) -> Result<Vec<ChatMessage>, StoreError> {
        on_pool!(self, pool => {
            let rows = sqlx::query(
                "SELECT id, channel, seat, name, text, at FROM chat_messages WHERE lobby_code = $1 \
                 ORDER BY id DESC LIMIT $2",
            )
            .bind(code)
            .bind(limit as i64)
            .fetch_all(pool)
            .await
            .map_err(classify)?;
            let mut messages = Vec::with_capacity(rows.len());
            for row in rows.iter().rev() {
                messages.push(ChatMessage {
                    id: row.try_get::<i64, _>("id")? as u64,
                    channel: match row.try_get::<String, _>("channel")?.as_str() {
                        "players" => ChatChannel::Players,
                        "spectators" => ChatChannel::Spectators,
                        other => return Err(corrupt(format!("chat channel `{other}`"))),
                    },
                    seat: row
                        .try_get::<Option<i64>, _>("seat")?
                        .map(|s| small(s, "chat seat").map(Seat))
                        .transpose()?,
                    name: row.try_get("name")?,
                    text: row.try_get("text")?,
                    at: row.try_get::<i64, _>("at")? as u64,
                });
            }
            Ok(messages)
        })
    }

    /// Which match each stored chat message of a lobby was written during (`None`: before the start), by id.
    pub async fn chat_matches(&self, code: &str) -> Result<Vec<(u64, Option<String>)>, StoreError> {
        on_pool!(self, pool => {
            let rows = sqlx::query("SELECT id, match_id FROM chat_messages WHERE lobby_code = $1 ORDER BY id")
                .bind(code)
                .fetch_all(pool)
                .await
                .map_err(classify)?;
            rows.iter()
                .map(|row| Ok((row.try_get::<i64, _>("id")? as u64, row.try_get("match_id")?)))
                .collect()
        })
    }

    /// The host's new settings of an open lobby: options, seat count, turn timer, rules version and absence
    /// policy (`wait`, `bot` or `skip`, with its grace time), in one transaction with the removal of the seats at
    /// or past the new count (the caller checked they hold no human).
    #[allow(clippy::too_many_arguments)]
    pub async fn configure_lobby(
        &self,
        code: &str,
        options: &Value,
        seat_count: u8,
        turn_timer_ms: Option<u64>,
        rules_version: u32,
        absent_policy: &str,
        absent_grace_ms: u64,
    ) -> Result<(), StoreError> {
        on_pool!(self, pool => {
            let mut tx = pool.begin().await?;
            sqlx::query("DELETE FROM seats WHERE lobby_code = $1 AND seat >= $2")
                .bind(code)
                .bind(i64::from(seat_count))
                .execute(&mut *tx)
                .await
                .map_err(classify)?;
            sqlx::query(
                "UPDATE lobbies SET options = $1, seat_count = $2, turn_timer_ms = $3, rules_version = $4, \
                 absent_policy = $5, absent_grace_ms = $6 WHERE code = $7",
            )
            .bind(json_text(options))
            .bind(i64::from(seat_count))
            .bind(turn_timer_ms.map(to_i64))
            .bind(i64::from(rules_version))
            .bind(absent_policy)
            .bind(to_i64(absent_grace_ms))
            .bind(code)
                .execute(&mut *tx)
                .await
                .map_err(classify)?;
            tx.commit().await.map_err(classify)
        })
    }

    /// Hands the host role of a lobby to `seat`.
    pub async fn set_host(&self, code: &str, seat: u8) -> Result<(), StoreError> {
        on_pool!(self, pool => {
            sqlx::query("UPDATE lobbies SET host_seat = $1 WHERE code = $2")
                .bind(i64::from(seat))
                .bind(code)
                .execute(pool)
                .await
                .map(|_| ())
                .map_err(classify)
        })
    }

    /// Lists a lobby publicly (`true`) or makes it private.
    pub async fn set_listed(&self, code: &str, listed: bool) -> Result<(), StoreError> {
        on_pool!(self, pool => {
            sqlx::query("UPDATE lobbies SET listed = $1 WHERE code = $2")
                .bind(i64::from(listed))
                .bind(code)
                .execute(pool)
                .await
                .map(|_| ())
                .map_err(classify)
        })
    }

    /// Whether a lobby is publicly listed.
    pub async fn is_listed(&self, code: &str) -> Result<bool, StoreError> {
        on_pool!(self, pool => {
            let row = sqlx::query("SELECT listed FROM lobbies WHERE code = $1")
                .bind(code)
                .fetch_optional(pool)
                .await
                .map_err(classify)?;
            match row {
                Some(row) => Ok(row.try_get::<i64, _>("listed")? != 0),
                None => Ok(false),
            }
        })
    }

    /// The public list: open, listed lobbies with at least one free seat, of one game or of every game, the
    /// newest first (at most [`LISTED_LIMIT`]).
    pub async fn listed_lobbies(&self, game: Option<&str>) -> Result<Vec<ListedLobby>, StoreError> {
        // Two fixed statements rather than SQL built from the filter; the values are bound either way.
        const ALL: &str = "SELECT l.code, l.game, l.options, l.seat_count, l.host_seat, l.turn_timer_ms, l.created_at, \
             l.rules_version, l.pace, s.seat, s.name FROM lobbies l LEFT JOIN seats s ON s.lobby_code = l.code \
             WHERE l.code IN (SELECT code FROM lobbies WHERE phase = $1 AND listed = 1 \
             ORDER BY created_at DESC LIMIT $2) ORDER BY l.created_at DESC, l.code, s.seat";
        const ONE_GAME: &str = "SELECT l.code, l.game, l.options, l.seat_count, l.host_seat, l.turn_timer_ms, l.created_at, \
             l.rules_version, l.pace, s.seat, s.name FROM lobbies l LEFT JOIN seats s ON s.lobby_code = l.code \
             WHERE l.code IN (SELECT code FROM lobbies WHERE phase = $1 AND listed = 1 AND game = $3 \
             ORDER BY created_at DESC LIMIT $2) ORDER BY l.created_at DESC, l.code, s.seat";
        on_pool!(self, pool => {
            let rows = match game {
                Some(game) => sqlx::query(ONE_GAME)
                    .bind(Phase::Open.as_str())
                    .bind(LISTED_LIMIT)
                    .bind(game)
                    .fetch_all(pool)
                    .await,
                None => sqlx::query(ALL)
                    .bind(Phase::Open.as_str())
                    .bind(LISTED_LIMIT)
                    .fetch_all(pool)
                    .await,
            }
            .map_err(classify)?;
            let mut lobbies: Vec<(ListedLobby, u8)> = Vec::new();
            for row in &rows {
                let code: String = row.try_get("code")?;
                if lobbies.last().is_none_or(|(l, _)| l.code != code) {
                    let seats = small(row.try_get("seat_count")?, "seat count")?;
                    let game: String = row.try_get("game")?;
                    // NULL: the game's newest version (lobbies made before the column, and the default).
                    let rules_version = match row.try_get::<Option<i64>, _>("rules_version")? {
                        Some(v) => u32::try_from(v).map_err(corrupt)?,
                        None => rules::rules_versions(&game).map_or(0, |v| *v.end()),
                    };
                    lobbies.push((
                        ListedLobby {
                            code,
                            game,
                            rules_version,
                            options: parse_json(&row.try_get::<String, _>("options")?)?,
                            seats,
                            seats_taken: 0,
                            seats_free: seats,
                            host_name: String::new(),
                            turn_timer_ms: row.try_get::<Option<i64>, _>("turn_timer_ms")?.map(|v| v as u64),
                            created_at: row.try_get::<i64, _>("created_at")? as u64,
                            pace: super::records::parse_pace(row.try_get::<Option<String>, _>("pace")?.as_deref())?,
                        },
                        small(row.try_get("host_seat")?, "host seat")?,
                    ));
                }
                let (lobby, host) = lobbies.last_mut().expect("pushed above");
                if let Some(seat) = row.try_get::<Option<i64>, _>("seat")? {
                    let seat = small(seat, "seat")?;
                    if seat < lobby.seats {
                        lobby.seats_taken += 1;
                        lobby.seats_free -= 1;
                    }
                    if seat == *host {
                        lobby.host_name = row.try_get("name")?;
                    }
                }
            }
            Ok(lobbies.into_iter().map(|(l, _)| l).filter(|l| l.seats_free > 0).collect())
        })
    }
}
