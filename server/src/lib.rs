//! The authoritative game server, as a library: the binary (`main.rs`) parses its configuration and calls
//! [`run`]; tests call [`run`] with a listener on port 0, a database of their own and a manual clock.
//!
//! Architecture invariant: nothing in this crate depends on a particular game. Games are reached only through
//! `rules::AnyGame` and their configurations, actions, views and events stay opaque JSON.

/// The global allocator the server binary installs (`main.rs`); re-exported so that every package that builds
/// that `main.rs` (the integration tests' `server-under-test`) gets it without a dependency of its own.
pub use mimalloc::MiMalloc;

pub mod admin;
pub mod app;
pub mod clock;
pub mod cluster;
pub mod commit;
pub mod config;
pub mod connection;
pub mod guesses;
pub mod http;
pub mod hub;
pub mod metrics;
pub mod notify;
pub mod proxy;
pub mod secrets;
pub mod store;
pub mod table;
pub mod text;

pub use app::{RunError, run};
pub use clock::{Clock, ManualClock, SharedClock, SystemClock};
pub use config::Config;
pub use store::Store;

/// Parses the configuration from flags and environment, sets up logging, opens the database and serves until
/// SIGINT or SIGTERM. Prints `listening on http://ADDR` on standard output once the port is bound.
pub async fn main_with_args() -> Result<(), RunError> {
    let config = Config::from_args();
    init_logging(&config.log);
    // Every socket is a file descriptor: the usual soft limit (1024) would stop accepting (players and health
    // checks alike) long before the connection caps are reached.
    match http::raise_open_file_limit() {
        Some(limit) => tracing::info!(
            soft = limit.soft,
            hard = limit.hard,
            was = limit.soft_before,
            "open-file limit (RLIMIT_NOFILE)"
        ),
        None => tracing::warn!("the open-file limit (RLIMIT_NOFILE) could not be read"),
    }
    let pool = store::PoolSettings {
        acquire_timeout: std::time::Duration::from_millis(config.db_acquire_timeout_ms),
        deadline: std::time::Duration::from_millis(config.store_timeout_ms),
    };
    // Cluster mode needs PostgreSQL and the cluster secret: said before anything starts (`run` checks both again
    // for in-process servers).
    if config.cluster {
        if !matches!(store::Store::backend_of(&config.database_url), Some("postgres")) {
            return Err(cluster::ClusterError::NeedsPostgres.into());
        }
        config.forward_settings()?;
    }
    let store = Store::connect_with(&config.database_url, pool).await?;
    let listener = tokio::net::TcpListener::bind(config.bind).await?;
    let addr = listener.local_addr()?;
    let shutdown = shutdown_signal();
    println!("listening on http://{addr}");
    run(
        listener,
        config,
        store,
        std::sync::Arc::new(SystemClock),
        shutdown,
    )
    .await
}

fn init_logging(filter: &str) {
    use tracing_subscriber::{filter::Targets, layer::SubscriberExt, util::SubscriberInitExt};
    let targets: Targets = filter.parse().unwrap_or_else(|e| {
        eprintln!("ignoring the log filter `{filter}`: {e}");
        Targets::new().with_default(tracing::Level::INFO)
    });
    let _ = tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr())),
        )
        .with(targets)
        .try_init();
}

/// Completes on SIGINT (Ctrl-C) or SIGTERM. The handlers are installed when this is called (not when the future
/// is first polled), so a signal that arrives while the server is still starting also shuts it down gracefully.
pub fn shutdown_signal() -> impl std::future::Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let interrupt = signal(SignalKind::interrupt()).ok();
        let terminate = signal(SignalKind::terminate()).ok();
        async move {
            let wait = |s: Option<tokio::signal::unix::Signal>| async move {
                match s {
                    Some(mut s) => {
                        s.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                () = wait(interrupt) => {},
                () = wait(terminate) => {},
            }
        }
    }
    #[cfg(not(unix))]
    async {
        let _ = tokio::signal::ctrl_c().await;
    }
}
