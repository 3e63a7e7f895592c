#!/usr/bin/env bash
# The server's user-space instructions per accepted action (docs/performance.md, "Method"): a number
# that does not depend on how fast or busy the machine is. The server runs under `valgrind --tool=callgrind` on a
# fresh PostgreSQL database while the load generator plays 50 lobbies of 2-seat Hide and Eeek! (LOBBIES, GAME and
# SEATS pick another load; LOADGEN_ARGS adds load generator flags, e.g. "--rules-version 1"; VALGRIND_ARGS adds
# callgrind flags, e.g. "--cache-sim=yes") against it by URL,
# once for 10 s and once for 30 s; the difference of the two instruction totals divided by the difference of the
# accepted actions (from /metrics) cancels start-up and shutdown.
#
#   cargo build --release -p server -p loadgen
#   loadgen/callgrind.sh [server binary] [loadgen binary]     # prints instructions per accepted action
#
# Needs valgrind, curl, psql and PostgreSQL at $PG (the database is created and dropped). The callgrind files
# are left in $OUT_DIR (default: a new temporary folder) for callgrind_annotate.
set -euo pipefail
cd "$(dirname "$0")/.."
SERVER=${1:-target/release/server}
LOADGEN=${2:-target/release/loadgen}
PG=${PG:-postgres://postgres@127.0.0.1:5432/postgres}
PORT=${PORT:-18080}
OUT_DIR=${OUT_DIR:-$(mktemp -d)}
mkdir -p "$OUT_DIR"
ulimit -n 20000

# Prints "<instructions> <accepted actions>" for a run of $1 seconds.
measure() {
  local seconds=$1 db="callgrind_$$_$1"
  psql -q "$PG" -c "CREATE DATABASE $db"
  BIND=127.0.0.1:$PORT DATABASE_URL="${PG%/*}/$db" RUST_LOG=warn MAX_CONNECTIONS=5000 MAX_CONNECTIONS_PER_IP=5000 \
    MAX_LOBBIES_PER_IP=1000000000 RATE_LIMIT_PER_SEC=1000000000 RATE_LIMIT_BURST=1000000000 CODE_GUESSES_PER_IP_BURST=1000000000 CODE_GUESSES_BURST=1000000000 \
    valgrind --tool=callgrind ${VALGRIND_ARGS:-} --callgrind-out-file="$OUT_DIR/callgrind.$seconds.out" "$SERVER" \
    > "$OUT_DIR/server.$seconds.log" 2> "$OUT_DIR/valgrind.$seconds.log" &
  local server=$!
  for _ in $(seq 120); do curl -sf "http://127.0.0.1:$PORT/healthz" > /dev/null && break; sleep 1; done
  "$LOADGEN" --url "ws://127.0.0.1:$PORT/ws" --game "${GAME:-hide_and_eeek}" --lobbies "${LOBBIES:-50}" --seats "${SEATS:-2}" --warmup 1 --duration "$seconds" --seed 1 ${LOADGEN_ARGS:-} \
    --json > "$OUT_DIR/report.$seconds.json"
  local accepted
  accepted=$(curl -s "http://127.0.0.1:$PORT/metrics" | awk '/^tabletop_actions_total\{result="accepted"\}/ {print $2}')
  kill -TERM "$server"
  wait "$server" || true
  psql -q "$PG" -c "DROP DATABASE $db WITH (FORCE)"
  local total
  total=$(callgrind_annotate "$OUT_DIR/callgrind.$seconds.out" 2> /dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
  echo "$total $accepted"
}

read -r short_total short_accepted < <(measure "${SHORT:-10}")
read -r long_total long_accepted < <(measure "${LONG:-30}")
python3 -c "import sys; a, b, c, d = map(int, sys.argv[1:]); print(f'{(c - a) / (d - b):.0f} instructions per accepted action ({d - b} actions, files in $OUT_DIR)')" \
  "$short_total" "$short_accepted" "$long_total" "$long_accepted"
