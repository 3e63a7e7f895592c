//! Downtime is not charged to anyone (issue 47, point 2). Every server process (a single node, or each node of a
//! cluster) records that it is serving: a row of `server_runs` per start, whose `beat_at` it renews every
//! `HEARTBEAT_MS` on the tables' clock and once more when it stops gracefully. The time between the last beat of
//! every earlier run and the start of the next one is a gap in which no process served anything; every playing
//! table is credited with the gaps after its last action when it is loaded (`table/downtime.rs`), and its wake-ups
//! count only served time. The runs that can no longer give a gap to any table are deleted at each start
//! (`Store::start_run`).
//!
//! A crash loses at most one heartbeat interval of served time, which is then credited too (in the players'
//! favour). In a cluster the runs of all nodes overlap while any node serves, so only a whole cluster's outage
//! leaves a gap; a node joining a cluster that is up sees one of at most a heartbeat interval (the live nodes' last
//! beats), so there gaps shorter than two intervals are no gaps. A loaded table whose node died is credited from its
//! lease instead (`crate::cluster`: the time since its owner last served it).

use std::sync::Arc;

use rules::Millis;
use tokio::sync::{mpsc, watch};
use tracing::{info, warn};

use crate::{
    clock::SharedClock,
    store::{Outage, ServerRun, Store, StoreError},
};

/// The gaps in which no run of the server served anything, oldest first (shared by every table).
#[derive(Clone, Debug, Default)]
pub struct Downtime {
    gaps: Vec<Outage>,
}

impl Downtime {
    /// No gaps (cluster mode, and tables built without a server).
    pub fn none() -> Arc<Downtime> {
        Arc::new(Downtime::default())
    }

    /// The gaps, oldest first.
    pub fn gaps(&self) -> &[Outage] {
        &self.gaps
    }
}

/// The gaps between `runs` (any order) and a run starting at `now`: a run's start later than every earlier run's
/// last beat leaves the time between them unserved, if that is at least `min_gap`.
pub fn gaps(runs: &[ServerRun], now: Millis, min_gap: Millis) -> Vec<Outage> {
    let mut runs = runs.to_vec();
    runs.sort_by_key(|r| r.started_at);
    let mut gaps = Vec::new();
    let mut served_until: Option<Millis> = None;
    let starts = runs.iter().map(|r| (r.started_at, Some(r.beat_at)));
    for (started_at, beat_at) in starts.chain([(now, None)]) {
        if let Some(until) = served_until
            && started_at > until
            && started_at - until >= min_gap
        {
            gaps.push((until, started_at));
        }
        let beat = beat_at.unwrap_or(started_at).max(started_at);
        served_until = Some(served_until.map_or(beat, |u| u.max(beat)));
    }
    gaps
}

/// A random id for this run.
fn run_id() -> String {
    let mut buf = [0u8; 8];
    getrandom::fill(&mut buf).expect("the operating system's random source");
    let hex: String = buf.iter().map(|b| format!("{b:02x}")).collect();
    format!("run-{hex}")
}

/// Records this run as started, reads the gaps of the earlier ones and starts the heartbeat, which beats every
/// `every_ms` until `shutdown` and once more then (holding `done` until it has). A cluster node (`cluster`) counts
/// no gap shorter than two heartbeat intervals (see the module's comment).
pub async fn start(
    store: Store,
    clock: SharedClock,
    every_ms: Millis,
    cluster: bool,
    shutdown: watch::Receiver<bool>,
    done: mpsc::Sender<()>,
) -> Result<Arc<Downtime>, StoreError> {
    let id = run_id();
    let now = clock.now();
    let runs = store.start_run(&id, now).await?;
    let min_gap = if cluster { every_ms.saturating_mul(2) } else { 0 };
    let gaps = gaps(&runs, now, min_gap);
    if let Some((from, to)) = gaps.last().filter(|(_, to)| *to == now) {
        info!(
            down_ms = to - from,
            "the server was down; every table gets that time back"
        );
    }
    tokio::spawn(heartbeat(store, clock, id, every_ms.max(1), shutdown, done));
    Ok(Arc::new(Downtime { gaps }))
}

async fn heartbeat(
    store: Store,
    clock: SharedClock,
    id: String,
    every_ms: Millis,
    mut shutdown: watch::Receiver<bool>,
    done: mpsc::Sender<()>,
) {
    loop {
        let next = clock.now().saturating_add(every_ms);
        let stopping = tokio::select! {
            () = clock.sleep_until(next) => false,
            changed = shutdown.wait_for(|s| *s) => {
                let _ = changed;
                true
            }
        };
        if let Err(e) = store.beat_run(&id, clock.now()).await {
            warn!(error = %e, "recording that the server is serving failed");
        }
        if stopping {
            break;
        }
    }
    drop(done);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(started_at: Millis, beat_at: Millis) -> ServerRun {
        ServerRun { started_at, beat_at }
    }

    /// The gaps are the times between a run's last beat and the next start, also before the run starting now; runs
    /// that overlap (or a clock set back) leave none.
    #[test]
    fn gaps_lie_between_the_last_beat_and_the_next_start() {
        assert_eq!(gaps(&[], 100, 0), vec![]);
        assert_eq!(gaps(&[run(0, 50)], 50, 0), vec![]);
        assert_eq!(gaps(&[run(0, 50)], 80, 0), vec![(50, 80)]);
        assert_eq!(
            gaps(&[run(100, 150), run(0, 50), run(60, 90)], 200, 0),
            vec![(50, 60), (90, 100), (150, 200)]
        );
        assert_eq!(gaps(&[run(0, 500), run(100, 150)], 400, 0), vec![]);
        assert_eq!(gaps(&[run(1_000, 2_000)], 10, 0), vec![]);
    }

    /// A cluster node counts no gap shorter than `min_gap`: the one a node joining a live cluster sees between the
    /// others' last beats and its start.
    #[test]
    fn gaps_shorter_than_the_minimum_are_none() {
        assert_eq!(gaps(&[run(0, 50)], 59, 10), vec![]);
        assert_eq!(gaps(&[run(0, 50)], 60, 10), vec![(50, 60)]);
        assert_eq!(
            gaps(&[run(0, 50), run(55, 100), run(500, 600)], 605, 10),
            vec![(100, 500)]
        );
    }
}
