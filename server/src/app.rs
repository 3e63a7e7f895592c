//! The HTTP surface: `/ws`, `/api/games`, `/api/schema`, `/healthz`, `/readyz`, `/metrics`, `/api/openapi.json`,
//! the admin API under `/api/admin/` (see `admin.rs`), the browser client (the `web` crate's embedded files) at
//! `/` and every other path, and `run(listener, .., shutdown)`, which serves until the shutdown future completes
//! and then waits for every connection and table task to finish. With `--metrics-bind`, `/metrics` is served on
//! that address alone. Connections are accepted and bounded in `http.rs`.

use std::{future::Future, net::SocketAddr, sync::Arc, time::Duration};

use axum::{
    Json, Router,
    extract::{ConnectInfo, FromRef, State, WebSocketUpgrade},
    handler::Handler,
    http::{StatusCode, header},
    response::{IntoResponse, Response},
    routing::{get, post},
};
use futures_util::StreamExt;
use tokio::{
    net::TcpListener,
    sync::{mpsc, watch},
};
use tracing::{error, info, warn};

use crate::{
    admin,
    clock::SharedClock,
    cluster::{Cluster, forward::Forwarder},
    config::Config,
    connection::{self, Shared},
    http::HttpLimits,
    hub::Hub,
    metrics::Metrics,
    proxy::TrustedProxies,
    store::{Store, StoreError},
};

/// The WebSocket read buffer of each connection, allocated up front (tungstenite's default is 128 KiB, which
/// made an idle connection cost about 147 KiB of server memory). Client messages are small (an action ~100
/// bytes); a larger frame is still read, in several steps. tungstenite zeroes the buffer's free part before every
/// read attempt, ~4 per action, so it is kept to 1 KiB (docs/performance.md, "Measured reasons").
const READ_BUFFER: usize = 1024;

#[derive(Debug)]
pub(crate) struct AppState {
    pub(crate) shared: Arc<Shared>,
    done: mpsc::Sender<()>,
    /// What the admin API reads (see [`admin::AdminState`]).
    admin: admin::AdminState,
    /// Whose `X-Forwarded-For` names the client (`--trusted-proxies`).
    trusted_proxies: TrustedProxies,
    /// The VAPID key that signs Web Push requests; its public half is served at `/api/push/key`.
    pub(crate) push_key: Arc<crate::notify::vapid::VapidKey>,
    /// Tells seats of changes to their notification endpoints, wherever their tables are served.
    pub(crate) tell: crate::notify::tell::Teller,
}

impl FromRef<Arc<AppState>> for crate::notify::RouteState {
    fn from_ref(state: &Arc<AppState>) -> crate::notify::RouteState {
        crate::notify::RouteState {
            store: state.shared.hub.store().clone(),
            clock: state.shared.hub.clock().clone(),
            push_key: state.push_key.clone(),
            tell: state.tell.clone(),
        }
    }
}

impl FromRef<Arc<AppState>> for admin::AdminState {
    fn from_ref(state: &Arc<AppState>) -> admin::AdminState {
        state.admin.clone()
    }
}

/// The OpenAPI document of every HTTP route, maintained by hand beside the code; a test checks it lists exactly
/// the routes of [`routes`].
pub const OPENAPI: &str = include_str!("../../docs/openapi.json");

/// The router under construction, with the list of its routes (for the OpenAPI test). Every route is added
/// through it, so the list cannot miss one.
struct Routes {
    router: Router<Arc<AppState>>,
    listed: Vec<(&'static str, &'static str)>,
}

impl Routes {
    fn get<H: Handler<T, Arc<AppState>>, T: 'static>(mut self, path: &'static str, handler: H) -> Routes {
        self.router = self.router.route(path, get(handler));
        self.listed.push(("get", path));
        self
    }

    /// The handler of every GET the other routes do not take (listed once, as `path`).
    fn fallback<H: Handler<T, Arc<AppState>>, T: 'static>(
        mut self,
        path: &'static str,
        handler: H,
    ) -> Routes {
        self.router = self.router.fallback(get(handler));
        self.listed.push(("get", path));
        self
    }

    fn post<H: Handler<T, Arc<AppState>>, T: 'static>(mut self, path: &'static str, handler: H) -> Routes {
        self.router = self.router.route(path, post(handler));
        self.listed.push(("post", path));
        self
    }
}

/// Every route; `/metrics` only when `with_metrics` (it is not on the public address under `--metrics-bind`).
fn routes(with_metrics: bool) -> Routes {
    let mut public = Routes {
        router: Router::new(),
        listed: Vec::new(),
    }
    .get("/ws", ws)
    .get("/api/games", games)
    .get("/api/schema", schema)
    .get("/api/openapi.json", openapi)
    .get("/healthz", || async { "ok" })
    .get("/readyz", ready);
    if with_metrics {
        public = public.get("/metrics", metrics);
    }
    public
        .get("/api/lobbies", lobbies)
        .get("/api/admin/matches", admin::list)
        .get("/api/admin/matches/{id}", admin::inspect)
        .get("/api/admin/matches/{id}/view", admin::view)
        .get("/api/admin/matches/{id}/log", admin::log)
        .get("/api/admin/matches/{id}/replay/{step}", admin::replay)
        .get("/api/admin/matches/{id}/result", admin::result)
        .get("/api/admin/matches/{id}/audit", admin::match_audit)
        .post("/api/admin/matches/{id}/abort", admin::abort)
        .post("/api/admin/matches/{id}/seats/{seat}/remove", admin::remove)
        .post(
            "/api/admin/matches/{id}/seats/{seat}/bot",
            admin::replace_with_bot,
        )
        .post("/api/admin/matches/{id}/fire-deadline", admin::fire_deadline)
        .get("/api/admin/audit", admin::audit)
        .get("/api/push/key", crate::notify::vapid::public_key)
        .get("/notify/unsubscribe/{token}", crate::notify::unsubscribe::page)
        .post("/notify/unsubscribe/{token}", crate::notify::unsubscribe::confirm)
        .fallback("/", client)
}

/// Every route the server answers, as (lower-case method, path in OpenAPI's `{param}` form).
pub fn route_table() -> Vec<(&'static str, &'static str)> {
    routes(true).listed
}

/// The router, with its state; with `/metrics` unless that is served on an address of its own.
fn router(state: Arc<AppState>, with_metrics: bool) -> Router {
    routes(with_metrics).router.with_state(state)
}

/// The router of `--metrics-bind`: `/metrics` alone.
fn metrics_router(state: Arc<AppState>) -> Router {
    Router::new().route("/metrics", get(metrics)).with_state(state)
}

/// How long a client refused a WebSocket for lack of room is asked to wait before trying again, in seconds.
const RETRY_AFTER_SECS: &str = "5";

async fn openapi() -> Response {
    ([(header::CONTENT_TYPE, "application/json")], OPENAPI).into_response()
}

/// The WebSocket endpoint. A connection over the limits (in total or from one IP address) is not upgraded: it is
/// answered at once with HTTP 503, a `Retry-After`, and the JSON error `too_many_connections` saying which cap
/// (so that a full server still answers health checks and costs nothing per refused client).
async fn ws(
    State(state): State<Arc<AppState>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: axum::http::HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Response {
    if *state.shared.shutdown.borrow() {
        return (StatusCode::SERVICE_UNAVAILABLE, "shutting down").into_response();
    }
    let forwarded_for = headers
        .get_all("x-forwarded-for")
        .iter()
        // A value that is not text is not an address either: the hop before it is the last one believed.
        .map(|v| v.to_str().unwrap_or("?"));
    let client = state.trusted_proxies.client_ip(peer.ip(), forwarded_for);
    let admission = match state.shared.admit(Some(client)) {
        Ok(admission) => admission,
        Err(reason) => {
            tracing::debug!(%client, code = reason.code.as_str(), "WebSocket refused");
            return (
                StatusCode::SERVICE_UNAVAILABLE,
                [(header::RETRY_AFTER, RETRY_AFTER_SECS)],
                Json(reason),
            )
                .into_response();
        }
    };
    let shared = state.shared.clone();
    let done = state.done.clone();
    upgrade
        .max_frame_size(shared.limits.max_message_bytes)
        .max_message_size(shared.limits.max_message_bytes)
        .read_buffer_size(READ_BUFFER)
        .write_buffer_size(connection::SOCKET_WRITE_BUFFER)
        .max_write_buffer_size(shared.limits.socket_write_buffer())
        .on_upgrade(move |socket| async move {
            let _done = done;
            let (sink, stream) = socket.split();
            connection::serve(sink, stream, shared, admission).await;
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

/// `?game=ID` of `GET /api/lobbies`.
#[derive(Debug, serde::Deserialize)]
struct LobbiesQuery {
    #[serde(default)]
    game: Option<String>,
}

/// The public list of open, listed lobbies with a free seat (issue 13), of one game or of all, newest first.
async fn lobbies(
    State(state): State<Arc<AppState>>,
    query: Result<axum::extract::Query<LobbiesQuery>, axum::extract::rejection::QueryRejection>,
) -> Response {
    let Ok(axum::extract::Query(query)) = query else {
        return (
            StatusCode::BAD_REQUEST,
            Json(protocol::ErrorBody::new(
                protocol::ErrorCode::BadMessage,
                "the only query parameter is `game`",
            )),
        )
            .into_response();
    };
    match state.shared.hub.open_lobbies(query.game.as_deref()).await {
        Ok(list) => Json(list).into_response(),
        Err(e) => {
            let status = match e.code {
                protocol::ErrorCode::UnknownGame => StatusCode::NOT_FOUND,
                _ => StatusCode::INTERNAL_SERVER_ERROR,
            };
            (status, Json(e)).into_response()
        }
    }
}

async fn games() -> Json<Vec<protocol::CatalogueEntry>> {
    Json(protocol::CatalogueEntry::all())
}

/// The JSON Schemas of every message and of each game's options, actions, views and events (built once).
async fn schema() -> Json<&'static serde_json::Value> {
    static DOCUMENT: std::sync::OnceLock<serde_json::Value> = std::sync::OnceLock::new();
    Json(DOCUMENT.get_or_init(protocol::schema::document))
}

/// Within `store::READY_DEADLINE`, and at once while the store knows the database just could not be reached.
async fn ready(State(state): State<Arc<AppState>>) -> Response {
    if state.shared.hub.cluster().is_some_and(|c| c.replaced()) {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            "replaced by another process with this node id",
        )
            .into_response();
    }
    match state.shared.hub.store().ready().await {
        Ok(()) => "ready".into_response(),
        Err(e) => {
            error!(error = %e, "readiness check: database unreachable");
            (StatusCode::SERVICE_UNAVAILABLE, "database unreachable").into_response()
        }
    }
}

async fn metrics(State(state): State<Arc<AppState>>) -> Response {
    let mut text = state.shared.metrics.render();
    if let Some(cluster) = state.shared.hub.cluster() {
        cluster.render_metrics(&mut text);
    }
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")],
        text,
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
    #[error("cluster: {0}")]
    Cluster(#[from] crate::cluster::ClusterError),
    #[error("NATS: {0}")]
    Nats(#[from] async_nats::ConnectError),
    #[error("Web Push: {0}")]
    Vapid(#[from] crate::notify::vapid::VapidError),
    #[error("email: {0}")]
    Mailer(#[from] crate::notify::email::MailerError),
}

/// The notification channels' settings, checked at start: the VAPID key (from the settings, or the database's,
/// made by the first start) and the email relay, if any.
async fn notify_channels(
    config: &Config,
    store: &Store,
    now: rules::Millis,
) -> Result<
    (
        Arc<crate::notify::vapid::VapidKey>,
        Option<crate::notify::email::Mailer>,
    ),
    RunError,
> {
    let key = crate::notify::vapid::VapidKey::load(
        config.vapid_private_key.as_ref().map(|k| k.0.as_str()),
        config.vapid_public_key.as_deref(),
        config.vapid_subject.as_deref(),
        store,
        now,
    )
    .await?;
    Ok((Arc::new(key), config.mailer()?))
}

/// Cluster mode (`config` has cluster settings): this node joins the cluster and connects to NATS. Every table then
/// writes through a pool whose connections carry this node's incarnation (the database's fence checks it against
/// the table's lease): the store returned, `given` itself on a single node.
async fn join_cluster(
    config: &Config,
    given: &Store,
    metrics: &Arc<Metrics>,
    clock: &SharedClock,
) -> Result<(Store, Option<(Arc<Cluster>, Arc<Forwarder>)>), RunError> {
    let Some(settings) = config.cluster_settings() else {
        return Ok((given.clone(), None));
    };
    let forward = config.forward_settings()?;
    let (fenced, cluster) = Cluster::join(given, &settings, &forward.secret, clock.clone()).await?;
    // Forwarding over NATS: a node starts, and serves its own tables, while NATS is down.
    let forwarder = Forwarder::connect(cluster.node_id(), &forward, metrics.clone()).await?;
    Ok((fenced, Some((cluster, forwarder))))
}

/// Cluster mode: connections other nodes relay here through `forwarder` are served as local ones, under the same
/// limits but their address's cap (the relaying node counted them there), each holding a clone of `done`.
fn serve_relayed(
    forwarder: &Arc<Forwarder>,
    shared: &Arc<Shared>,
    done: &mpsc::Sender<()>,
    stop: &watch::Receiver<bool>,
) {
    shared.set_forwarder(forwarder.clone());
    let (serving, done) = (shared.clone(), done.clone());
    let serve = move |remote: crate::cluster::forward::Remote| {
        let admission = serving.admit_relayed(remote.ip)?;
        let (shared, done) = (serving.clone(), done.clone());
        tokio::spawn(async move {
            let _done = done;
            connection::serve_remote(remote.sink, remote.stream, shared, admission, remote.speaks).await;
        });
        Ok(())
    };
    tokio::spawn(forwarder.clone().listen(serve, stop.clone()));
}

/// The HTTP layer's limits. Connections not yet upgraded each hold a file descriptor too: at most half the
/// open-file limit `fd_limit`, so that the WebSockets, the database and the listener keep the other half.
fn http_limits(config: &Config, fd_limit: Option<u64>) -> HttpLimits {
    HttpLimits {
        header_timeout: Duration::from_secs(config.header_timeout_secs.max(1)),
        max_connections: config
            .max_http_connections
            .min(fd_limit.map_or(usize::MAX, |l| usize::try_from(l / 2).unwrap_or(usize::MAX)))
            .max(16),
    }
}

/// The listener of `/metrics` on its own address, if one is configured; otherwise `/metrics` is served on `addr`
/// with the rest, with a warning when that address is not a loopback one.
async fn metrics_listener(config: &Config, addr: SocketAddr) -> std::io::Result<Option<TcpListener>> {
    let Some(bind) = config.metrics_bind else {
        if !addr.ip().is_loopback() {
            warn!(
                %addr,
                "/metrics is served on a public address to anyone who asks: set --metrics-bind \
                 (METRICS_BIND) to a private one"
            );
        }
        return Ok(None);
    };
    let metrics_listener = TcpListener::bind(bind).await?;
    info!(addr = %metrics_listener.local_addr()?, "metrics at /metrics on their own address");
    Ok(Some(metrics_listener))
}

/// The notification channels (the VAPID key, kept for `/api/push/key`; the SMTP relay if configured), the teller
/// of changed endpoints (in cluster mode hearing the other nodes' news) and, unless this node is told not to, the
/// worker that sends the outbox (`notify/worker.rs`).
async fn start_notifications(
    config: &Config,
    store: &Store,
    hub: &Hub,
    forwarder: Option<Arc<Forwarder>>,
    addr: std::net::SocketAddr,
    stop_rx: &watch::Receiver<bool>,
) -> Result<(Arc<crate::notify::vapid::VapidKey>, crate::notify::tell::Teller), RunError> {
    let (push_key, mailer) = notify_channels(config, store, hub.clock().now()).await?;
    let tell = crate::notify::tell::Teller::new(hub.clone(), forwarder);
    tell.listen(stop_rx.clone());
    if config.notify_worker {
        crate::notify::worker::spawn(
            store.clone(),
            hub.clock().clone(),
            tell.clone(),
            Arc::new(crate::notify::Channels::new(
                config,
                push_key.clone(),
                mailer,
                store.clone(),
                hub.clock().clone(),
            )),
            config.notify_settings_at(addr),
            stop_rx.clone(),
        );
    }
    Ok((push_key, tell))
}

/// Says so when the caps on connections add up to more sockets than the open-file limit allows.
fn warn_if_over_fd_limit(config: &Config, limits: &HttpLimits, fd_limit: Option<u64>) {
    if let Some(fd_limit) = fd_limit
        && (config.max_connections + limits.max_connections) as u64 + 64 > fd_limit
    {
        warn!(
            fd_limit,
            max_connections = config.max_connections,
            max_http_connections = limits.max_connections,
            "the connection caps add up to more sockets than the open-file limit allows: raise the hard \
             limit (ulimit -Hn, LimitNOFILE=) or lower --max-connections"
        );
    }
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
    let given = store;
    let (store, cluster) = join_cluster(&config, &given, &metrics, &clock).await?;
    let (cluster, forwarder) = cluster.unzip();
    let hub = Hub::new(
        store.clone(),
        clock.clone(),
        metrics.clone(),
        config.table_settings(),
        stop_rx.clone(),
        done_tx.clone(),
    );
    if let Some(cluster) = &cluster {
        hub.set_cluster(cluster.clone());
        let orphans = hub.clone();
        let stop = stop_tx.clone();
        tokio::spawn(cluster.clone().run_heartbeat(
            stop_rx.clone(),
            move |codes| orphans.take_over(codes),
            // Another process holds this node's id now: stop serving (`run` then says why).
            move || {
                let _ = stop.send(true);
            },
        ));
    }
    // Every process records that it serves; tables get back the time no process did (`downtime.rs`).
    let downtime = crate::downtime::start(
        store.clone(),
        clock,
        config.heartbeat_ms,
        cluster.is_some(),
        stop_rx.clone(),
        done_tx.clone(),
    )
    .await?;
    hub.set_downtime(downtime);
    hub.restore_all().await?;
    let (push_key, tell) = start_notifications(
        &config,
        &store,
        &hub,
        forwarder.clone(),
        listener.local_addr()?,
        &stop_rx,
    )
    .await?;
    let shared = Arc::new(Shared::new(hub, metrics, config.limits(), stop_rx.clone()));
    // Cluster mode: lobbies per address are counted in the database, for the cluster as a whole.
    if let (Some(_), Some(secret)) = (&cluster, &config.cluster_secret) {
        shared.count_lobbies_in_database(secret.clone());
    }
    if let Some(forwarder) = &forwarder {
        serve_relayed(forwarder, &shared, &done_tx, &stop_rx);
    }
    let state = Arc::new(AppState {
        admin: admin::AdminState {
            shared: shared.clone(),
            auth: config
                .admin_token
                .as_ref()
                .map(|t| Arc::new(admin::AdminAuth::new(t))),
        },
        shared,
        done: done_tx,
        trusted_proxies: config.trusted_proxies.clone(),
        push_key,
        tell,
    });
    let addr = listener.local_addr()?;
    let fd_limit = crate::http::open_file_limit();
    let limits = http_limits(&config, fd_limit);
    info!(
        %addr,
        database = store.backend(),
        node = cluster.as_ref().map(|c| c.node_id()),
        admin_api = state.admin.auth.is_some(),
        max_http_connections = limits.max_connections,
        header_timeout_secs = limits.header_timeout.as_secs(),
        "serving"
    );
    warn_if_over_fd_limit(&config, &limits, fd_limit);
    let metrics_listener = metrics_listener(&config, addr).await?;
    tokio::spawn(async move {
        shutdown.await;
        info!("shutting down: telling clients and finishing tables");
        let _ = stop_tx.send(true);
    });
    let public = crate::http::serve(
        listener,
        router(state.clone(), metrics_listener.is_none()),
        limits,
        stop_rx.clone(),
    );
    match metrics_listener {
        Some(metrics_listener) => {
            let private =
                crate::http::serve(metrics_listener, metrics_router(state.clone()), limits, stop_rx);
            tokio::join!(public, private);
        }
        None => public.await,
    }
    // Upgraded WebSocket connections and table tasks each hold a clone of `done`; wait for all of them.
    drop(state);
    let _ = done_rx.recv().await;
    if let Some(forwarder) = &forwarder {
        forwarder.flush().await;
    }
    // Every table task has stopped: no write of this node can follow, so its leases go to other nodes now.
    if let Some(cluster) = &cluster {
        cluster.leave().await;
        given.close().await;
    }
    store.close().await;
    if cluster.as_ref().is_some_and(|c| c.replaced()) {
        return Err(crate::cluster::ClusterError::Replaced.into());
    }
    info!("stopped");
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use serde_json::Value;

    /// The OpenAPI document lists exactly the router's routes, each with the path parameters its path names.
    #[test]
    fn the_openapi_document_lists_every_route_and_nothing_else() {
        let doc: Value = serde_json::from_str(super::OPENAPI).expect("docs/openapi.json is JSON");
        assert!(
            doc["openapi"].as_str().unwrap().starts_with("3."),
            "an OpenAPI 3 document"
        );
        let mut documented = BTreeSet::new();
        for (path, item) in doc["paths"].as_object().expect("paths") {
            for (method, operation) in item.as_object().unwrap() {
                if method == "parameters" {
                    continue;
                }
                documented.insert((method.clone(), path.clone()));
                assert!(
                    operation["responses"].is_object(),
                    "{method} {path} has responses"
                );
                assert!(operation["summary"].is_string(), "{method} {path} has a summary");
                // Every `{param}` of the path is declared, on the operation or on the path item.
                let declared: BTreeSet<String> = operation["parameters"]
                    .as_array()
                    .into_iter()
                    .chain(item["parameters"].as_array())
                    .flatten()
                    .filter(|p| p["in"] == "path")
                    .map(|p| p["name"].as_str().unwrap().to_string())
                    .collect();
                let named: BTreeSet<String> = path
                    .split('/')
                    .filter_map(|seg| seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
                    .map(str::to_string)
                    .collect();
                assert_eq!(declared, named, "path parameters of {method} {path}");
                // Admin routes say they need the admin token and list the refusals.
                if path.starts_with("/api/admin/") {
                    assert!(
                        operation["security"].is_array(),
                        "{method} {path} declares its security"
                    );
                    for status in ["401", "403"] {
                        assert!(
                            operation["responses"][status].is_object(),
                            "{method} {path} documents {status}"
                        );
                    }
                }
            }
        }
        let routed: BTreeSet<(String, String)> = super::route_table()
            .into_iter()
            .map(|(m, p)| (m.to_string(), p.to_string()))
            .collect();
        let missing: Vec<_> = routed.difference(&documented).collect();
        let stale: Vec<_> = documented.difference(&routed).collect();
        assert!(
            missing.is_empty(),
            "routes missing from docs/openapi.json: {missing:?}"
        );
        assert!(
            stale.is_empty(),
            "docs/openapi.json lists routes the server does not have: {stale:?}"
        );
    }
}
