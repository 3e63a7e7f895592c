#!/usr/bin/env bash
# The cluster benchmarks of issue 27 (docs/performance.md, "Current figures"), on this machine, with the
# release builds. A benchmark, not a test: it measures and writes, it checks nothing.
#
#   cargo build --release -p server -p loadgen
#   loadgen/cluster-bench.sh                      # about 12 minutes; LOBBIES=4 DURATION=3 KILLS=2 for a try
#
# Every run starts its nodes afresh (cluster mode, each on its own port, one fresh PostgreSQL database per run,
# the NATS at $NATS_URL) and appends one JSON line to $OUT:
#  - "throughput": loadgen's report (actions/s and latency over the measured window) for 1, 2 and 3 nodes with
#    the clients spread over the nodes' URLs (each client on a node picked at random, so with N nodes a seat is
#    relayed to its table's node with probability (N-1)/N); for 3 nodes with every seat of a lobby on its host's
#    node (`--lobby-on-one-node`: the tables spread as before, nothing relayed, the baseline that tells what
#    relaying costs from what spreading the tables costs); and for 3 nodes with every client on node 1. Beside
#    it, from outside loadgen, over the whole loadgen run: each node's CPU (utime + stime from /proc/PID/stat),
#    the actions the nodes accepted (their /metrics), hence CPU per action; PostgreSQL commits
#    (pg_stat_database.xact_commit of the run's database) and lease renewal statements (the nodes'
#    tabletop_cluster_lease_renewals_total, one statement each) per second; requests relayed over NATS
#    (tabletop_forwarded_requests_total) and the forward sessions' NATS messages and the frames they carried
#    (tabletop_forward_messages_total, tabletop_forward_frames_total) per action. What relaying costs is the
#    difference of CPU per action between "3-nodes-spread" and "3-nodes-lobby-local", per relayed request and
#    per NATS message.
#  - "takeover": $KILLS times, 3 nodes under spread load; a probe (cluster-takeover.mjs) plays a match on node 1;
#    node 1 is killed with SIGKILL; from the table's lease in PostgreSQL (polled every 20 ms), on the database's
#    clock (the same machine's), how long after the kill a survivor claimed it (the new lease's expiry less its
#    lease length); and how long after the kill the probe, reconnected straight to a survivor, had an action
#    accepted again. The killed node comes back under a new id.
#
# Environment: LOBBIES (150), SEATS (2), DURATION (10 s measured after 2 s of warm-up), RUNS (2 per throughput
# configuration; 0 for the takeovers only), KILLS (20), OUT (docs/perf/2026-12-04-cluster.jsonl), TARGET (release
# binaries' folder: $CARGO_TARGET_DIR/release or target/release), PG (an admin URL of the PostgreSQL server,
# default postgres://postgres@127.0.0.1:5432/postgres), NATS_URL (nats://127.0.0.1:4222), PORT (first node's
# port, 18081). The nodes' own settings (LEASE_MS, say) pass through the environment. Needs psql, curl, python3
# and node (20+).
set -euo pipefail
cd "$(dirname "$0")/.."
ulimit -n 20000 2>/dev/null || true

target="${TARGET:-${CARGO_TARGET_DIR:-target}/release}"
server="$target/server"
loadgen="$target/loadgen"
lobbies="${LOBBIES:-150}"
seats="${SEATS:-2}"
duration="${DURATION:-10}"
runs="${RUNS:-2}"
kills="${KILLS:-20}"
out="${OUT:-docs/perf/2026-12-04-cluster.jsonl}"
pg="${PG:-postgres://postgres@127.0.0.1:5432/postgres}"
nats="${NATS_URL:-nats://127.0.0.1:4222}"
port0="${PORT:-18081}"
for tool in psql curl python3 node; do
  command -v "$tool" >/dev/null || { echo "cluster-bench: $tool is not installed" >&2; exit 1; }
done
[ -x "$server" ] && [ -x "$loadgen" ] || {
  echo "cluster-bench: no release build in $target (cargo build --release -p server -p loadgen)" >&2
  exit 1
}
mkdir -p "$(dirname "$out")"
logs="$(mktemp -d)"
tick=$(getconf CLK_TCK)
secret="$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')"
db=""
pids=()
ids=()

psql_admin() { psql "$pg" -qtAX "$@"; }
psql_db() { psql "${pg%/*}/$db" -qtAX "$@"; }

# A fresh database for the next run (the first node applies the migrations).
fresh_db() {
  drop_db
  db="cluster_bench_$$_${1//[^a-z0-9]/_}"
  psql_admin -c "CREATE DATABASE $db"
}

drop_db() {
  if [ -n "$db" ]; then psql_admin -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null; fi
  db=""
}

# Starts node $1 (0-based) with id $2 on port PORT+$1 and waits until it is ready.
start_node() {
  local i="$1" id="$2"
  BIND="127.0.0.1:$((port0 + i))" DATABASE_URL="${pg%/*}/$db" CLUSTER=true NODE_ID="$id" NATS_URL="$nats" \
    CLUSTER_SECRET="$secret" RATE_LIMIT_PER_SEC=1000 RATE_LIMIT_BURST=2000 MAX_CONNECTIONS=100000 \
    MAX_CONNECTIONS_PER_IP=100000 MAX_LOBBIES_PER_IP=100000 CODE_GUESSES_PER_IP_BURST=100000 CODE_GUESSES_BURST=100000 RUST_LOG=warn \
    "$server" >>"$logs/node-$i.log" 2>&1 &
  pids[i]=$!
  ids[i]="$id"
  local deadline=$((SECONDS + 30))
  until curl -fs "http://127.0.0.1:$((port0 + i))/readyz" >/dev/null; do
    [ "$SECONDS" -lt "$deadline" ] || { echo "cluster-bench: node $id did not start ($logs/node-$i.log)" >&2; exit 1; }
    sleep 0.1
  done
}

stop_nodes() {
  local pid
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  pids=()
  ids=()
}

finish() {
  stop_nodes
  drop_db
}
trap finish EXIT

url() { echo "ws://127.0.0.1:$((port0 + $1))/ws"; }

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# The sum over every node of a /metrics line starting with $1.
metric_sum() {
  local i total=0 v
  for i in "${!pids[@]}"; do
    v=$(curl -fs "http://127.0.0.1:$((port0 + i))/metrics" | awk -v n="$1" 'index($0, n " ") == 1 {print $2}')
    total=$(python3 -c "print($total + ${v:-0})")
  done
  echo "$total"
}

# What the run's counters say now, as JSON.
counters() {
  local i cpus=()
  for i in "${!pids[@]}"; do cpus+=("$(cpu_ticks "${pids[i]}")"); done
  printf '{"t": %s, "cpu_ticks": [%s], "accepted": %s, "renewals": %s, "forwarded": %s, "messages": %s, "frames": %s, "commits": %s}' \
    "$(date +%s.%N)" "$(IFS=,; echo "${cpus[*]}")" \
    "$(metric_sum 'tabletop_actions_total{result="accepted"}')" \
    "$(metric_sum tabletop_cluster_lease_renewals_total)" \
    "$(metric_sum tabletop_forwarded_requests_total)" \
    "$(metric_sum tabletop_forward_messages_total)" \
    "$(metric_sum tabletop_forward_frames_total)" \
    "$(psql_db -c "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")"
}

# One throughput run: $1 label, $2 node count, $3 comma-separated node indexes the clients use, $4 seed, then any
# further loadgen options.
throughput() {
  local label="$1" nodes="$2" use="$3" seed="$4" i urls=() before report after
  shift 4
  fresh_db "$label$seed"
  for ((i = 0; i < nodes; i++)); do start_node "$i" "bench-$i"; done
  for i in ${use//,/ }; do urls+=("$(url "$i")"); done
  before=$(counters)
  report=$("$loadgen" --json --url "$(IFS=,; echo "${urls[*]}")" --lobbies "$lobbies" --seats "$seats" \
    --warmup 2 --duration "$duration" --seed "$seed" "$@")
  after=$(counters)
  stop_nodes
  python3 - "$label" "$nodes" "$tick" "$(cut -d' ' -f1-3 /proc/loadavg)" "$before" "$after" "$report" <<'EOF' >>"$out"
import json, sys
label, nodes, tick, load, before, after, report = sys.argv[1:]
b, a, r = json.loads(before), json.loads(after), json.loads(report)
secs = a["t"] - b["t"]
cpu = [(x - y) / int(tick) for x, y in zip(a["cpu_ticks"], b["cpu_ticks"])]
accepted = a["accepted"] - b["accepted"]
forwarded = a["forwarded"] - b["forwarded"]
print(json.dumps({
    "kind": "throughput", "label": label, "nodes": int(nodes), "load": load,
    "actions_per_sec": r["accepted_per_sec"], "p50_ms": r["latency_ms"]["p50"], "p99_ms": r["latency_ms"]["p99"],
    "errors": r["errors"],
    "whole_run_secs": round(secs, 2), "node_cpu_secs": [round(c, 2) for c in cpu],
    "server_accepted": accepted,
    "cpu_us_per_action": round(sum(cpu) / accepted * 1e6, 1) if accepted else None,
    "forwarded_per_sec": round(forwarded / secs, 1),
    "forwarded_per_action": round(forwarded / accepted, 3) if accepted else None,
    "messages_per_action": round((a["messages"] - b["messages"]) / accepted, 3) if accepted else None,
    "frames_per_action": round((a["frames"] - b["frames"]) / accepted, 3) if accepted else None,
    "commits_per_sec": round((a["commits"] - b["commits"]) / secs, 1),
    "renewals_per_sec": round((a["renewals"] - b["renewals"]) / secs, 2),
    "report": r,
}))
EOF
  python3 - "$out" <<'EOF' >&2
import json, sys
r = json.loads(open(sys.argv[1]).readlines()[-1])
print("%s: %.0f actions/s, p99 %s ms, CPU %s us/action (nodes %s s), %s relayed/s, %s NATS messages/action, "
      "%s commits/s, %s renewals/s, errors %s" % (
          r["label"], r["actions_per_sec"], r["p99_ms"], r["cpu_us_per_action"], r["node_cpu_secs"],
          r["forwarded_per_sec"], r["messages_per_action"], r["commits_per_sec"], r["renewals_per_sec"],
          r["errors"]))
EOF
}

# The lease of $1: epoch, expiry (ms since the epoch, database clock), owner's lease length (ms).
lease_of() {
  psql_db -F' ' -c "SELECT l.epoch, (extract(epoch FROM l.expires_at) * 1000)::bigint, n.lease_ms \
    FROM table_leases l JOIN nodes n ON n.id = l.owner_node WHERE l.code = '$1'"
}

# One takeover: node 0 is killed while the probe plays on it and loadgen plays across all three.
takeover() {
  local k="$1" load probe code epoch expires lease killed new_epoch claimed again
  "$loadgen" --json --url "$(url 0),$(url 1),$(url 2)" --lobbies "$lobbies" --seats "$seats" --warmup 1 \
    --duration "$duration" --seed "$((100 + k))" >"$logs/load-$k.json" 2>"$logs/load-$k.err" &
  load=$!
  sleep 2
  node --experimental-websocket loadgen/cluster-takeover.mjs "$(url 0)" "$(url 1)" >"$logs/probe-$k.out" \
    2>"$logs/probe-$k.err" &
  probe=$!
  local deadline=$((SECONDS + 20))
  until grep -qs ready "$logs/probe-$k.out"; do
    [ "$SECONDS" -lt "$deadline" ] && kill -0 "$probe" 2>/dev/null ||
      { echo "cluster-bench: the probe did not start ($logs/probe-$k.err)" >&2; exit 1; }
    sleep 0.05
  done
  code=$(python3 -c 'import json, sys; print(json.loads(sys.stdin.readline())["ready"])' <"$logs/probe-$k.out")
  read -r epoch expires lease <<<"$(lease_of "$code")"
  killed=$(date +%s%3N)
  kill -KILL "${pids[0]}"
  wait "${pids[0]}" 2>/dev/null || true
  while :; do
    read -r new_epoch expires lease <<<"$(lease_of "$code")"
    [ "$new_epoch" = "$epoch" ] || break
    sleep 0.02
  done
  claimed=$((expires - lease))
  wait "$probe" || { echo "cluster-bench: the probe failed ($logs/probe-$k.err)" >&2; exit 1; }
  again=$(python3 -c 'import json, sys; print(json.loads(sys.stdin.readlines()[-1])["accepted_again_ms"])' \
    <"$logs/probe-$k.out")
  wait "$load" || true
  printf '{"kind": "takeover", "kill": %s, "code": "%s", "epoch": [%s, %s], "lease_ms": %s, "claimed_after_kill_ms": %s, "accepted_again_after_kill_ms": %s, "load": "%s"}\n' \
    "$k" "$code" "$epoch" "$new_epoch" "$lease" "$((claimed - killed))" "$((again - killed))" \
    "$(cut -d' ' -f1-3 /proc/loadavg)" >>"$out"
  echo "takeover $k: claimed $((claimed - killed)) ms and an action accepted again $((again - killed)) ms after the kill" >&2
  # Node 0 comes back under a new id (its old id stays taken until its heartbeat is a lease old).
  start_node 0 "bench-0-$k"
}

for ((run = 1; run <= runs; run++)); do
  throughput "1-node" 1 0 "$run"
  throughput "2-nodes-spread" 2 0,1 "$run"
  throughput "3-nodes-spread" 3 0,1,2 "$run"
  throughput "3-nodes-lobby-local" 3 0,1,2 "$run" --lobby-on-one-node
  throughput "3-nodes-all-on-one" 3 0 "$run"
done
[ "$runs" -gt 0 ] && python3 - "$out" "$runs" <<'EOF' >&2
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if '"throughput"' in l][-5 * int(sys.argv[2]):]
cpu = lambda label: statistics.median(r["cpu_us_per_action"] for r in rows if r["label"] == label)
per = lambda key: statistics.median(r[key] for r in rows if r["label"] == "3-nodes-spread")
extra = cpu("3-nodes-spread") - cpu("3-nodes-lobby-local")
print(f"relaying: +{extra:.1f} us/action over the tables spread without relaying ({cpu('3-nodes-lobby-local'):.1f});"
      f" {extra / per('forwarded_per_action'):.0f} us per relayed request,"
      f" {extra / per('messages_per_action'):.1f} us per NATS message")
EOF

if [ "$kills" -gt 0 ]; then
  fresh_db takeover
  for i in 0 1 2; do start_node "$i" "bench-$i"; done
  for ((k = 1; k <= kills; k++)); do takeover "$k"; done
  stop_nodes
  python3 - "$out" "$kills" <<'EOF' >&2
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if '"takeover"' in l][-int(sys.argv[2]):]
for key in ("claimed_after_kill_ms", "accepted_again_after_kill_ms"):
    v = sorted(r[key] for r in rows)
    p90 = v[min(len(v) - 1, round(0.9 * (len(v) - 1)))]
    print(f"{key}: min {v[0]}, median {statistics.median(v)}, p90 {p90}, max {v[-1]} over {len(v)} kills")
EOF
fi
echo "cluster-bench: results in $out (node logs in $logs)" >&2
