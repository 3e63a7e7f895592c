#!/usr/bin/env bash
# The standard measurement set (docs/performance.md, "Method"): one JSON report per run, appended to $OUT with a
# label and the machine's load average, and one summary line per run on stdout.
#
#   cargo build --release -p server -p loadgen
#   OUT=results.jsonl loadgen/run-set.sh A B C D E
#
# To compare two builds on a machine whose speed drifts (by up to 40 % within an hour), set OLD to the other
# build's loadgen (it starts the server binary next to it): every run is then made twice in a row, OLD's first,
# labelled old-... and new-....
#
# Sets: A = 500 x 2-seat Hide and Eeek!, Postgres and SQLite, 3 runs each; B = 10-250 lobbies, Postgres;
# C = 500 lobbies of every game at 3 and 4 seats, Postgres; D = 10,000 idle connections; E = 500 lobbies for
# 180 s (memory once finished tables unload). Needs PostgreSQL at $PG and `ulimit -n` above 10,100 for D.
set -euo pipefail
cd "$(dirname "$0")/.."
ulimit -n 20000
L=${LOADGEN:-target/release/loadgen}
NEW=$L
PG=${PG:-postgres://postgres@127.0.0.1:5432/postgres}
OUT=${OUT:-results.jsonl}

run() {
  if [ -n "${OLD:-}" ]; then
    local label="$1"; shift
    L="$OLD" run1 "old-$label" "$@"
    L="$NEW" run1 "new-$label" "$@"
  else
    run1 "$@"
  fi
}

run1() {
  local label="$1"; shift
  local report
  report=$("$L" --json "$@")
  echo "{\"label\": \"$label\", \"load\": \"$(cut -d' ' -f1 /proc/loadavg)\", \"report\": $report}" >> "$OUT"
  echo "$report" | python3 -c '
import json, sys
r = json.load(sys.stdin); l = r["latency_ms"]; k = r.get("socket_latency_ms") or {}
print(sys.argv[1], round(r["accepted_per_sec"]), "actions/s, p50", l["p50"], "p99", l["p99"], "ms (at the socket",
      k.get("p50"), "/", k.get("p99"), "ms), errors", r["errors"],
      ", peak", (r["server_hwm_kib"] or 0) // 1024, "MiB")' "$label"
}

for set in "$@"; do
  case "$set" in
    A) for seed in 1 2 3; do
         run he2-500-pg --database "$PG" --lobbies 500 --seats 2 --warmup 3 --duration 10 --seed "$seed"
         run he2-500-sqlite --lobbies 500 --seats 2 --warmup 3 --duration 10 --seed "$seed"
       done ;;
    B) for n in 10 50 100 250; do
         run "he2-$n-pg" --database "$PG" --lobbies "$n" --seats 2 --warmup 3 --duration 10 --seed 1
       done ;;
    C) for game in hide_and_eeek molehills new_year_puzzle quacks hickory_dickory; do
         for seats in 3 4; do
           run "$game-$seats-500-pg" --database "$PG" --game "$game" --lobbies 500 --seats "$seats" --warmup 3 --duration 10 --seed 1
         done
       done ;;
    D) run idle-10000-pg --database "$PG" --lobbies 10 --idle 10000 --warmup 1 --duration 5 --seed 1 ;;
    E) run he2-500-pg-long --database "$PG" --lobbies 500 --seats 2 --warmup 3 --duration 180 --seed 4 ;;
    *) echo "unknown set $set (A, B, C, D or E)" >&2; exit 2 ;;
  esac
done
