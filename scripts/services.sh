#!/usr/bin/env bash
# Ensures the local services the test-suite needs are installed and running:
#   Redis 6379, PostgreSQL 5432, MariaDB 3306, RabbitMQ 5672 (skipped with
#   ONLYONCE_NEED_RABBIT=0), Kafka 9092 (a single-node KRaft broker assembled from Maven Central by
#   scripts/kafka/kafka.sh; skipped with ONLYONCE_NEED_KAFKA=0), then the 3-node Redis Cluster
#   (scripts/redis-cluster.sh).
# Idempotent: anything that already answers is left untouched.
#   scripts/services.sh                   all of them
#   scripts/services.sh redis postgres    only those named (redis, postgres, mariadb, rabbitmq, kafka, cluster)
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WAIT_SECS="${ONLYONCE_SERVICE_WAIT_SECS:-60}"
ONLYONCE_NEED_RABBIT="${ONLYONCE_NEED_RABBIT:-1}"
ONLYONCE_NEED_KAFKA="${ONLYONCE_NEED_KAFKA:-1}"
# The tests log in to PostgreSQL as postgres and to MariaDB as root, without a password, over
# 127.0.0.1. A server this script installs itself is set up that way. A server that was already
# there is left as it is unless ONLYONCE_ALLOW_AUTH_CHANGES=1: then trust rules for loopback are
# prepended to pg_hba.conf (a backup beside it) and MariaDB's root may log in over TCP without a
# password. Without it, the script stops and says what the tests need.
ONLYONCE_ALLOW_AUTH_CHANGES="${ONLYONCE_ALLOW_AUTH_CHANGES:-0}"
PG_INSTALLED_HERE=0
MARIADB_INSTALLED_HERE=0

log() { echo "[services] $*"; }
warn() { echo "[services] WARNING: $*" >&2; }
die() { echo "[services] ERROR: $*" >&2; exit 1; }

# Serialise concurrent invocations. Every command that may leave a daemon
# behind is run through `detach_lock` so the daemon does not inherit fd 8 and
# hold the lock forever.
detach_lock() { "$@" 8>&-; }
if command -v flock >/dev/null 2>&1; then
  exec 8>/tmp/onlyonce-services.lock
  flock -w 300 8 || die "could not acquire /tmp/onlyonce-services.lock"
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

APT_UPDATED=0
apt_install() {
  command -v apt-get >/dev/null 2>&1 || die "apt-get not available; please install: $*"
  if [ "$APT_UPDATED" -eq 0 ]; then
    log "apt-get update"
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq || die "apt-get update failed"
    APT_UPDATED=1
  fi
  log "apt-get install $*"
  detach_lock $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" ||
    die "apt-get install $* failed"
}

# wait_for <name> <seconds> <check-cmd...>
wait_for() {
  local name="$1" secs="$2" i
  shift 2
  for ((i = 0; i < secs; i++)); do
    if "$@" >/dev/null 2>&1; then
      log "$name is up"
      return 0
    fi
    sleep 1
  done
  return 1
}

tcp_open() { timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null; }

# ---------------------------------------------------------------- Redis 6379
redis_up() {
  command -v redis-cli >/dev/null 2>&1 &&
    [ "$(timeout 5 redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null || true)" = "PONG" ]
}

ensure_redis() {
  if redis_up; then
    log "redis 6379: already running"
    return 0
  fi
  if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1; then
    apt_install redis-server
  fi
  if ! redis_up; then
    log "redis 6379: starting"
    mkdir -p /var/lib/redis /var/log/redis
    detach_lock redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
      --dir /var/lib/redis --logfile /var/log/redis/ci.log
  fi
  wait_for "redis 6379" "$WAIT_SECS" redis_up ||
    die "redis did not answer on 127.0.0.1:6379 within ${WAIT_SECS}s (see /var/log/redis/ci.log)"
}

# ------------------------------------------------------------ PostgreSQL 5432
pg_up() {
  command -v pg_isready >/dev/null 2>&1 && pg_isready -q -h 127.0.0.1 -p 5432 -t 2
}

pg_version() {
  { ls /etc/postgresql 2>/dev/null || true; } | sort -V | tail -n 1
}

pg_login_ok() {
  PGCONNECT_TIMEOUT=5 psql -w -h 127.0.0.1 -p 5432 -U postgres -d postgres -tAc 'select 1' >/dev/null 2>&1
}

ensure_postgres() {
  if pg_up; then
    log "postgresql 5432: already running"
  else
    if ! command -v pg_ctlcluster >/dev/null 2>&1 || [ -z "$(pg_version)" ]; then
      apt_install postgresql
      PG_INSTALLED_HERE=1
    fi
    local ver
    ver="$(pg_version)"
    if [ -z "$ver" ] || [ ! -d "/etc/postgresql/$ver/main" ]; then
      # package present but no cluster: create the default one
      ver="${ver:-$({ ls /usr/lib/postgresql 2>/dev/null || true; } | sort -V | tail -n 1)}"
      [ -n "$ver" ] || die "no PostgreSQL server version found under /usr/lib/postgresql"
      log "postgresql: creating cluster $ver/main"
      detach_lock pg_createcluster "$ver" main
      PG_INSTALLED_HERE=1
    fi
    if ! pg_up; then
      log "postgresql $ver/main: starting"
      detach_lock pg_ctlcluster --skip-systemctl-redirect "$ver" main start ||
        warn "pg_ctlcluster start returned non-zero; waiting anyway"
    fi
    wait_for "postgresql 5432" "$WAIT_SECS" pg_up ||
      die "postgresql did not answer on 127.0.0.1:5432 within ${WAIT_SECS}s (see /var/log/postgresql/)"
  fi

  if ! pg_login_ok; then
    # Fresh Debian install: host connections use scram-sha-256. Tests connect
    # as postgres without password, so prepend trust rules for loopback.
    local ver hba
    ver="$(pg_version)"
    hba="/etc/postgresql/$ver/main/pg_hba.conf"
    [ -f "$hba" ] || die "cannot log in as postgres@127.0.0.1 and $hba not found"
    if [ "$PG_INSTALLED_HERE" != "1" ] && [ "$ONLYONCE_ALLOW_AUTH_CHANGES" != "1" ]; then
      die "the tests log in to PostgreSQL on 127.0.0.1:5432 as postgres without a password, and this server asks for one.
  This script changes the authentication of a server it did not install only when asked:
  ONLYONCE_ALLOW_AUTH_CHANGES=1 scripts/test.sh   (prepends loopback 'trust' rules to $hba, keeping a backup),
  or allow it yourself (a 'host all all 127.0.0.1/32 trust' line in pg_hba.conf, then reload)."
    fi
    log "postgresql: enabling trust auth for 127.0.0.1/::1 in $hba"
    cp -p "$hba" "$hba.onlyonce.bak"
    {
      echo "# added by onlyonce scripts/services.sh: passwordless loopback for tests"
      echo "host    all             all             127.0.0.1/32            trust"
      echo "host    all             all             ::1/128                 trust"
      cat "$hba.onlyonce.bak"
    } >"$hba"
    detach_lock pg_ctlcluster --skip-systemctl-redirect "$ver" main reload
    local i
    for ((i = 0; i < 10; i++)); do
      pg_login_ok && break
      sleep 1
    done
    pg_login_ok || die "still cannot connect as postgres (no password) to 127.0.0.1:5432 after editing $hba"
  fi

  if [ "$(PGCONNECT_TIMEOUT=5 psql -w -h 127.0.0.1 -U postgres -d postgres -tAc \
    "select 1 from pg_database where datname='test'")" != "1" ]; then
    log "postgresql: creating database test"
    psql -w -h 127.0.0.1 -U postgres -d postgres -v ON_ERROR_STOP=1 -qc 'CREATE DATABASE test'
  fi
  log "postgresql: ok (trust login as postgres, database test present)"
}

# --------------------------------------------------------------- MariaDB 3306
mysql_admin_bin() {
  if command -v mariadb-admin >/dev/null 2>&1; then echo mariadb-admin
  elif command -v mysqladmin >/dev/null 2>&1; then echo mysqladmin
  else return 1; fi
}

mysql_client_bin() {
  if command -v mariadb >/dev/null 2>&1; then echo mariadb
  elif command -v mysql >/dev/null 2>&1; then echo mysql
  else return 1; fi
}

# "ping" succeeds even on "Access denied": it only tells us the server answers.
mariadb_up() {
  local admin
  admin="$(mysql_admin_bin)" || return 1
  "$admin" --connect-timeout=2 ping -h127.0.0.1 -P3306 -uroot >/dev/null 2>&1
}

mariadb_tcp_login_ok() {
  local cli
  cli="$(mysql_client_bin)" || return 1
  "$cli" --connect-timeout=5 -h127.0.0.1 -P3306 -uroot -e 'select 1' >/dev/null 2>&1
}

ensure_mariadb() {
  if mariadb_up; then
    log "mariadb 3306: already running"
  else
    if [ ! -x /usr/sbin/mariadbd ] || ! mysql_admin_bin >/dev/null || ! mysql_client_bin >/dev/null; then
      apt_install mariadb-server mariadb-client
      MARIADB_INSTALLED_HERE=1
    fi
    if ! mariadb_up; then
      install -d -o mysql -g mysql -m 0755 /run/mysqld
      if [ ! -d /var/lib/mysql/mysql ]; then
        log "mariadb: initialising data dir /var/lib/mysql"
        MARIADB_INSTALLED_HERE=1
        mariadb-install-db --user=mysql --datadir=/var/lib/mysql >/dev/null
      fi
      log "mariadb 3306: starting"
      # --user=mysql: stock Debian 50-server.cnf leaves "user" commented out and
      # mariadbd refuses to run as root without it.
      detach_lock start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd -- --user=mysql
    fi
    wait_for "mariadb 3306" "$WAIT_SECS" mariadb_up ||
      die "mariadb did not answer on 127.0.0.1:3306 within ${WAIT_SECS}s (see /var/log/mysql/)"
  fi

  local cli
  cli="$(mysql_client_bin)" || die "no mariadb/mysql client binary"
  if ! mariadb_tcp_login_ok; then
    # Debian: root@localhost authenticates via unix_socket only. Allow an empty
    # password over TCP too (keeping unix_socket), for localhost and, in case
    # skip-name-resolve is set, for 127.0.0.1 / ::1.
    if [ "$MARIADB_INSTALLED_HERE" != "1" ] && [ "$ONLYONCE_ALLOW_AUTH_CHANGES" != "1" ]; then
      die "the tests log in to MariaDB on 127.0.0.1:3306 as root without a password, and this server refuses that.
  This script changes the authentication of a server it did not install only when asked:
  ONLYONCE_ALLOW_AUTH_CHANGES=1 scripts/test.sh   (lets root@127.0.0.1 and root@localhost log in over TCP
  without a password, keeping unix_socket), or allow it yourself."
    fi
    log "mariadb: enabling passwordless root login over TCP"
    "$cli" -uroot <<'SQL' || die "could not fix root auth via unix socket (run as root?)"
ALTER USER 'root'@'localhost' IDENTIFIED VIA unix_socket OR mysql_native_password USING PASSWORD('');
CREATE USER IF NOT EXISTS 'root'@'127.0.0.1' IDENTIFIED VIA mysql_native_password USING PASSWORD('');
GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;
CREATE USER IF NOT EXISTS 'root'@'::1' IDENTIFIED VIA mysql_native_password USING PASSWORD('');
GRANT ALL PRIVILEGES ON *.* TO 'root'@'::1' WITH GRANT OPTION;
FLUSH PRIVILEGES;
SQL
    mariadb_tcp_login_ok || die "still cannot connect as root (no password) to 127.0.0.1:3306"
  fi
  "$cli" --connect-timeout=5 -h127.0.0.1 -P3306 -uroot -e 'CREATE DATABASE IF NOT EXISTS test'
  log "mariadb: ok (root login over TCP, database test present)"
}

# -------------------------------------------------------------- RabbitMQ 5672
rabbit_up() { tcp_open 5672; }

ensure_rabbitmq() {
  if rabbit_up; then
    log "rabbitmq 5672: already running"
    return 0
  fi
  if ! command -v rabbitmq-server >/dev/null 2>&1; then
    apt_install rabbitmq-server
  fi
  if ! rabbit_up; then
    log "rabbitmq 5672: starting"
    detach_lock rabbitmq-server -detached || warn "rabbitmq-server -detached returned non-zero"
  fi
  # RabbitMQ boots slowly; give it more time than the others.
  wait_for "rabbitmq 5672" "$((WAIT_SECS * 2))" rabbit_up ||
    die "rabbitmq did not answer on 127.0.0.1:5672 within $((WAIT_SECS * 2))s (see /var/log/rabbitmq/)"
  # the node answers on 5672 before its applications are up; tests use rabbitmqctl (vhosts)
  local i
  for ((i = 0; i < WAIT_SECS; i++)); do
    rabbitmqctl -q await_startup >/dev/null 2>&1 && break
    sleep 1
  done
  log "rabbitmq: ok"
}

# ----------------------------------------------------------------- Kafka 9092
ensure_kafka() {
  if tcp_open 9092; then
    log "kafka 9092: already running"
    return 0
  fi
  detach_lock bash "$SCRIPT_DIR/kafka/kafka.sh" start || die "kafka did not start (scripts/kafka/kafka.sh)"
}

# ----------------------------------------------------------------------- main
if [ "$#" -gt 0 ]; then
  for service in "$@"; do
    case "$service" in
      redis) ensure_redis ;;
      postgres) ensure_postgres ;;
      mariadb) ensure_mariadb ;;
      rabbitmq) ensure_rabbitmq ;;
      kafka) ensure_kafka ;;
      cluster) detach_lock bash "$SCRIPT_DIR/redis-cluster.sh" ;;
      *) die "unknown service '$service' (redis, postgres, mariadb, rabbitmq, kafka, cluster)" ;;
    esac
  done
  log "ready: $*"
  exit 0
fi

ensure_redis
ensure_postgres
ensure_mariadb
if [ "$ONLYONCE_NEED_RABBIT" = "1" ]; then
  ensure_rabbitmq
else
  log "rabbitmq: skipped (ONLYONCE_NEED_RABBIT=0)"
fi
if [ "$ONLYONCE_NEED_KAFKA" = "1" ]; then
  ensure_kafka
else
  log "kafka: skipped (ONLYONCE_NEED_KAFKA=0)"
fi

detach_lock bash "$SCRIPT_DIR/redis-cluster.sh"
log "all services ready"
