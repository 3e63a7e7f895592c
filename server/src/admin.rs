//! The admin API under `/api/admin/` (issue 9): off unless an admin token is configured (`--admin-token` /
//! `ADMIN_TOKEN`); every request carries it as `Authorization: Bearer TOKEN`, compared in constant time as a
//! SHA-256 hash (the same helper as seat tokens). A missing token gets 401, any other token (a seat token
//! included) 403; both are logged without the token.
//!
//! Reads that only need the database (lists, the action log, replays, results, the audit log) read it directly;
//! everything about a live table (its seats and connections, complete state, deadlines, a viewer's view) and
//! every admin action goes through the table's own task as a [`Command::Admin`], so nothing writes a match from
//! outside its owner. Replays rebuild a match from its seed and log with the engine, as recovery does.

// Helpers return `Result<_, Response>` so a handler can `return` a refusal as is; on these rare admin paths the
// size of the error variant does not matter.
#![allow(clippy::result_large_err)]

use std::sync::Arc;

use axum::{
    Json,
    extract::{
        FromRef, FromRequestParts, Path, Query, State,
        rejection::{JsonRejection, PathRejection, QueryRejection},
    },
    http::{StatusCode, header, request::Parts},
    response::{IntoResponse, Response},
};
use protocol::{ErrorBody, ErrorCode, Push, RawJson, ServerMessage, StateUpdate};
use rules::{AnyGame, Millis, Seat, Viewer};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::oneshot;
use tracing::warn;

use crate::{
    connection::Shared,
    secrets,
    store::{SeatKind, StoredLobby, TableFilter},
    table::{AdminOp, Command, Table},
};

/// The admin token. Its `Debug` form is redacted; the server keeps only its hash after start-up.
#[derive(Clone)]
pub struct AdminToken(String);

/// Least entropy of an admin token, in bits: it is a password that unlocks every match.
pub const MIN_ADMIN_TOKEN_BITS: f64 = 128.0;

/// An alphabet: its name, its size, and whether a byte belongs to it.
type Alphabet = (&'static str, f64, fn(u8) -> bool);

/// The alphabets a token is measured against, smallest first: a token drawn at random from one of them carries
/// log2(size) bits per character.
const TOKEN_ALPHABETS: [Alphabet; 4] = [
    ("decimal digits", 10.0, |b| b.is_ascii_digit()),
    ("hex digits", 16.0, |b| b.is_ascii_hexdigit()),
    ("base64", 64.0, |b| {
        b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'-' | b'_' | b'=')
    }),
    ("printable ASCII", 94.0, |b| b.is_ascii_graphic()),
];

impl AdminToken {
    /// Parses a configured token (surrounding spaces ignored). It must be printable ASCII and carry at least
    /// [`MIN_ADMIN_TOKEN_BITS`] bits if drawn at random from the smallest alphabet holding all its characters:
    /// at least 39 decimal digits, 32 hex digits, 22 base64/base64url characters, or 20 other printable ASCII
    /// characters (`openssl rand -hex 16` or `openssl rand -base64 24` make one). The rule cannot tell a
    /// random token from a chosen one: generate it.
    pub fn parse(text: &str) -> Result<AdminToken, String> {
        let text = text.trim();
        let bytes = text.as_bytes();
        let Some((name, size, _)) = TOKEN_ALPHABETS
            .iter()
            .find(|(_, _, member)| bytes.iter().all(|b| member(*b)))
        else {
            return Err("the admin token must be printable ASCII without spaces".into());
        };
        let bits = bytes.len() as f64 * size.log2();
        if bits < MIN_ADMIN_TOKEN_BITS {
            let needed = (MIN_ADMIN_TOKEN_BITS / size.log2()).ceil();
            return Err(format!(
                "the admin token must carry at least {MIN_ADMIN_TOKEN_BITS} random bits: {needed} or more \
                 {name} (this one has {} characters, {bits:.0} bits); generate one with `openssl rand -hex 16`",
                bytes.len()
            ));
        }
        Ok(AdminToken(text.to_string()))
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for AdminToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AdminToken(<redacted>)")
    }
}

/// What the admin API reads of the server: the connections' shared state (its hub) and, when an admin token is
/// configured, what is kept of it (the admin API answers 404 otherwise). The router's state hands it to the
/// handlers (`FromRef`, in `app.rs`), so the admin API does not depend on the router that serves it.
#[derive(Clone, Debug)]
pub(crate) struct AdminState {
    pub(crate) shared: Arc<Shared>,
    pub(crate) auth: Option<Arc<AdminAuth>>,
}

/// What the server keeps of the admin token: its hash.
#[derive(Debug)]
pub struct AdminAuth {
    token_hash: String,
}

impl AdminAuth {
    pub fn new(token: &AdminToken) -> AdminAuth {
        AdminAuth {
            token_hash: secrets::token_hash(token.expose()),
        }
    }
}

fn error(status: StatusCode, code: ErrorCode, message: impl Into<String>) -> Response {
    (status, Json(ErrorBody::new(code, message))).into_response()
}

/// An HTTP status for a table's refusal.
fn refusal(e: ErrorBody) -> Response {
    let status = match e.code {
        ErrorCode::UnknownLobby => StatusCode::NOT_FOUND,
        ErrorCode::BadMessage => StatusCode::BAD_REQUEST,
        ErrorCode::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        ErrorCode::ShuttingDown | ErrorCode::StoreUnavailable => StatusCode::SERVICE_UNAVAILABLE,
        _ => StatusCode::CONFLICT,
    };
    (status, Json(e)).into_response()
}

fn internal(e: impl std::fmt::Display) -> Response {
    tracing::error!(error = %e, "admin request failed");
    error(
        StatusCode::INTERNAL_SERVER_ERROR,
        ErrorCode::Internal,
        "the server could not complete this request",
    )
}

fn not_found(what: impl Into<String>) -> Response {
    error(StatusCode::NOT_FOUND, ErrorCode::UnknownLobby, what)
}

/// Proof that a request carries the admin token. Every admin handler takes it as its first argument, so no
/// handler runs (and no body is read) for a request without it.
#[derive(Debug)]
pub(crate) struct Admin;

impl<S: Send + Sync> FromRequestParts<S> for Admin
where
    AdminState: FromRef<S>,
{
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Admin, Response> {
        let state = AdminState::from_ref(state);
        let Some(auth) = &state.auth else {
            return Err(error(
                StatusCode::NOT_FOUND,
                ErrorCode::Unauthorized,
                "the admin API is off (no admin token is configured)",
            ));
        };
        let presented = parts
            .headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::trim)
            .filter(|t| !t.is_empty());
        let path = parts.uri.path();
        match presented {
            None => {
                warn!(method = %parts.method, path, "admin request without a token refused");
                let mut response = error(
                    StatusCode::UNAUTHORIZED,
                    ErrorCode::Unauthorized,
                    "this request needs the admin token (Authorization: Bearer ...)",
                );
                response.headers_mut().insert(
                    header::WWW_AUTHENTICATE,
                    header::HeaderValue::from_static("Bearer"),
                );
                Err(response)
            }
            Some(token) if secrets::token_matches(token, &auth.token_hash) => Ok(Admin),
            Some(_) => {
                warn!(method = %parts.method, path, "admin request with a wrong token refused");
                Err(error(
                    StatusCode::FORBIDDEN,
                    ErrorCode::Unauthorized,
                    "this token is not the admin token",
                ))
            }
        }
    }
}

/// Sends an admin op to the table of `code` (loading it if needed) and waits for its answer.
async fn ask_table(state: &AdminState, code: &str, op: AdminOp) -> Result<Value, Response> {
    let handle = state.shared.hub.find(code).await.map_err(refusal)?;
    let (reply, answer) = oneshot::channel();
    let gone = || {
        error(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::ShuttingDown,
            "the table is not running (the server may be shutting down); try again",
        )
    };
    handle
        .tx
        .send(Command::Admin { op, reply })
        .await
        .map_err(|_| gone())?;
    answer.await.map_err(|_| gone())?.map_err(refusal)
}

/// A path of a match id and a number (`step`, `seat`), or 400 naming the number (axum's own refusal is plain
/// text in Rust's words).
fn id_and<N>(path: Result<Path<(String, N)>, PathRejection>, number: &str) -> Result<(String, N), Response> {
    match path {
        Ok(Path(pair)) => Ok(pair),
        Err(_) => Err(error(
            StatusCode::BAD_REQUEST,
            ErrorCode::BadMessage,
            format!("{number} in the path must be a whole number in its range"),
        )),
    }
}

/// A match's lobby code, or 404.
async fn lobby_of(state: &AdminState, match_id: &str) -> Result<crate::store::MatchStatus, Response> {
    state
        .shared
        .hub
        .store()
        .match_status(match_id)
        .await
        .map_err(internal)?
        .ok_or_else(|| not_found(format!("no match has the id `{match_id}`")))
}

#[derive(Debug, Deserialize)]
pub(crate) struct ListQuery {
    game: Option<String>,
    status: Option<String>,
    player: Option<String>,
    from: Option<Millis>,
    to: Option<Millis>,
    limit: Option<u32>,
    offset: Option<u64>,
}

pub const DEFAULT_PAGE: u32 = 50;
pub const MAX_PAGE: u32 = 500;

/// `GET /api/admin/matches`: lobbies and their matches, newest first, filtered and paged.
pub(crate) async fn list(
    _: Admin,
    State(state): State<AdminState>,
    query: Result<Query<ListQuery>, QueryRejection>,
) -> Response {
    let Ok(Query(q)) = query else {
        return error(
            StatusCode::BAD_REQUEST,
            ErrorCode::BadMessage,
            "bad query parameters",
        );
    };
    const STATUSES: &[&str] = &[
        "open",
        "closed",
        "playing",
        "finished",
        "aborted",
        "abandoned",
        "timed_out",
    ];
    if let Some(s) = &q.status
        && !STATUSES.contains(&s.as_str())
    {
        return error(
            StatusCode::BAD_REQUEST,
            ErrorCode::BadMessage,
            format!("status is one of {}", STATUSES.join(", ")),
        );
    }
    let limit = q.limit.unwrap_or(DEFAULT_PAGE).clamp(1, MAX_PAGE);
    let offset = q.offset.unwrap_or(0);
    let filter = TableFilter {
        game: q.game,
        status: q.status,
        player: q.player.filter(|p| !p.trim().is_empty()),
        from: q.from,
        to: q.to,
        limit,
        offset,
    };
    let items = match state.shared.hub.store().list_tables(&filter).await {
        Ok(items) => items,
        Err(e) => return internal(e),
    };
    let mut listed = json!(items);
    // Cluster mode: each table's lease (owner node, epoch, whether it is live).
    if let Some(cluster) = state.shared.hub.cluster() {
        let codes: Vec<String> = items.iter().map(|t| t.code.clone()).collect();
        let leases = match cluster.leases(&codes).await {
            Ok(leases) => leases,
            Err(e) => return internal(e),
        };
        for item in listed.as_array_mut().into_iter().flatten() {
            let lease = item["code"].as_str().and_then(|c| leases.get(c));
            item["owner"] = owner_json(lease);
        }
    }
    Json(json!({"items": listed, "limit": limit, "offset": offset})).into_response()
}

/// `GET /api/admin/matches/{id}`: the match in full, from its table.
pub(crate) async fn inspect(_: Admin, State(state): State<AdminState>, Path(id): Path<String>) -> Response {
    let status = match lobby_of(&state, &id).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    match ask_table(&state, &status.lobby_code, AdminOp::Inspect).await {
        Ok(mut table) => {
            // Cluster mode: the table's lease, as in the list.
            if let Some(cluster) = state.shared.hub.cluster() {
                let code = status.lobby_code.clone();
                match cluster.leases(std::slice::from_ref(&code)).await {
                    Ok(leases) => table["owner"] = owner_json(leases.get(&code)),
                    Err(e) => return internal(e),
                }
            }
            table["match"] = json!(status);
            Json(table).into_response()
        }
        Err(r) => r,
    }
}

/// A table's lease as the admin API shows it (`TableOwner` in docs/openapi.json): owner node, epoch, and
/// whether the lease is live; null when the table has none.
fn owner_json(lease: Option<&(String, i64, bool)>) -> Value {
    match lease {
        Some((node, epoch, live)) => json!({"node": node, "epoch": epoch, "live": live}),
        None => Value::Null,
    }
}

#[derive(Debug, Deserialize)]
pub(crate) struct ViewerQuery {
    /// A seat number; absent for the spectators' view.
    seat: Option<u8>,
}

fn viewer(query: Result<Query<ViewerQuery>, QueryRejection>) -> Result<Viewer, Response> {
    match query {
        Ok(Query(ViewerQuery { seat: Some(s) })) => Ok(Viewer::Seat(Seat(s))),
        Ok(Query(ViewerQuery { seat: None })) => Ok(Viewer::Spectator),
        Err(_) => Err(error(
            StatusCode::BAD_REQUEST,
            ErrorCode::BadMessage,
            "seat is a seat number",
        )),
    }
}

/// `GET /api/admin/matches/{id}/view?seat=N`: the `state` push that seat (or, without `seat`, a spectator)
/// gets now.
pub(crate) async fn view(
    _: Admin,
    State(state): State<AdminState>,
    Path(id): Path<String>,
    query: Result<Query<ViewerQuery>, QueryRejection>,
) -> Response {
    let viewer = match viewer(query) {
        Ok(v) => v,
        Err(r) => return r,
    };
    let status = match lobby_of(&state, &id).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    match ask_table(&state, &status.lobby_code, AdminOp::View { viewer }).await {
        Ok(v) => Json(v).into_response(),
        Err(r) => r,
    }
}

/// A match rebuilt from its seed and log, step by step.
struct Replay {
    stored: StoredLobby,
    log: Vec<crate::store::LogEntry>,
}

async fn load_replay(state: &AdminState, match_id: &str) -> Result<Replay, Response> {
    let store = state.shared.hub.store();
    let status = lobby_of(state, match_id).await?;
    let stored = store
        .load_lobby(&status.lobby_code)
        .await
        .map_err(internal)?
        .filter(|s| s.game.is_some())
        .ok_or_else(|| not_found(format!("no match has the id `{match_id}`")))?;
    let log = store.action_log(match_id).await.map_err(internal)?;
    Ok(Replay { stored, log })
}

impl Replay {
    fn start(&self) -> Result<AnyGame, Response> {
        let record = &self.stored.game.as_ref().expect("checked").record;
        // Replayed under the rules version the match started with.
        record.setup().map_err(internal)
    }
}

/// `GET /api/admin/matches/{id}/log`: every logged action with its sequence number, seat (`null` for the clock), time,
/// who made it (`by`, the log's `made_by`) and the events it caused with their audiences, recomputed by replaying the log.
pub(crate) async fn log(_: Admin, State(state): State<AdminState>, Path(id): Path<String>) -> Response {
    let replay = match load_replay(&state, &id).await {
        Ok(r) => r,
        Err(r) => return r,
    };
    let mut game = match replay.start() {
        Ok(g) => g,
        Err(r) => return r,
    };
    let mut entries = Vec::with_capacity(replay.log.len());
    for entry in &replay.log {
        let events = match game.apply(entry.actor, entry.action.get(), entry.at) {
            Ok(applied) => applied.events,
            Err(e) => return internal(format!("logged action {} was refused on replay: {e}", entry.seq)),
        };
        let seat = match entry.actor {
            rules::Actor::Seat(s) => Some(s),
            rules::Actor::Clock => None,
        };
        entries.push(json!({
            "seq": entry.seq, "seat": seat, "actor": entry.actor, "action": entry.action, "at": entry.at, "by": entry.by,
            "events": events,
        }));
    }
    Json(json!({"match_id": id, "entries": entries})).into_response()
}

/// `GET /api/admin/matches/{id}/replay/{step}?seat=N`: the match after `step` actions, replayed from the seed
/// and the log: the complete state, and the `state` push the viewer got at that version (with the events of
/// step `step` that viewer saw).
pub(crate) async fn replay(
    _: Admin,
    State(state): State<AdminState>,
    path: Result<Path<(String, u64)>, PathRejection>,
    query: Result<Query<ViewerQuery>, QueryRejection>,
) -> Response {
    let (id, step) = match id_and(path, "the step") {
        Ok(p) => p,
        Err(r) => return r,
    };
    let viewer = match viewer(query) {
        Ok(v) => v,
        Err(r) => return r,
    };
    let replay = match load_replay(&state, &id).await {
        Ok(r) => r,
        Err(r) => return r,
    };
    if step > replay.log.len() as u64 {
        return not_found(format!("the match has {} actions, not {step}", replay.log.len()));
    }
    let mut game = match replay.start() {
        Ok(g) => g,
        Err(r) => return r,
    };
    let stored = replay.stored.game.as_ref().expect("checked");
    if let Viewer::Seat(s) = viewer
        && s.0 >= stored.record.players
    {
        return error(
            StatusCode::BAD_REQUEST,
            ErrorCode::BadMessage,
            format!("this match has no seat {s}"),
        );
    }
    let mut last_change = stored.record.started_at;
    let mut events = Vec::new();
    for entry in replay.log.iter().take(step as usize) {
        events = match game.apply(entry.actor, entry.action.get(), entry.at) {
            Ok(applied) => applied.events,
            Err(e) => return internal(format!("logged action {} was refused on replay: {e}", entry.seq)),
        };
        last_change = entry.at;
    }
    // The turn timer as the table computes it: human seats that must decide, counted from the last change.
    let humans: Vec<bool> = (0..stored.record.players)
        .map(|i| {
            replay
                .stored
                .seats
                .iter()
                .any(|s| s.seat == i && s.kind == SeatKind::Human)
        })
        .collect();
    let timed = Table::seats_deciding(&game)
        .into_iter()
        .any(|s| humans.get(s.index()).copied().unwrap_or(false) && legal_text(&game, s) != "[]");
    let turn_deadline = replay
        .stored
        .lobby
        .turn_timer_ms
        .filter(|_| timed)
        .map(|t| last_change + t);
    let seat = match viewer {
        Viewer::Seat(s) => Some(s),
        Viewer::Spectator => None,
    };
    let update = StateUpdate {
        code: replay.stored.lobby.code.as_str().into(),
        match_id: id.as_str().into(),
        game: stored.record.game.as_str().into(),
        version: step,
        since: step.saturating_sub(1),
        seat,
        view: crate::table::view_json(&game, viewer, &mut 0),
        legal_actions: seat.map_or_else(RawJson::empty_array, |s| {
            let mut buffer = json_write::Buffer::default();
            game.legal_actions(s, &mut buffer);
            RawJson::from(buffer.to_raw_value())
        }),
        events: events
            .into_iter()
            .filter(|e| e.audience.includes(viewer))
            .map(|e| RawJson::from(e.body))
            .collect(),
        status: game.status(),
        clocks: None,
        deadline: game.deadline().map(|d| d.at),
        turn_deadline,
        outcome: game.outcome(),
    };
    Json(json!({
        "match_id": id,
        "step": step,
        "at": last_change,
        "full_state": full_state(&game),
        "state": ServerMessage::Push(Push::State(Box::new(update))),
    }))
    .into_response()
}

/// `GET /api/admin/matches/{id}/result`: how the match ended (or that it has not).
pub(crate) async fn result(_: Admin, State(state): State<AdminState>, Path(id): Path<String>) -> Response {
    let status = match lobby_of(&state, &id).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    match state.shared.hub.store().result(&id).await {
        Ok(outcome) => Json(json!({
            "match_id": id,
            "status": status.status,
            "outcome": outcome,
            "finished_at": status.finished_at,
            "abort_reason": status.abort_reason,
        }))
        .into_response(),
        Err(e) => internal(e),
    }
}

#[derive(Debug, Deserialize)]
pub(crate) struct PageQuery {
    limit: Option<u32>,
    offset: Option<u64>,
}

async fn audit_page(
    state: &AdminState,
    match_id: Option<&str>,
    query: Result<Query<PageQuery>, QueryRejection>,
) -> Response {
    let Ok(Query(q)) = query else {
        return error(
            StatusCode::BAD_REQUEST,
            ErrorCode::BadMessage,
            "bad query parameters",
        );
    };
    let limit = q.limit.unwrap_or(DEFAULT_PAGE).clamp(1, MAX_PAGE);
    let offset = q.offset.unwrap_or(0);
    match state.shared.hub.store().audit_log(match_id, limit, offset).await {
        Ok(items) => Json(json!({"items": items, "limit": limit, "offset": offset})).into_response(),
        Err(e) => internal(e),
    }
}

/// `GET /api/admin/audit`: every admin action, newest first.
pub(crate) async fn audit(
    _: Admin,
    State(state): State<AdminState>,
    query: Result<Query<PageQuery>, QueryRejection>,
) -> Response {
    audit_page(&state, None, query).await
}

/// `GET /api/admin/matches/{id}/audit`: the admin actions on one match, newest first.
pub(crate) async fn match_audit(
    _: Admin,
    State(state): State<AdminState>,
    Path(id): Path<String>,
    query: Result<Query<PageQuery>, QueryRejection>,
) -> Response {
    if let Err(r) = lobby_of(&state, &id).await {
        return r;
    }
    audit_page(&state, Some(&id), query).await
}

/// The body of every admin action: who acts and why.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ActionBody {
    /// The admin's name, for the audit log.
    by: String,
    /// Why, for the audit log (and, for an abort or a removal, told to the players).
    reason: String,
}

fn action_body(body: Result<Json<Value>, JsonRejection>) -> Result<(String, String), Response> {
    let bad = |message: String| error(StatusCode::BAD_REQUEST, ErrorCode::BadMessage, message);
    // axum's refusal of JSON that does not parse (or of another content type) is in words; what the JSON holds
    // is read here, so that a list is refused (serde would read it by position) and a refusal is in words too.
    let Json(body) = body.map_err(|e| bad(e.body_text()))?;
    if !body.is_object() {
        return Err(bad(
            "the body must be a JSON object: {\"by\": ..., \"reason\": ...}".into(),
        ));
    }
    let body: ActionBody = json_write::plain::read(|| &body).map_err(|e| bad(e.to_string()))?;
    let by = body.by.trim().to_string();
    let reason = body.reason.trim().to_string();
    if by.is_empty() || reason.is_empty() || by.chars().count() > 64 || reason.chars().count() > 1000 {
        return Err(error(
            StatusCode::BAD_REQUEST,
            ErrorCode::BadMessage,
            "`by` (1 to 64 characters) and `reason` (1 to 1000 characters) are required",
        ));
    }
    Ok((by, reason))
}

async fn act(
    state: &AdminState,
    id: &str,
    body: Result<Json<Value>, JsonRejection>,
    op: impl FnOnce(String, String) -> AdminOp,
) -> Response {
    let (by, reason) = match action_body(body) {
        Ok(b) => b,
        Err(r) => return r,
    };
    let status = match lobby_of(state, id).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    match ask_table(state, &status.lobby_code, op(by, reason)).await {
        Ok(v) => Json(v).into_response(),
        Err(r) => r,
    }
}

/// `POST /api/admin/matches/{id}/abort`.
pub(crate) async fn abort(
    _: Admin,
    State(state): State<AdminState>,
    Path(id): Path<String>,
    body: Result<Json<Value>, JsonRejection>,
) -> Response {
    act(&state, &id, body, |by, reason| AdminOp::Abort { by, reason }).await
}

/// `POST /api/admin/matches/{id}/seats/{seat}/remove`.
pub(crate) async fn remove(
    _: Admin,
    State(state): State<AdminState>,
    path: Result<Path<(String, u8)>, PathRejection>,
    body: Result<Json<Value>, JsonRejection>,
) -> Response {
    let (id, seat) = match id_and(path, "the seat") {
        Ok(p) => p,
        Err(r) => return r,
    };
    act(&state, &id, body, |by, reason| AdminOp::RemoveSeat {
        seat,
        bot: false,
        by,
        reason,
    })
    .await
}

/// `POST /api/admin/matches/{id}/seats/{seat}/bot`.
pub(crate) async fn replace_with_bot(
    _: Admin,
    State(state): State<AdminState>,
    path: Result<Path<(String, u8)>, PathRejection>,
    body: Result<Json<Value>, JsonRejection>,
) -> Response {
    let (id, seat) = match id_and(path, "the seat") {
        Ok(p) => p,
        Err(r) => return r,
    };
    act(&state, &id, body, |by, reason| AdminOp::RemoveSeat {
        seat,
        bot: true,
        by,
        reason,
    })
    .await
}

/// `POST /api/admin/matches/{id}/fire-deadline`.
pub(crate) async fn fire_deadline(
    _: Admin,
    State(state): State<AdminState>,
    Path(id): Path<String>,
    body: Result<Json<Value>, JsonRejection>,
) -> Response {
    act(&state, &id, body, |by, reason| AdminOp::FireDeadline {
        by,
        reason,
    })
    .await
}

/// `seat`'s legal actions as text.
fn legal_text(game: &rules::AnyGame, seat: rules::Seat) -> String {
    game.legal_actions(seat, &mut json_write::Buffer::default())
        .to_string()
}

/// The whole state, hidden information included, as a value for an admin page (read from the game's text).
fn full_state(game: &rules::AnyGame) -> Value {
    serde_json::from_str(&game.full_state()).expect("the game writes JSON")
}

#[cfg(test)]
mod token_rule_tests {
    use super::AdminToken;

    /// The admin token needs at least 128 bits for its alphabet: 32 hex digits, 22 base64 characters.
    #[test]
    fn admin_tokens_need_128_bits_for_their_alphabet() {
        let ok = [
            "0123456789abcdef0123456789abcdef",        // 32 hex digits: 128 bits
            "AAECAwQFBgcICQoLDA0ODw",                  // 22 base64url characters: 132 bits
            "q1W2e3R4t5Y6u7I8o9P0aS==",                // `openssl rand -base64 16`-like
            "012345678901234567890123456789012345678", // 39 digits: 129.6 bits
            "admin-token-for-tests-0123456789",
            "!#$%&()*+,.:;<=>?@[]^{}", // 23 printable: 151 bits
        ];
        for token in ok {
            assert!(AdminToken::parse(token).is_ok(), "{token} is accepted");
        }
        let refused = [
            "0123456789abcdef0123456789abcde",        // 31 hex digits: 124 bits
            "01234567890123456789012345678901234567", // 38 digits: 126 bits
            "AAECAwQFBgcICQoLDA0OD",                  // 21 base64: 126 bits
            "sixteen-chars-ok",                       // the old rule's minimum
            "with spaces in the middle of it, which is long",
            "ünïcödé-ünïcödé-ünïcödé-ünïcödé",
            "",
        ];
        for token in refused {
            assert!(AdminToken::parse(token).is_err(), "{token} is refused");
        }
        let message = AdminToken::parse("too-short").unwrap_err();
        assert!(message.contains("22 or more base64"), "{message}");
    }
}
