#!/usr/bin/env bash
# Plays every game the server hosts with the Python example client against the real server binary:
# a fresh SQLite file, a free port, two example players on their own connections (plus bots up to the game's
# minimum), each dropping its connection every few actions to exercise `resume`. Fails if any game does not
# reach a result.
#
#   examples/python/ci.sh [SERVER_BINARY]     (default: target/debug/server-under-test, built by cargo test)
set -euo pipefail
cd "$(dirname "$0")/../.."
binary="${1:-target/debug/server-under-test}"
[ -x "$binary" ] || { echo "examples/python/ci.sh: no server binary at $binary" >&2; exit 1; }

# A virtual environment of our own (outside the system Python), reused between runs.
venv=target/python-example-venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -c 'import websockets' 2>/dev/null || "$venv/bin/pip" install -q -r examples/python/requirements.txt

work=$(mktemp -d)
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

# Port 0: the server picks a free port and prints `listening on http://ADDR`.
BIND=127.0.0.1:0 DATABASE_URL="sqlite://$work/ci.db" BOT_DELAY_MS=0 RUST_LOG=warn \
  "$binary" >"$work/stdout" 2>"$work/stderr" &
server_pid=$!
for _ in $(seq 100); do
  grep -q '^listening on ' "$work/stdout" 2>/dev/null && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/stderr" >&2; exit 1; }
  sleep 0.1
done
server=$(sed -n 's/^listening on //p' "$work/stdout")
[ -n "$server" ] || { echo "the server did not start" >&2; cat "$work/stderr" >&2; exit 1; }

games=$("$venv/bin/python" -c 'import json, sys, urllib.request
print(" ".join(g["id"] for g in json.load(urllib.request.urlopen(sys.argv[1] + "/api/games"))))' "$server")
failed=0
passed=0
for game in $games; do
  echo "== $game"
  start=$(date +%s)
  if ! "$venv/bin/python" examples/python/play.py --server "$server" --game "$game" --humans 2 \
      --drop-every 7 --timeout 240; then
    echo "== $game: no result" >&2
    failed=$((failed + 1))
  else
    passed=$((passed + 1))
  fi
  echo "== $game: $(( $(date +%s) - start )) s"
done
echo "examples: $passed passed, $failed failed"
if [ "$failed" != 0 ]; then
  tail -50 "$work/stderr" >&2
  exit 1
fi

# Keep-alive: a server that closes connections silent for 2 s, a host that waits 4 s in its lobby for a second
# player (sending nothing meanwhile but its pings, every 0.5 s), then a match between the two. The host must
# finish without a single reconnection: without the pings it would be closed with `idle_timeout` and resume.
kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
BIND=127.0.0.1:0 DATABASE_URL="sqlite://$work/keepalive.db" IDLE_TIMEOUT_SECS=2 RUST_LOG=warn \
  "$binary" >"$work/stdout2" 2>"$work/stderr2" &
server_pid=$!
for _ in $(seq 100); do
  grep -q '^listening on ' "$work/stdout2" 2>/dev/null && break
  sleep 0.1
done
server=$(sed -n 's/^listening on //p' "$work/stdout2")
[ -n "$server" ] || { echo "the keep-alive server did not start" >&2; cat "$work/stderr2" >&2; exit 1; }
echo "== keep-alive"
"$venv/bin/python" examples/python/play.py --server "$server" --game hide_and_eeek --seats 2 --humans 1 --bots 0 \
  --keepalive 0.5 --timeout 60 >"$work/host.out" 2>&1 &
host_pid=$!
for _ in $(seq 100); do
  code=$(sed -n 's/^lobby \([A-Z0-9]*\):.*/\1/p' "$work/host.out")
  [ -n "$code" ] && break
  sleep 0.1
done
[ -n "$code" ] || { echo "the host made no lobby" >&2; cat "$work/host.out" >&2; exit 1; }
sleep 4
"$venv/bin/python" examples/python/play.py --server "$server" --join "$code" --keepalive 0.5 --timeout 60 \
  >"$work/guest.out" 2>&1 || { echo "== keep-alive: the guest failed" >&2; cat "$work/guest.out" >&2; exit 1; }
wait "$host_pid" || { echo "== keep-alive: the host failed" >&2; cat "$work/host.out" >&2; exit 1; }
grep -q 'Host: .* 0 reconnections' "$work/host.out" || {
  echo "== keep-alive: the host's connection did not stay open" >&2; cat "$work/host.out" >&2; exit 1; }
echo "== keep-alive: the host waited 4 s with a 2 s idle timeout and never reconnected"
