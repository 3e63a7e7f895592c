#!/usr/bin/env bash
# Alternating wall-clock pairs of two server builds under the same load generator (docs/performance.md,
# "Method"): each pair runs OLD then NEW (or NEW then OLD, alternately) on a fresh PostgreSQL database each,
# and reads, over the middle 8 s of the run, the server's accepted actions (/metrics), CPU time and context switches
# (/proc/<pid>), the CPU time also in user space alone. One line per run, then the medians of the pairs' new / old
# ratios.
#
#   cargo build --release -p server -p loadgen
#   OLD=/path/to/old/server NEW=target/release/server GAME=molehills SEATS=4 PAIRS=6 loadgen/pairs.sh
#
# LOADGEN_ARGS adds load generator flags (e.g. "--rules-version 1"). Needs curl, psql and PostgreSQL at $PG.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${OLD:?the old server binary}"
NEW=${NEW:-target/release/server}
LOADGEN=${LOADGEN:-target/release/loadgen}
PG=${PG:-postgres://postgres@127.0.0.1:5432/postgres}
PORT=${PORT:-18181}
PAIRS=${PAIRS:-6}
ulimit -n 20000

accepted() { curl -s "http://127.0.0.1:$PORT/metrics" | awk '/^tabletop_actions_total\{result="accepted"\}/ {print $2}'; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
user_ticks() { awk '{print $14}' "/proc/$1/stat"; }
switches() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '/ctxt_switches/ {s += $2} END {print s}'; }

# Prints "<label> <actions/s> <server us CPU per action> <context switches per action> <server us user CPU per
# action>".
run() {
  local label=$1 server=$2 db="pairs_$$_$1" report
  report=$(mktemp)
  psql -q "$PG" -c "CREATE DATABASE $db"
  BIND=127.0.0.1:$PORT DATABASE_URL="${PG%/*}/$db" RUST_LOG=warn MAX_CONNECTIONS=5000 MAX_CONNECTIONS_PER_IP=5000 \
    MAX_LOBBIES_PER_IP=1000000000 RATE_LIMIT_PER_SEC=1000000000 RATE_LIMIT_BURST=1000000000 CODE_GUESSES_PER_IP_BURST=1000000000 CODE_GUESSES_BURST=1000000000 "$server" > /dev/null 2>&1 &
  local pid=$!
  for _ in $(seq 60); do curl -sf "http://127.0.0.1:$PORT/healthz" > /dev/null && break; sleep 0.5; done
  # shellcheck disable=SC2086
  "$LOADGEN" --url "ws://127.0.0.1:$PORT/ws" --game "${GAME:-hide_and_eeek}" --lobbies "${LOBBIES:-500}" \
    --seats "${SEATS:-2}" --warmup 3 --duration 10 --seed 1 ${LOADGEN_ARGS:-} --json > "$report" &
  local load=$!
  sleep 4
  local a0 t0 c0 u0 a1 t1 c1 u1
  a0=$(accepted); t0=$(cpu_ticks "$pid"); c0=$(switches "$pid"); u0=$(user_ticks "$pid")
  sleep 8
  a1=$(accepted); t1=$(cpu_ticks "$pid"); c1=$(switches "$pid"); u1=$(user_ticks "$pid")
  wait "$load"
  kill -TERM "$pid"
  wait "$pid" || true
  psql -q "$PG" -c "DROP DATABASE $db WITH (FORCE)"
  python3 -c "
import json, sys
r = json.load(open('$report'))
n = $a1 - $a0
tick = 1e6 / $(getconf CLK_TCK) / n
print('$label', round(r['accepted_per_sec']), round(($t1 - $t0) * tick, 1), round(($c1 - $c0) / n, 3), round(($u1 - $u0) * tick, 1))"
  rm -f "$report"
}

lines=$(mktemp)
for i in $(seq "$PAIRS"); do
  if [ $((i % 2)) = 1 ]; then order="old new"; else order="new old"; fi
  for build in $order; do
    if [ "$build" = old ]; then run old "$OLD"; else run new "$NEW"; fi | tee -a "$lines"
  done
done
python3 - "$lines" <<'EOF'
import statistics, sys
runs = [l.split() for l in open(sys.argv[1]) if l.strip()]
pairs = [dict((r[0], r) for r in runs[i:i + 2]) for i in range(0, len(runs) - 1, 2)]
for name, k in (("actions/s", 1), ("server CPU per action", 2), ("context switches per action", 3),
                ("server user-space CPU per action", 4)):
    ratios = [float(p["new"][k]) / float(p["old"][k]) for p in pairs]
    print(f"{name}: median new/old {statistics.median(ratios):.3f} over {len(ratios)} pairs "
          f"(range {min(ratios):.2f}-{max(ratios):.2f})")
EOF
rm -f "$lines"
