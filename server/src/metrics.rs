//! Prometheus metrics, kept per server instance (no global recorder, so several servers in one test process
//! do not mix their numbers) and rendered in the Prometheus text format at `/metrics`.

use std::{
    fmt::Write,
    sync::atomic::{AtomicI64, AtomicU64, Ordering::Relaxed},
    time::Duration,
};

use crate::store::Phase;

const BUCKETS: [f64; 12] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
];

/// A latency histogram with fixed buckets (seconds). Each observation counts in the one bucket it falls in
/// (three atomic additions on the hot path); the cumulative counts Prometheus expects are summed when rendered.
#[derive(Debug, Default)]
pub struct Histogram {
    /// Observations in (previous bound, this bound]; the last entry counts those above every bound.
    counts: [AtomicU64; BUCKETS.len() + 1],
    count: AtomicU64,
    sum_micros: AtomicU64,
}

impl Histogram {
    pub fn observe(&self, d: Duration) {
        let secs = d.as_secs_f64();
        let bucket = BUCKETS
            .iter()
            .position(|bound| secs <= *bound)
            .unwrap_or(BUCKETS.len());
        self.counts[bucket].fetch_add(1, Relaxed);
        self.count.fetch_add(1, Relaxed);
        self.sum_micros.fetch_add(d.as_micros() as u64, Relaxed);
    }

    fn render(&self, out: &mut String, name: &str, help: &str) {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} histogram");
        let mut cumulative = 0;
        for (bound, count) in BUCKETS.iter().zip(&self.counts) {
            cumulative += count.load(Relaxed);
            let _ = writeln!(out, "{name}_bucket{{le=\"{bound}\"}} {cumulative}");
        }
        let count = self.count.load(Relaxed);
        let _ = writeln!(out, "{name}_bucket{{le=\"+Inf\"}} {count}");
        let _ = writeln!(out, "{name}_sum {}", self.sum_micros.load(Relaxed) as f64 / 1e6);
        let _ = writeln!(out, "{name}_count {count}");
    }
}

/// One counter in the Prometheus text format.
fn counter(out: &mut String, name: &str, help: &str, value: &AtomicU64) {
    let _ = writeln!(
        out,
        "# HELP {name} {help}\n# TYPE {name} counter\n{name} {}",
        value.load(Relaxed)
    );
}

#[derive(Debug, Default)]
pub struct Metrics {
    pub connections: AtomicI64,
    pub connections_total: AtomicU64,
    lobbies_open: AtomicI64,
    matches_playing: AtomicI64,
    matches_finished: AtomicI64,
    /// Open or playing tables that left memory with nobody connected (`table/idle.rs`), and loaded again.
    pub tables_unloaded: AtomicU64,
    pub tables_reloaded: AtomicU64,
    /// Matches that ended as abandoned.
    pub matches_abandoned: AtomicU64,
    pub actions_accepted: AtomicU64,
    pub actions_rejected: AtomicU64,
    pub action_latency: Histogram,
    pub db_write_latency: Histogram,
    /// Group commits written (one database transaction each) and the appends they held: their ratio is the
    /// mean batch size.
    pub group_commits: AtomicU64,
    pub group_commit_appends: AtomicU64,
    /// The database's own time for each group commit, from sending it to its answer.
    pub group_commit_latency: Histogram,
    /// Group commits refused whole (their writes then written again in halves, each half counted as a group
    /// commit of its own).
    pub group_commit_failures: AtomicU64,
    /// Cluster mode: client requests this node relayed to the node that owns their table, and the time from
    /// relaying one to its reply coming back.
    pub forwarded_requests: AtomicU64,
    pub forward_latency: Histogram,
    /// Cluster mode: forwarded requests refused with `forward_unavailable` and forwarded connections closed with
    /// it (NATS unreachable, the owner silent, a message lost on the way).
    pub forward_errors: AtomicU64,
    /// Cluster mode: node-to-node messages refused as forged (bad signature) or replayed (an old sequence number).
    pub forward_refused: AtomicU64,
    /// Cluster mode: NATS messages this node's forward sessions published (frames and batches of frames, either
    /// way, heartbeats included), and the client frames they carried.
    pub forward_messages: AtomicU64,
    pub forward_frames: AtomicU64,
}

impl Metrics {
    fn phase_gauge(&self, phase: Phase) -> Option<&AtomicI64> {
        match phase {
            Phase::Open => Some(&self.lobbies_open),
            Phase::Playing => Some(&self.matches_playing),
            Phase::Finished => Some(&self.matches_finished),
            Phase::Closed => None,
        }
    }

    /// A table in memory moved from one phase to another (`None`: appeared or went away).
    pub fn phase_change(&self, from: Option<Phase>, to: Option<Phase>) {
        if let Some(g) = from.and_then(|p| self.phase_gauge(p)) {
            g.fetch_sub(1, Relaxed);
        }
        if let Some(g) = to.and_then(|p| self.phase_gauge(p)) {
            g.fetch_add(1, Relaxed);
        }
    }

    /// The `/metrics` page in Prometheus' text format: connections and tables, then actions and their writes,
    /// then cluster forwarding.
    pub fn render(&self) -> String {
        let mut out = String::new();
        self.render_tables(&mut out);
        self.render_actions(&mut out);
        self.render_forwarding(&mut out);
        out
    }

    /// Connections, and the tables in memory by phase, loaded, unloaded, reloaded and abandoned.
    fn render_tables(&self, out: &mut String) {
        let _ = writeln!(
            out,
            "# HELP tabletop_connections Open WebSocket connections.\n# TYPE tabletop_connections gauge\n\
             tabletop_connections {}",
            self.connections.load(Relaxed)
        );
        counter(
            out,
            "tabletop_connections_total",
            "WebSocket connections accepted since start.",
            &self.connections_total,
        );
        let _ = writeln!(
            out,
            "# HELP tabletop_matches Lobbies and matches in this server's memory, by state.\n# TYPE tabletop_matches gauge"
        );
        for (state, gauge) in [
            ("open", &self.lobbies_open),
            ("playing", &self.matches_playing),
            ("finished", &self.matches_finished),
        ] {
            let _ = writeln!(
                out,
                "tabletop_matches{{state=\"{state}\"}} {}",
                gauge.load(Relaxed)
            );
        }
        let loaded = [&self.lobbies_open, &self.matches_playing, &self.matches_finished]
            .iter()
            .map(|g| g.load(Relaxed))
            .sum::<i64>();
        let _ = writeln!(
            out,
            "# HELP tabletop_tables_loaded Tables (lobbies and matches) in this server's memory; the others are in \
             the database only.\n# TYPE tabletop_tables_loaded gauge\ntabletop_tables_loaded {loaded}"
        );
        counter(
            out,
            "tabletop_tables_unloaded_total",
            "Open or playing tables that left memory because nobody was connected (IDLE_UNLOAD_SECS).",
            &self.tables_unloaded,
        );
        counter(
            out,
            "tabletop_tables_reloaded_total",
            "Open or playing tables loaded again from the database after leaving memory.",
            &self.tables_reloaded,
        );
        counter(
            out,
            "tabletop_matches_abandoned_total",
            "Matches that ended as abandoned (nobody connected for ABANDON_AFTER_SECS).",
            &self.matches_abandoned,
        );
    }

    /// Actions by result, their latency, and the group commits that store them.
    fn render_actions(&self, out: &mut String) {
        let _ = writeln!(
            out,
            "# HELP tabletop_actions_total Actions received from seats, by result.\n# TYPE tabletop_actions_total counter"
        );
        let _ = writeln!(
            out,
            "tabletop_actions_total{{result=\"accepted\"}} {}",
            self.actions_accepted.load(Relaxed)
        );
        let _ = writeln!(
            out,
            "tabletop_actions_total{{result=\"rejected\"}} {}",
            self.actions_rejected.load(Relaxed)
        );
        self.action_latency.render(
            out,
            "tabletop_action_latency_seconds",
            "From an action reaching its match to its commit and broadcast.",
        );
        self.db_write_latency.render(
            out,
            "tabletop_db_write_seconds",
            "From an action's append being handed to the group-commit writer to its answer (queueing included).",
        );
        counter(
            out,
            "tabletop_group_commits_total",
            "Group commits written (one transaction each).",
            &self.group_commits,
        );
        counter(
            out,
            "tabletop_group_commit_appends_total",
            "Actions appended by group commits.",
            &self.group_commit_appends,
        );
        counter(
            out,
            "tabletop_group_commit_failures_total",
            "Group commits refused whole, whose writes were then written again in halves.",
            &self.group_commit_failures,
        );
        self.group_commit_latency.render(
            out,
            "tabletop_group_commit_seconds",
            "The database's time for each group commit, from sending it to its answer.",
        );
    }

    /// Cluster mode: requests relayed to the node that owns their table, and the node-to-node messages.
    fn render_forwarding(&self, out: &mut String) {
        counter(
            out,
            "tabletop_forwarded_requests_total",
            "Cluster mode: client requests relayed to the node that owns their table.",
            &self.forwarded_requests,
        );
        self.forward_latency.render(
            out,
            "tabletop_forward_latency_seconds",
            "Cluster mode: from relaying a client request to the owner node to its reply coming back.",
        );
        counter(
            out,
            "tabletop_forward_errors_total",
            "Cluster mode: forwarded requests refused and forwarded connections closed with `forward_unavailable`.",
            &self.forward_errors,
        );
        counter(
            out,
            "tabletop_forward_refused_total",
            "Cluster mode: node-to-node messages refused as forged (bad signature) or replayed (old sequence).",
            &self.forward_refused,
        );
        counter(
            out,
            "tabletop_forward_messages_total",
            "Cluster mode: NATS messages this node's forward sessions published (heartbeats included).",
            &self.forward_messages,
        );
        counter(
            out,
            "tabletop_forward_frames_total",
            "Cluster mode: WebSocket frames those messages carried (a batch carries several).",
            &self.forward_frames,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_buckets_are_cumulative() {
        let h = Histogram::default();
        h.observe(Duration::from_micros(300));
        h.observe(Duration::from_millis(30));
        h.observe(Duration::from_secs(10));
        let mut out = String::new();
        h.render(&mut out, "x", "help");
        assert!(out.contains("x_bucket{le=\"0.0005\"} 1\n"), "{out}");
        assert!(out.contains("x_bucket{le=\"0.05\"} 2\n"), "{out}");
        assert!(out.contains("x_bucket{le=\"2.5\"} 2\n"), "{out}");
        assert!(
            out.contains("x_bucket{le=\"+Inf\"} 3\nx_sum 10.0303\nx_count 3\n"),
            "{out}"
        );
    }

    #[test]
    fn phases_move_between_gauges() {
        let m = Metrics::default();
        m.phase_change(None, Some(Phase::Open));
        m.phase_change(Some(Phase::Open), Some(Phase::Playing));
        let text = m.render();
        assert!(text.contains("tabletop_matches{state=\"open\"} 0\n"));
        assert!(text.contains("tabletop_matches{state=\"playing\"} 1\n"));
    }
}
