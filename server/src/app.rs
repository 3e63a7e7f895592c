//! The HTTP surface: `/ws`, `/api/games`, `/api/schema`, `/healthz`, `/readyz`, `/metrics`, the browser client
//! (the `web` crate's embedded files) at `/` and every other path, and `run(listener, .., shutdown)`, which serves
//! until the shutdown future completes and then waits for every connection and table task to finish.

use std::{future::Future, sync::Arc};

use axum::{
    Json, Router,
    extract::{State, WebSocketUpgrade},
    http::{StatusCode, header},
    response::{IntoResponse, Response},
    routing::get,
    serve::ListenerExt,
};
use futures_util::StreamExt;
use rules::AnyGame;
use tokio::{
    net::TcpListener,
    sync::{Semaphore, mpsc, watch},
};
use tracing::{error, info};

use crate::{
    clock::SharedClock,
    config::Config,
    connection::{self, Shared},
    hub::Hub,
    metrics::Metrics,
    store::{Store, StoreError},
};

/// A hard cap on frames read from the socket; frames between the configured message limit and this one get a
/// `too_large` reply, larger ones end the connection (the WebSocket layer refuses to buffer them).
const HARD_FRAME_LIMIT: usize = 1024 * 1024;

#[derive(Debug)]
struct AppState {
    shared: Arc<Shared>,
    connections: Arc<Semaphore>,
    done: mpsc::Sender<()>,
}

/// The router, with its state.
fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/ws", get(ws))
        .route("/api/games", get(games))
        .route("/api/schema", get(schema))
        .route("/healthz", get(|| async { "ok" }))
        .route("/readyz", get(ready))
        .route("/metrics", get(metrics))
        .fallback(get(client))
        .with_state(state)
}

async fn ws(State(state): State<Arc<AppState>>, upgrade: WebSocketUpgrade) -> Response {
    if *state.shared.shutdown.borrow() {
        return (StatusCode::SERVICE_UNAVAILABLE, "shutting down").into_response();
    }
    let Ok(permit) = state.connections.clone().try_acquire_owned() else {
        return (StatusCode::SERVICE_UNAVAILABLE, "too many connections").into_response();
    };
    let shared = state.shared.clone();
    let done = state.done.clone();
    upgrade
        .max_message_size(HARD_FRAME_LIMIT.max(shared.limits.max_message_bytes + 1))
        .on_upgrade(move |socket| async move {
            let _permit = permit;
            let _done = done;
            let (sink, stream) = socket.split();
            connection::serve(sink, stream, shared).await;
        })
}

/// The browser client (the `web` crate's embedded files) at `/` and its asset paths.
async fn client(uri: axum::http::Uri) -> Response {
    match web::asset(uri.path()) {
        Some(asset) => (
            [
                (header::CONTENT_TYPE, asset.content_type),
                (header::CACHE_CONTROL, web::CACHE_CONTROL),
            ],
            asset.bytes,
        )
            .into_response(),
        None => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}

async fn games() -> Json<Vec<rules::GameInfo>> {
    Json(AnyGame::catalogue())
}

/// The JSON Schemas of every message and of each game's options, actions, views and events (built once).
async fn schema() -> Json<&'static serde_json::Value> {
    static DOCUMENT: std::sync::OnceLock<serde_json::Value> = std::sync::OnceLock::new();
    Json(DOCUMENT.get_or_init(protocol::schema::document))
}

async fn ready(State(state): State<Arc<AppState>>) -> Response {
    match state.shared.hub.store().ping().await {
        Ok(()) => "ready".into_response(),
        Err(e) => {
            error!(error = %e, "readiness check: database unreachable");
            (StatusCode::SERVICE_UNAVAILABLE, "database unreachable").into_response()
        }
    }
}

async fn metrics(State(state): State<Arc<AppState>>) -> Response {
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")],
        state.shared.metrics.render(),
    )
        .into_response()
}

/// Why the server could not run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("database: {0}")]
    Store(#[from] StoreError),
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
}

/// Serves on `listener` until `shutdown` completes. Restores every open or playing table from `store` first
/// (deadlines re-armed). On shutdown every client is told `shutting_down`, and this returns once every
/// connection and table task has finished.
pub async fn run(
    listener: TcpListener,
    config: Config,
    store: Store,
    clock: SharedClock,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), RunError> {
    let (stop_tx, stop_rx) = watch::channel(false);
    let (done_tx, mut done_rx) = mpsc::channel::<()>(1);
    let metrics = Arc::new(Metrics::default());
    let hub = Hub::new(
        store.clone(),
        clock,
        metrics.clone(),
        config.table_settings(),
        stop_rx.clone(),
        done_tx.clone(),
    );
    hub.restore_all().await?;
    let shared = Arc::new(Shared::new(hub, metrics, config.limits(), stop_rx));
    let state = Arc::new(AppState {
        shared,
        connections: Arc::new(Semaphore::new(config.max_connections)),
        done: done_tx,
    });
    info!(addr = %listener.local_addr()?, database = store.backend(), "serving");
    let app = router(state.clone());
    // Small frames go out at once: a reply followed by a push must not wait for the client's delayed ACK.
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    let serve = axum::serve(listener, app).with_graceful_shutdown(async move {
        shutdown.await;
        info!("shutting down: telling clients and finishing tables");
        let _ = stop_tx.send(true);
    });
    serve.await?;
    // Upgraded WebSocket connections and table tasks each hold a clone of `done`; wait for all of them.
    drop(state);
    let _ = done_rx.recv().await;
    store.close().await;
    info!("stopped");
    Ok(())
}
