#!/usr/bin/env bash
# Ensures a 3-master Redis Cluster (no replicas) on 127.0.0.1:7101-7103.
#   scripts/redis-cluster.sh        -> create/repair (no-op when already healthy)
#   scripts/redis-cluster.sh stop   -> shut the three nodes down
set -euo pipefail

PORTS=(7101 7102 7103)
BASE_DIR=/tmp/onlyonce-redis-cluster
HOST=127.0.0.1
NODE_WAIT_SECS=15
CLUSTER_WAIT_SECS=30

log() { echo "[redis-cluster] $*"; }
die() { echo "[redis-cluster] ERROR: $*" >&2; exit 1; }

command -v redis-server >/dev/null 2>&1 || die "redis-server not installed (run scripts/services.sh)"
command -v redis-cli >/dev/null 2>&1 || die "redis-cli not installed (run scripts/services.sh)"

# Serialise concurrent invocations (several engineers / CI jobs on one box).
# redis-server is started with fd 9 (and services.sh's fd 8) closed, otherwise
# the daemons would inherit the lock and hold it forever.
mkdir -p "$BASE_DIR"
if command -v flock >/dev/null 2>&1; then
  exec 9>"$BASE_DIR.lock"
  flock -w 120 9 || die "could not acquire lock $BASE_DIR.lock"
fi

rcli() { redis-cli -h "$HOST" "$@"; }

node_up() { [ "$(rcli -p "$1" ping 2>/dev/null || true)" = "PONG" ]; }

cluster_info() { rcli -p "$1" cluster info 2>/dev/null | tr -d '\r' || true; }

node_cluster_ok() {
  local info
  info="$(cluster_info "$1")"
  grep -qx 'cluster_state:ok' <<<"$info" &&
    grep -qx 'cluster_known_nodes:3' <<<"$info" &&
    grep -qx 'cluster_slots_assigned:16384' <<<"$info"
}

cluster_healthy() {
  local p
  for p in "${PORTS[@]}"; do
    node_up "$p" || return 1
  done
  node_cluster_ok "${PORTS[0]}"
}

all_nodes_ok() {
  local p
  for p in "${PORTS[@]}"; do
    node_cluster_ok "$p" || return 1
  done
}

stop_nodes() {
  local p i
  for p in "${PORTS[@]}"; do
    if node_up "$p"; then
      log "shutting down node $p"
      rcli -p "$p" shutdown nosave >/dev/null 2>&1 || true
    fi
  done
  for p in "${PORTS[@]}"; do
    for ((i = 0; i < NODE_WAIT_SECS * 2; i++)); do
      node_up "$p" || break
      sleep 0.5
    done
    node_up "$p" && die "node $p did not shut down"
  done
  return 0
}

start_nodes() {
  local p d i
  for p in "${PORTS[@]}"; do
    d="$BASE_DIR/$p"
    # only ever wipe our own data dirs
    rm -rf -- "$d"
    mkdir -p "$d"
    log "starting node $p (dir $d)"
    redis-server \
      --port "$p" \
      --bind "$HOST" \
      --protected-mode no \
      --daemonize yes \
      --cluster-enabled yes \
      --cluster-config-file nodes.conf \
      --cluster-node-timeout 5000 \
      --save "" \
      --appendonly no \
      --dir "$d" \
      --pidfile "$d/redis.pid" \
      --logfile "$d/redis.log" \
      8>&- 9>&- \
      || die "redis-server failed to start on port $p (see $d/redis.log)"
  done
  for p in "${PORTS[@]}"; do
    for ((i = 0; i < NODE_WAIT_SECS * 2; i++)); do
      node_up "$p" && break
      sleep 0.5
    done
    node_up "$p" || die "node $p did not answer PING within ${NODE_WAIT_SECS}s (see $BASE_DIR/$p/redis.log; port in use?)"
  done
}

create_cluster() {
  local args=() p i
  for p in "${PORTS[@]}"; do args+=("$HOST:$p"); done
  log "creating cluster ${args[*]}"
  redis-cli --cluster create "${args[@]}" --cluster-replicas 0 --cluster-yes \
    || die "redis-cli --cluster create failed"
  for ((i = 0; i < CLUSTER_WAIT_SECS * 2; i++)); do
    if all_nodes_ok; then
      log "cluster_state:ok on all nodes"
      return 0
    fi
    sleep 0.5
  done
  for p in "${PORTS[@]}"; do
    echo "--- cluster info $p" >&2
    cluster_info "$p" >&2
  done
  die "cluster did not reach cluster_state:ok on all nodes within ${CLUSTER_WAIT_SECS}s"
}

case "${1:-start}" in
  stop)
    stop_nodes
    log "stopped"
    ;;
  start | "")
    if cluster_healthy; then
      log "already healthy on ports ${PORTS[*]} - nothing to do"
      exit 0
    fi
    log "cluster missing or unhealthy - (re)creating"
    stop_nodes
    start_nodes
    create_cluster
    ;;
  *)
    die "usage: $0 [start|stop]"
    ;;
esac
