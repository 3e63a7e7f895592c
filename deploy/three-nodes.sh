#!/usr/bin/env bash
# Three server nodes in cluster mode on one PostgreSQL database and HAProxy (deploy/haproxy.cfg) in front of
# them, all on this machine: clients use http://127.0.0.1:8080; the nodes listen on 127.0.0.1:8081-8083 and
# HAProxy's statistics are on http://127.0.0.1:8404/stats. Ctrl-C stops everything (the nodes hand their tables
# over as on any SIGTERM); so does any of the four processes ending.
#
#   cargo build --release -p server && deploy/three-nodes.sh
#
# Environment: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/tabletop_cluster; a database of that
# name is created first when psql can), SERVER (default target/release/server), NATS_URL (default
# a NATS server of its own, see below), CLUSTER_SECRET (the nodes' shared forwarding secret; default a random one
# for this run), RUST_LOG. Needs haproxy (Debian: apt-get install haproxy) and, without NATS_URL, nats-server
# (Debian: apt-get install nats-server). MAX_CONNECTIONS_PER_IP, MAX_LOBBIES_PER_IP and the other limits reach the
# nodes and HAProxy alike: HAProxy counts each address's WebSockets for the three nodes together.
#
# Without NATS_URL the script starts a NATS server of its own on 127.0.0.1:4229 that only clients with a random
# password of this run may use: nothing else on the machine can read or send the nodes' messages (they are
# also encrypted and signed with CLUSTER_SECRET). A NATS_URL given should carry its credentials
# (nats://user:password@host:port) and use TLS (tls://host:port) where it leaves the host; NATS_CA_FILE (exported,
# the nodes inherit it) names the CA certificates that signed the NATS server's when they are not the system's.
set -euo pipefail
cd "$(dirname "$0")/.."

database_url="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/tabletop_cluster}"
server="${SERVER:-target/release/server}"
command -v haproxy >/dev/null || { echo "three-nodes: haproxy is not installed (apt-get install haproxy)" >&2; exit 1; }
[ -x "$server" ] || { echo "three-nodes: no server binary at $server (cargo build --release -p server)" >&2; exit 1; }

# Create the database when it is missing (the server applies its migrations itself). Its name comes from the
# URL's path, without query.
name="${database_url##*/}"
name="${name%%\?*}"
if command -v psql >/dev/null && [[ "$name" =~ ^[a-z0-9_]+$ ]]; then
  admin="${database_url%/*}/postgres"
  if [ -z "$(psql "$admin" -tAc "SELECT 1 FROM pg_database WHERE datname = '$name'")" ]; then
    psql "$admin" -qc "CREATE DATABASE $name"
  fi
fi

# The nodes sign what they forward to each other with it (server/src/cluster/forward.rs).
export CLUSTER_SECRET="${CLUSTER_SECRET:-$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')}"

pids=()
if [ -z "${NATS_URL:-}" ]; then
  command -v nats-server >/dev/null || { echo "three-nodes: nats-server is not installed (apt-get install nats-server), or set NATS_URL" >&2; exit 1; }
  nats_password="$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"
  # The password goes in a configuration file only this user can read, not on a command line others could list.
  nats_dir="$(mktemp -d)"
  chmod 700 "$nats_dir"
  printf 'listen: "127.0.0.1:4229"\nauthorization { user: "tabletop", password: "%s" }\n' "$nats_password" >"$nats_dir/nats.conf"
  nats-server -c "$nats_dir/nats.conf" &
  pids+=("$!")
  NATS_URL="nats://tabletop:$nats_password@127.0.0.1:4229"
  for _ in $(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/4229) 2>/dev/null && break; sleep 0.1; done
fi
stop() {
  trap - EXIT INT TERM
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait
  rm -rf "${nats_dir:-}"
}
trap stop EXIT INT TERM

for i in 1 2 3; do
  # Every client reaches a node from HAProxy's address: the nodes trust it to name the client in
  # X-Forwarded-For, which the per-address limits then count.
  BIND="127.0.0.1:808$i" DATABASE_URL="$database_url" CLUSTER=true NODE_ID="node-$i" \
    NATS_URL="$NATS_URL" TRUSTED_PROXIES=127.0.0.1 "$server" &
  pids+=("$!")
done
BALANCER_BIND=127.0.0.1:8080 STATS_BIND=127.0.0.1:8404 \
  NODE1_ADDR=127.0.0.1:8081 NODE2_ADDR=127.0.0.1:8082 NODE3_ADDR=127.0.0.1:8083 \
  haproxy -db -f deploy/haproxy.cfg &
pids+=("$!")
echo "three-nodes: serving on http://127.0.0.1:8080 (Ctrl-C stops)" >&2
wait -n
