#!/usr/bin/env bash
# Runs the reference service as it scales past one process: two seckill instances sharing Redis and
# PostgreSQL, behind the seckill gateway (Spring Cloud Gateway with the RequestDedup window).
#
#   SECKILL_JWT_SECRET=... SECKILL_PAYMENT_SECRET=... ONLYONCE_TOKEN_SECRET=... scripts/run-cluster.sh
#
# The secrets are required (at least 32 bytes each, the same on every instance; the published demo
# values are refused): outside demo mode the service does not start without them. For a local try:
#   export SECKILL_JWT_SECRET=$(openssl rand -hex 32) SECKILL_PAYMENT_SECRET=$(openssl rand -hex 32) \
#          ONLYONCE_TOKEN_SECRET=$(openssl rand -hex 32)
#
# Environment (defaults in brackets):
#   GATEWAY_PORT [8080]            where clients connect: http://localhost:$GATEWAY_PORT/api/...
#   SECKILL_PORT_1, SECKILL_PORT_2 [8081, 8082]   the instances (loopback; reach them through the gateway)
#   GATEWAY_MANAGEMENT_PORT [8079] the gateway's Actuator, on 127.0.0.1 (requestdedup, metrics)
#   REDIS_HOST, REDIS_PORT [127.0.0.1, 6379]
#   PG_URL [jdbc:postgresql://127.0.0.1:5432/seckill], PG_USER [postgres], PG_PASSWORD []
#   ONLYONCE_REDIS_PREFIX [oo:seckill:]   the Redis key prefix of the OnlyOnce stores and the window
#   PASSWORD_LESS_LOGIN [false]   true opens POST /api/login (any user name, no password) on both
#                                 instances, for a local try only; closed, tokens come from your
#                                 identity provider (signed with SECKILL_JWT_SECRET)
#
# Starts whatever of the local Redis and PostgreSQL is missing (scripts/services.sh redis postgres,
# only when they are meant to be on this machine), creates the database if it does not exist,
# builds the jars when missing or older than a source, then the two instances (one after the other:
# the first migrates the schema) and the gateway. The instances run with their servlet de-dup
# window off (onlyonce.dedup.enabled=false): the gateway's is the one window. Logs under
# data/cluster/. Ctrl-C or SIGTERM stops all three. Once it says ready, scripts/demo.sh
# http://127.0.0.1:$GATEWAY_PORT walks through the API by the gateway (with the same SECKILL_PAYMENT_SECRET).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

log() { echo "[cluster] $*"; }
die() { echo "[cluster] ERROR: $*" >&2; exit 1; }

GATEWAY_PORT="${GATEWAY_PORT:-8080}"
SECKILL_PORT_1="${SECKILL_PORT_1:-8081}"
SECKILL_PORT_2="${SECKILL_PORT_2:-8082}"
GATEWAY_MANAGEMENT_PORT="${GATEWAY_MANAGEMENT_PORT:-8079}"
export REDIS_HOST="${REDIS_HOST:-127.0.0.1}" REDIS_PORT="${REDIS_PORT:-6379}"
export PG_URL="${PG_URL:-jdbc:postgresql://127.0.0.1:5432/seckill}" PG_USER="${PG_USER:-postgres}" PG_PASSWORD="${PG_PASSWORD:-}"
LOG_DIR="data/cluster"

for secret in SECKILL_JWT_SECRET SECKILL_PAYMENT_SECRET ONLYONCE_TOKEN_SECRET; do
  value="${!secret:-}"
  if [ "${#value}" -lt 32 ]; then
    die "$secret is not set or shorter than 32 bytes (see the head of this script: export $secret=\$(openssl rand -hex 32))"
  fi
done

# ------------------------------------------------------------------ servers
local_host() { case "$1" in 127.0.0.1|localhost|::1) return 0 ;; *) return 1 ;; esac; }
tcp_open() { timeout 2 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null; }
pg_hostport=$(sed -E 's#^jdbc:postgresql://([^/]+)/.*#\1#' <<<"$PG_URL")
pg_host="${pg_hostport%%:*}"; pg_port="${pg_hostport##*:}"; [ "$pg_port" = "$pg_hostport" ] && pg_port=5432
pg_db=$(sed -E 's#^jdbc:postgresql://[^/]+/([^?]+).*#\1#' <<<"$PG_URL")
missing=()
if ! tcp_open "$REDIS_HOST" "$REDIS_PORT"; then
  local_host "$REDIS_HOST" && [ "$REDIS_PORT" = 6379 ] || die "no Redis on $REDIS_HOST:$REDIS_PORT"
  missing+=(redis)
fi
if ! tcp_open "$pg_host" "$pg_port"; then
  local_host "$pg_host" && [ "$pg_port" = 5432 ] || die "no PostgreSQL on $pg_host:$pg_port"
  missing+=(postgres)
fi
if [ "${#missing[@]}" -gt 0 ]; then
  log "starting ${missing[*]}"
  scripts/services.sh "${missing[@]}"
fi
if command -v psql >/dev/null 2>&1; then
  if ! PGPASSWORD="$PG_PASSWORD" psql -h "$pg_host" -p "$pg_port" -U "$PG_USER" -d postgres -tAc \
      "SELECT 1 FROM pg_database WHERE datname = '$pg_db'" | grep -q 1; then
    log "creating database $pg_db"
    PGPASSWORD="$PG_PASSWORD" psql -h "$pg_host" -p "$pg_port" -U "$PG_USER" -d postgres -qc "CREATE DATABASE \"$pg_db\""
  fi
fi

# -------------------------------------------------------------------- build
jar_of() { ls "$1"/target/onlyonce-example-*.jar 2>/dev/null | grep -v '\.original$' | head -n 1 || true; }
stale() {
  local jar="$1"
  [ -z "$jar" ] && return 0
  [ -n "$(find . \( -path ./.git -o -path ./data -o -path ./bench -o -path ./docs -o -name target \) -prune \
    -o -type f \( -name pom.xml -o -path '*/src/main/*' \) -newer "$jar" -print -quit 2>/dev/null)" ]
}
if stale "$(jar_of examples/seckill)" || stale "$(jar_of examples/seckill-gateway)"; then
  log "building the service and the gateway (tests skipped)"
  mvn -B -q -ntp -pl examples/seckill,examples/seckill-gateway -am package -DskipTests
fi
service_jar=$(jar_of examples/seckill)
gateway_jar=$(jar_of examples/seckill-gateway)

# ------------------------------------------------------------------ run
mkdir -p "$LOG_DIR"
pids=()
stop_all() {
  trap - INT TERM EXIT
  log "stopping"
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  log "stopped"
}
trap 'stop_all; exit 130' INT
trap 'stop_all; exit 143' TERM
trap 'stop_all' EXIT

wait_healthy() {
  local name="$1" url="$2" pid="$3" i
  for ((i = 0; i < 180; i++)); do
    kill -0 "$pid" 2>/dev/null || die "$name exited; see $LOG_DIR/$name.log"
    if curl -fsS "$url" 2>/dev/null | grep -q UP; then
      log "$name is up"
      return 0
    fi
    sleep 1
  done
  die "$name did not come up within 180 s; see $LOG_DIR/$name.log"
}

# each instance its own node (0-1023) for its TSIDs: order numbers and the business-id service's ids
start_instance() {
  local name="$1" port="$2" node="$3"
  java -Xmx512m -Dtsidcreator.node="$node" -jar "$service_jar" --spring.profiles.active=postgres,redis --server.port="$port" \
    --server.address=127.0.0.1 --onlyonce.dedup.enabled=false --seckill.ids.node="$node" \
    --seckill.auth.password-less-login="${PASSWORD_LESS_LOGIN:-false}" >"$LOG_DIR/$name.log" 2>&1 &
  pids+=("$!")
  wait_healthy "$name" "http://127.0.0.1:$port/actuator/health" "$!"
}

start_instance seckill-1 "$SECKILL_PORT_1" 1
start_instance seckill-2 "$SECKILL_PORT_2" 2
SECKILL_INSTANCE_1="http://127.0.0.1:$SECKILL_PORT_1" SECKILL_INSTANCE_2="http://127.0.0.1:$SECKILL_PORT_2" \
  GATEWAY_PORT="$GATEWAY_PORT" GATEWAY_MANAGEMENT_PORT="$GATEWAY_MANAGEMENT_PORT" \
  java -Xmx256m -jar "$gateway_jar" >"$LOG_DIR/gateway.log" 2>&1 &
pids+=("$!")
wait_healthy gateway "http://127.0.0.1:$GATEWAY_MANAGEMENT_PORT/actuator/health" "$!"
log "ready: http://localhost:$GATEWAY_PORT/api/... (instances on $SECKILL_PORT_1 and $SECKILL_PORT_2; logs in $LOG_DIR/; Ctrl-C stops all)"

# stop everything as soon as one of them ends
wait -n "${pids[@]}" || true
log "a process ended; see $LOG_DIR/"
exit 1
