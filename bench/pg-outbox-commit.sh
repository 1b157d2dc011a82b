#!/usr/bin/env bash
# What the outbox costs PostgreSQL's commits alone, no JVM: pgbench runs the bench's business
# transaction (one order row), the same with the outbox row JdbcOutbox.record inserts, and the same
# with PostgresWakeUp.notifyRelays's NOTIFY, in interleaved rounds on a scratch database, and
# prints the medians and `figure` lines (see docs/benchmarks.md):
#   bench/pg-outbox-commit.sh [--clients=4] [--seconds=6] [--rounds=3]
# Needs pgbench, psql, createdb/dropdb and PostgreSQL at 127.0.0.1:5432 (user postgres, trust auth).
set -euo pipefail
cd "$(dirname "$0")/.."
clients=4; seconds=6; rounds=3
for arg in "$@"; do
  case "$arg" in
    --clients=*) clients="${arg#*=}" ;;
    --seconds=*) seconds="${arg#*=}" ;;
    --rounds=*) rounds="${arg#*=}" ;;
    *) echo "unknown argument $arg" >&2; exit 2 ;;
  esac
done
db="onlyonce_bench_pg_commit_$$"
pg=(-h 127.0.0.1 -U postgres)
createdb "${pg[@]}" "$db"
trap 'dropdb "${pg[@]}" --if-exists "$db"' EXIT
psql "${pg[@]}" -q -v ON_ERROR_STOP=1 "$db" \
  -c "CREATE TABLE bench_orders (order_id varchar(64) PRIMARY KEY, item varchar(64), quantity int)" \
  -f onlyonce-messaging/src/main/resources/db/onlyonce-messaging/postgresql/V1__onlyonce_messaging.sql \
  -f onlyonce-messaging/src/main/resources/db/onlyonce-messaging/postgresql/V2__onlyonce_messaging_lease.sql
declare -A rates
scripts=(business business-outbox business-outbox-notify)
for ((round = 1; round <= rounds; round++)); do
  line="round $round:"
  order=("${scripts[@]}")
  if ((round % 2 == 0)); then order=(business-outbox-notify business-outbox business); fi
  for script in "${order[@]}"; do
    tps=$(pgbench "${pg[@]}" -n -c "$clients" -j "$clients" -T "$seconds" -f "bench/pg/$script.sql" "$db" 2>&1 \
      | sed -n 's/^tps = \([0-9.]*\).*/\1/p')
    rates[$script]+="$tps "
    line+=" $script $(printf '%.0f' "$tps")/s"
  done
  echo "$line"
done
median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
b=$(median "${rates[business]}"); o=$(median "${rates[business-outbox]}"); n=$(median "${rates[business-outbox-notify]}")
echo
echo "medians of $rounds rounds, $clients clients, ${seconds} s each, commits/s: business $b, + outbox row $o, + NOTIFY $n"
awk -v b="$b" -v o="$o" -v n="$n" 'BEGIN {
  printf "figure pg_business_commits_per_s %.0f\n", b
  printf "figure pg_commits_with_outbox_over_without %.2f\n", o / b
  printf "figure pg_commits_with_notify_over_outbox %.2f\n", n / o }'
