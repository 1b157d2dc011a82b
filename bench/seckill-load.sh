#!/usr/bin/env bash
# The flash-sale load bench: one run, every figure next to its baseline measured in it.
#
#   bench/seckill-load.sh [--seconds=15] [--warmup=90] [--connections=200] [--threads=2]
#                         [--sync-users=N] [--fast-users=N] [--only=sync|fast] [--jfr] [--pg-waits]
#                         [--min-warmup=120] [--max-warmup=300] [--shared-redis]
#                         [--service-arg=--some.property=value ...]
#
# Needs the packaged jars (mvn -B -ntp -DskipTests package), wrk, psql/createdb/dropdb (PostgreSQL on
# 127.0.0.1:5432, user postgres, trust auth) and redis-server/redis-cli: the services get a Redis server of
# the run's own on a free port (no persistence), so that Redis's CPU and command counts are the bench's
# alone (--shared-redis: the machine's on 127.0.0.1:6379 instead). Load comes from
# wrk, outside the service's JVM. Each service instance gets a fresh database of its own and its own
# Redis key prefixes, all removed at the end; random secrets are made for the run.
#
# A JVM on two cores needs one to two minutes of load before the JIT has compiled a request's path:
# GET /api/ping goes from about 900 req/s to 7,000 in 20 s, stays there for 15 s, and only reaches its
# steady 23,000-25,000 after about 90 s (C2 compiles the long filter chain in stages, competing for
# the two cores with the load). Figures taken earlier compare compilers, not code. So the minimal app
# and each service instance are first loaded with GET requests in 5 s rounds for at least
# --min-warmup seconds, and then until six rounds in a row were none more than 3 % faster than the best
# round before them (at most --max-warmup seconds; the rounds are logged); then the purchase path gets --warmup
# seconds of its own before the measured phase (rounded up to whole rounds), in 5 s rounds (logged) whose purchases are prepared like the
# measured ones: a purchase path is compiled later than GET /api/ping, and it too climbs for a minute or more.
# Each warm-up round's purchases are prepared just before it: as many as the previous round sold in 5 s,
# times 1.5 (the first round: 5,000), twice as many after a round that ran out (it says so, and its rate
# is then a lower bound). The measured phase gets its best round's rate times --seconds times 1.5
# purchases, unless --sync-users/--fast-users give their number.
#
# Besides requests per second, the measured phases record what each request cost: the service JVM's
# CPU time (utime + stime of /proc/<pid>/stat), redis-server's (INFO cpu: used_cpu_user + used_cpu_sys)
# and the scripts it ran (INFO commandstats: cmdstat_evalsha + cmdstat_eval calls; each redis.call inside
# a script counts under its own command, not here), divided by the requests answered. The CPU figures
# are still the machine's: keep it quiet while the bench runs.
#
# --jfr records each service's measured purchase phase (jcmd JFR.start, settings=profile) and prints its
# top frames (JFR's sampler slows this service under load a lot: use it to find where time goes, not
# for the figures); --pg-waits samples pg_stat_activity every 100 ms during it; --service-arg passes an
# argument to both service instances (e.g. to measure a setting before and after).
#
#  1. a bare Spring Boot webmvc app (bench/minimal-web): GET /ping
#  2. examples/seckill, seckill.fast-path.enabled=false (the synchronous path): GET /api/ping, then
#     purchases (201 + order row + optimistic-lock stock UPDATE in the request)
#  3. examples/seckill, seckill.fast-path.enabled=true and seckill.fast-path.consumers=0: GET /api/ping,
#     then purchases (202 + reservation, queued); then a second instance with consumers on (a worker)
#     drains the queue: the orders it writes per second are the fast path's drain rate
#
# Every purchase is a real one: a distinct user with a valid one-time token, prepared over HTTP before
# the measured phase (bench/seckill/Prepare.java) and sent once (bench/seckill/load.lua). The flash sale
# is the demo data's sale 1 with a stock that does not sell out, and the per-user limits are off
# (seckill.limits.enabled=false); the request window, the one-time tokens and the data layer stay on.
# Orders written per second are read from the orders of the measured phase's buyers once they are all written
# (their created_at, the service's clock when it built each order or batch): nothing polls the database while
# purchases are measured (while the worker drains, the wait for the last order counts them every 0.5 s). The
# synchronous path writes them in its measured phase, the fast path's worker while it drains the measured
# phase's reservations.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=15 warmup=90 min_warmup=120 max_warmup=300 connections=200 threads=2 sync_users=auto fast_users=auto only="" jfr=false pg_waits=false shared_redis=false
service_args=()
for arg in "$@"; do
  case "$arg" in
    --seconds=*) seconds="${arg#*=}" ;;
    --warmup=*) warmup="${arg#*=}" ;;
    --min-warmup=*) min_warmup="${arg#*=}" ;;
    --max-warmup=*) max_warmup="${arg#*=}" ;;
    --connections=*) connections="${arg#*=}" ;;
    --threads=*) threads="${arg#*=}" ;;
    --sync-users=*) sync_users="${arg#*=}" ;;
    --fast-users=*) fast_users="${arg#*=}" ;;
    --only=*) only="${arg#*=}" ;;
    --jfr) jfr=true ;;
    --pg-waits) pg_waits=true ;;
    --shared-redis) shared_redis=true ;;
    --service-arg=*) service_args+=("${arg#*=}") ;;
    *) echo "unknown argument: $arg" >&2; exit 2 ;;
  esac
done

jar=$(ls examples/seckill/target/onlyonce-example-seckill-*.jar 2>/dev/null | head -1 || true)
minimal=$(ls bench/minimal-web/target/onlyonce-bench-minimal-web-*.jar 2>/dev/null | head -1 || true)
if [[ -z "$jar" || -z "$minimal" ]]; then
  echo "build first: mvn -B -ntp -DskipTests package" >&2
  exit 2
fi
for tool in wrk psql createdb dropdb redis-cli redis-server curl jq openssl; do
  command -v "$tool" >/dev/null || { echo "$tool is required" >&2; exit 2; }
done

run="$(date -u +%Y%m%dT%H%M%S)-$$"
out="bench/target/seckill-load/$run"
mkdir -p "$out"
db="onlyonce_bench_seckill_$$"
oo_prefix="oo:bench-seckill-$$:"
fast_prefix="seckill:bench-$$:"
pg=(-h 127.0.0.1 -U postgres)
java_opts=(-Xms1g -Xmx1g)
activity=1 product=1
jwt_secret=$(openssl rand -hex 32)
pids=()

redis_port=6379
rcli() { redis-cli -p "$redis_port" "$@"; }

cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  dropdb "${pg[@]}" --if-exists "$db" 2>/dev/null || true
  if [[ -n "${redis_pid:-}" ]]; then
    kill "$redis_pid" 2>/dev/null || true
  else
    for prefix in "$oo_prefix" "$fast_prefix"; do
      rcli --scan --pattern "${prefix}*" | xargs -r -d '\n' -n 500 redis-cli -p "$redis_port" unlink >/dev/null || true
    done
  fi
}
trap cleanup EXIT

log() { printf '[%s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

free_port() {
  local port
  for port in $(seq "$1" $(($1 + 200))); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "$port"; return; fi
  done
  echo "no free port from $1" >&2; exit 1
}

wait_up() { # url pid
  local i
  for i in $(seq 1 240); do
    curl -fs -o /dev/null "$1" && return 0
    kill -0 "$2" 2>/dev/null || { echo "the process $2 died; see $out" >&2; exit 1; }
    sleep 0.5
  done
  echo "$1 did not answer within 120 s" >&2; exit 1
}

stop() { # pid
  kill "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

# wrk_run <name> <seconds> <url> [wrk args...]: prints the RESULT line's fields as "key=value ..."
wrk_run() {
  local name=$1 duration=$2 url=$3; shift 3
  wrk -t"$threads" -c"$connections" -d"${duration}s" --timeout 10s -s bench/seckill/load.lua "$url" "$@" \
    > "$out/wrk-$name.txt" 2>&1 || { cat "$out/wrk-$name.txt" >&2; exit 1; }
  local result
  result=$(grep '^RESULT ' "$out/wrk-$name.txt" | cut -d' ' -f2-)
  if [[ "$(field "$result" exhausted_threads)" != 0 && "$name" != *warmup* ]]; then
    echo "wrk-$name ran out of prepared purchases before its end: raise --sync-users/--fast-users" >&2; exit 1
  fi
  echo "$result"
}

field() { # "k=v k=v" key
  tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p"
}

orders() { psql "${pg[@]}" -d "$db" -Atqc 'SELECT count(*) FROM orders'; }

clock_ticks=$(getconf CLK_TCK)
# costs <pid>: "<JVM CPU µs> <redis-server CPU µs> <scripts run by Redis>" so far
costs() {
  local jvm redis scripts
  jvm=$(awk -v hz="$clock_ticks" '{ printf "%.0f", ($14 + $15) * 1000000 / hz }' "/proc/$1/stat")
  redis=$(rcli INFO cpu | tr -d '\r' | awk -F: '/^used_cpu_(user|sys):/ { s += $2 } END { printf "%.0f", s * 1000000 }')
  scripts=$(rcli INFO commandstats | tr -d '\r' | sed -n 's/^cmdstat_\(evalsha\|eval\):calls=\([0-9]*\).*/\2/p' |
    awk '{ s += $1 } END { print s + 0 }')
  echo "$jvm $redis $scripts"
}

# costed <pid> <wrk_run args...>: wrk_run's result plus jvm_us=, redis_us= and redis_scripts= spent while it ran
costed() {
  local pid=$1 before after result; shift
  before=$(costs "$pid")
  result=$(wrk_run "$@")
  after=$(costs "$pid")
  read -r j0 r0 s0 <<<"$before"
  read -r j1 r1 s1 <<<"$after"
  echo "$result jvm_us=$((j1 - j0)) redis_us=$((r1 - r0)) redis_scripts=$((s1 - s0))"
}

# per_request <result> <field> [scale]: the field divided by the requests answered 2xx
per_request() {
  awk -v v="$(field "$1" "$2")" -v ok="$(field "$1" ok)" -v k="${3:-1}" 'BEGIN { if (ok > 0 && v != "") printf "%.2f", v * k / ok; else printf "-" }'
}

# wait_orders <answered>: until the orders table holds at least the purchases answered 2xx and then
# stays unchanged for 2 s (requests still in flight when wrk stops are completed by the service too),
# or it stopped growing for 10 s; polls every 0.5 s
wait_orders() {
  local last=-1 same=0 count
  for _ in $(seq 1 600); do
    count=$(orders)
    if [[ "$count" == "$last" ]]; then same=$((same + 1)); else same=0; last=$count; fi
    [[ "$count" -ge "$1" && $same -ge 4 ]] && return 0
    if [[ $same -ge 20 ]]; then echo "orders stopped at $count, $1 purchases were answered 2xx" >&2; return 0; fi
    sleep 0.5
  done
  echo "gave up waiting for $1 orders after 300 s: $(orders) written; the drain figure is truncated" >&2
}

# written_rate <username prefix>: "<orders> <seconds> <orders/s>" for the orders of the users whose name
# starts with the prefix, from the first order's created_at to the last's; the orders built at the first
# instant (the first batch of a worker) are not counted, as they were written after it
written_rate() {
  local rate
  rate=$(psql "${pg[@]}" -d "$db" -Atq -F ' ' -c "WITH o AS (SELECT o.created_at FROM orders o JOIN users u ON u.id = o.user_id
      WHERE u.username LIKE '$1%'), span AS (SELECT min(created_at) AS t0, max(created_at) AS t1 FROM o)
    SELECT count(*) FILTER (WHERE o.created_at > span.t0), to_char((span.t1 - span.t0) / 1000.0, 'FM9999990.000'),
      to_char(CASE WHEN span.t1 > span.t0 THEN count(*) FILTER (WHERE o.created_at > span.t0) * 1000.0 / (span.t1 - span.t0)
        ELSE 0 END, 'FM9999999990.0')
    FROM o, span GROUP BY span.t0, span.t1")
  echo "${rate:-0 0.000 0.0}" # no order of theirs written
}

sample_pg_waits() { # file
  while :; do
    psql "${pg[@]}" -Atqc "SELECT state || ' ' || coalesce(wait_event_type || ':' || wait_event, 'CPU')
      FROM pg_stat_activity WHERE datname = '$db' AND pid <> pg_backend_pid()"
    echo "--"
    sleep 0.1
  done > "$1"
}

summarise_pg_waits() { # file
  local samples
  samples=$(grep -c '^--$' "$1" || true)
  [[ "$samples" -gt 0 ]] || return 0
  grep -v '^--$' "$1" | sort | uniq -c | sort -rn |
    awk -v n="$samples" '{ c = $1; $1 = ""; printf "    %6.2f backends%s\n", c / n, $0 }' | awk "NR <= 8"
}

summarise_jfr() { # file
  local events="$1.json"
  jfr print --json --stack-depth 64 --events jdk.ExecutionSample "$1" > "$events"
  echo "    execution samples: $(jq '.recording.events | length' "$events")"
  echo "    top frames (self):"
  jq -r '.recording.events[].values.stackTrace.frames[0].method | "\(.type.name | gsub("/"; ".")).\(.name)"' "$events" |
    sort | uniq -c | sort -rn | awk "NR <= 15" | sed 's/^/      /'
  echo "    samples by their first frame outside the JDK (own time), by library:"
  jq -r '.recording.events[].values.stackTrace.frames | map(.method.type.name | gsub("/"; "."))
      | map(select(test("^(java|jdk|sun)\\.") | not)) | .[0] // "(JDK only)"' "$events" |
    awk -F. '{ print (NF > 2 ? $1 "." $2 "." $3 : $0) }' | sort | uniq -c | sort -rn | awk "NR <= 12" | sed 's/^/      /'
  echo "    methods on the stack (share of samples), io.onlyonce / Spring / Lettuce / Micrometer / JDBC:"
  jq -r '.recording.events[].values.stackTrace.frames | map(.method | "\(.type.name | gsub("/"; ".") | sub("\\$\\$Lambda.*"; "$$Lambda")).\(.name)") | unique | .[]' "$events" |
    grep -E '^(io\.onlyonce|org\.springframework|io\.lettuce|io\.micrometer|org\.postgresql|com\.zaxxer|ch\.qos|org\.apache\.catalina)' |
    sort | uniq -c | sort -rn | awk "NR <= 25" | sed 's/^/      /'
}

start_seckill() { # name fast-path-enabled port [extra service args...]: a fresh database and fresh Redis keys
  local name=$1 fast=$2 port=$3; shift 3
  dropdb "${pg[@]}" --if-exists "$db"
  createdb "${pg[@]}" "$db"
  for prefix in "$oo_prefix" "$fast_prefix"; do
    rcli --scan --pattern "${prefix}*" | xargs -r -d '\n' -n 500 redis-cli -p "$redis_port" unlink >/dev/null
  done
  payment_secret=$(openssl rand -hex 32) token_secret=$(openssl rand -hex 32)
  join_seckill "$name" "$fast" "$port" "$@"
}

join_seckill() { # name fast-path-enabled port [extra service args...]: one more instance on the same data
  local name=$1 fast=$2 port=$3; shift 3
  SECKILL_JWT_SECRET="$jwt_secret" SECKILL_PAYMENT_SECRET="$payment_secret" \
    ONLYONCE_TOKEN_SECRET="$token_secret" \
    PG_URL="jdbc:postgresql://127.0.0.1:5432/$db" ONLYONCE_REDIS_PREFIX="$oo_prefix" \
    SECKILL_FAST_PATH_PREFIX="$fast_prefix" REDIS_PORT="$redis_port" \
    java "${java_opts[@]}" -jar "$jar" --spring.profiles.active=postgres,redis --server.port="$port" \
      --seckill.fast-path.enabled="$fast" --seckill.limits.enabled=false --seckill.auth.password-less-login=true \
      --seckill.demo-data.flash-sale-stock=100000000 "$@" ${service_args[@]+"${service_args[@]}"} > "$out/$name.log" 2>&1 &
  service_pid=$!
  pids+=("$service_pid")
  wait_up "http://127.0.0.1:$port/actuator/health" "$service_pid"
}

add_users() { # name-prefix count file: inserts the users, writes "<id> <username>" lines
  psql "${pg[@]}" -d "$db" -qc "INSERT INTO users (username, created_at)
    SELECT '$1' || g, (extract(epoch FROM now()) * 1000)::bigint FROM generate_series(1, $2) g"
  psql "${pg[@]}" -d "$db" -Atc "SELECT id || ' ' || username FROM users WHERE username LIKE '$1%'" > "$3"
}

login() { # base username
  curl -fs -X POST "$1/api/login" -H 'Content-Type: application/json' -d "{\"username\":\"$2\"}" | jq -r .accessToken
}

# warm_until_steady <name> <url> [wrk args...]: 5 s rounds for at least --min-warmup seconds, then until
# six rounds in a row (30 s) were none more than 3 % faster than the best round before them, or
# --max-warmup seconds have passed
warm_until_steady() {
  local name=$1 url=$2 round=0 elapsed=0 best=0 flat=0 now result; shift 2
  while [[ $elapsed -lt $max_warmup ]]; do
    round=$((round + 1))
    result=$(wrk_run "$name-warmup-$round" 5 "$url" "$@")
    now=$(rps "$result")
    elapsed=$((elapsed + 5))
    log "$name: warm-up round $round: $now req/s"
    if awk -v a="$now" -v b="$best" 'BEGIN { exit !(a <= b * 1.03) }'; then flat=$((flat + 1)); else flat=0; fi
    if [[ $elapsed -ge $min_warmup && $flat -ge 6 ]]; then
      break
    fi
    best=$(awk -v a="$now" -v b="$best" 'BEGIN { print (a > b ? a : b) }')
  done
  echo "$elapsed"
}

# measure_ping <name> <base>: GET /api/ping with one user's access token
measure_ping() {
  local jwt
  jwt=$(login "$2" "bench-ping")
  warm_until_steady "$1-ping" "$2/api/ping" -H "Authorization: Bearer $jwt" > "$out/$1.warmup"
  costed "$service_pid" "$1-ping" "$seconds" "$2/api/ping" -H "Authorization: Bearer $jwt"
}

# measure_purchases <name> <base> <users>: prints "<wrk result> orders=<n> answered_2xx=<n> drain=<orders>,<seconds>,<orders/s>"
# The synchronous path writes its orders in the requests: its rate is the measured phase's. The fast
# path's instance runs without consumers (seckill.fast-path.consumers=0), so that warm-up and measured
# purchases wait in the queue; then a worker instance (the same jar, consumers on) is started and
# drains it: first the warm-up's reservations (its warm-up), then the measured phase's, whose
# orders/s are the drain rate.
measure_purchases() {
  local name=$1 base=$2 users=$3 round_users=5000 rounds warm_ok=0 round result rate best=0 chunk measured expected drain prepared=0
  # the warm-up's purchases in 5 s rounds, each with prepared purchases of its own (a pair is sent once),
  # sized from the round before it
  rounds=$(( (warmup + 4) / 5 ))
  for round in $(seq 1 "$rounds"); do
    chunk="$out/$name-warm-$round"
    add_users "w$$-$round-" "$round_users" "$chunk.users"
    java bench/seckill/Prepare.java "$base" "$activity" "$jwt_secret" onlyonce-seckill "$chunk.users" 64 "$chunk.pairs" >&2
    prepared=$((prepared + round_users))
    result=$(wrk_run "$name-purchase-warmup-$round" 5 "$base" -- "$chunk.pairs" "$threads" "$activity" "$product")
    warm_ok=$((warm_ok + $(field "$result" ok)))
    rate=$(rps "$result")
    best=$(awk -v a="$rate" -v b="$best" 'BEGIN { print (a > b ? a : b) }')
    if [[ "$(field "$result" exhausted_threads)" != 0 ]]; then
      log "$name: warm-up purchases, round $round of $rounds: at least $rate purchases/s (its $round_users purchases ran out)"
      round_users=$((round_users * 2))
    else
      if [[ "$(field "$result" status_errors)" != 0 || "$(field "$result" socket_errors)" != 0 ]]; then
        rate="$rate, $(field "$result" status_errors) refused and $(field "$result" socket_errors) socket errors (rate of the accepted)"
      fi
      log "$name: warm-up purchases, round $round of $rounds: $rate purchases/s"
      round_users=$(awk -v r="$(rps "$result")" -v u="$round_users" 'BEGIN { n = int(r * 5 * 1.5) + 1; print (n > u / 2 ? n : int(u / 2) + 1) }')
    fi
  done
  if [[ $users == auto ]]; then
    users=$(awk -v r="$best" -v s="$seconds" 'BEGIN { print int(r * s * 1.5) + 1000 }')
    log "$name: the measured phase gets $users purchases (best warm-up round $best purchases/s x $seconds s x 1.5)"
  fi
  if [[ $((prepared + users)) -gt 500000 ]]; then
    log "warning: $((prepared + users)) users; the service remembers 500,000 signed-in users, so the measured buyers may be looked up in the database"
  fi
  log "$name: preparing $users users (rows in users) and their one-time tokens (over HTTP)"
  add_users "m$$-" "$users" "$out/$name.users"
  java bench/seckill/Prepare.java "$base" "$activity" "$jwt_secret" onlyonce-seckill "$out/$name.users" 64 \
    "$out/$name.pairs" >&2
  if [[ $name == sync ]]; then wait_orders "$warm_ok"; fi
  log "$name: purchases ($seconds s, $connections connections)"
  if $pg_waits; then sample_pg_waits "$out/$name-pg-waits.txt" & pg_sampler=$!; pids+=("$pg_sampler"); fi
  if $jfr; then
    jcmd "$service_pid" JFR.start name=bench settings=profile duration="${seconds}s" filename="$PWD/$out/$name.jfr" >/dev/null
  fi
  measured=$(costed "$service_pid" "$name-purchase" "$seconds" "$base" -- "$out/$name.pairs" "$threads" "$activity" "$product")
  if $pg_waits; then stop "$pg_sampler"; fi
  expected=$((warm_ok + $(field "$measured" ok)))
  if [[ $name == sync ]]; then
    wait_orders "$expected"
  else
    log "$name: $(orders) orders written while $expected reservations were queued; starting the worker instance"
    web_pid=$service_pid
    join_seckill "$name-worker" true "$(free_port $((${base##*:} + 1)))"
    worker_pid=$service_pid
    service_pid=$web_pid # the main loop stops the web instance
    wait_orders "$expected"
    stop "$worker_pid"
  fi
  drain=$(written_rate "m$$-")
  echo "$measured orders=$(orders) answered_2xx=$expected drain=$(tr ' ' ',' <<<"$drain")"
}

if [[ $shared_redis == false ]]; then
  redis_port=$(free_port 6400)
  redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --dir "$out" \
    > "$out/redis.log" 2>&1 &
  redis_pid=$!
  for _ in $(seq 1 50); do rcli PING >/dev/null 2>&1 && break; sleep 0.1; done
  rcli PING >/dev/null || { echo "the bench's Redis did not start; see $out/redis.log" >&2; exit 1; }
  log "Redis of this run on port $redis_port"
fi

declare -A R W
rps() { awk -v ok="$(field "$1" ok)" -v s="$(field "$1" seconds)" 'BEGIN { printf "%.1f", ok / s }'; }

if [[ -z "$only" ]]; then
  port=$(free_port 18080)
  log "minimal app: starting on port $port"
  java "${java_opts[@]}" -jar "$minimal" --server.port="$port" > "$out/minimal.log" 2>&1 &
  minimal_pid=$!; pids+=("$minimal_pid")
  wait_up "http://127.0.0.1:$port/ping" "$minimal_pid"
  warm_until_steady minimal "http://127.0.0.1:$port/ping" > "$out/minimal.warmup"
  R[minimal]=$(wrk_run minimal "$seconds" "http://127.0.0.1:$port/ping")
  stop "$minimal_pid"
fi

for mode in sync fast; do
  [[ -z "$only" || "$only" == "$mode" ]] || continue
  port=$(free_port 18080)
  users=$sync_users; fast=false
  if [[ $mode == fast ]]; then users=$fast_users; fast=true; fi
  log "$mode path: starting examples/seckill on port $port (seckill.fast-path.enabled=$fast, database $db)"
  if [[ $mode == fast ]]; then
    start_seckill "$mode" "$fast" "$port" --seckill.fast-path.consumers=0
  else
    start_seckill "$mode" "$fast" "$port"
  fi
  base="http://127.0.0.1:$port"
  measure_ping "$mode" "$base" > "$out/$mode-ping.result"
  measure_purchases "$mode" "$base" "$users" > "$out/$mode.result"
  R[$mode-ping]=$(cat "$out/$mode-ping.result")
  R[$mode]=$(cat "$out/$mode.result")
  stop "$service_pid"
  if $pg_waits; then echo "$mode path, PostgreSQL backends of the bench database by state and wait event (average per sample):"; summarise_pg_waits "$out/$mode-pg-waits.txt"; fi
  if $jfr; then echo "$mode path, JFR ($out/$mode.jfr):"; summarise_jfr "$out/$mode.jfr"; fi
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'; }
drained() { field "$1" drain | cut -d, -f"$2"; }

echo
echo "Flash-sale load bench, $(nproc) cores, wrk -t$threads -c$connections, ${seconds} s measured, one run ($out)"
echo "warm-up with GET until steady: $(for k in minimal sync fast; do [[ -s "$out/$k.warmup" ]] && printf '%s %s s, ' "$k" "$(cat "$out/$k.warmup")"; done)then $(( (warmup + 4) / 5 * 5 )) s of purchases"
printf '%-58s %12s %10s %10s %8s\n' "what" "req/s" "p50 ms" "p99 ms" "errors"
for key in minimal sync-ping fast-ping sync fast; do
  [[ -n "${R[$key]:-}" ]] || continue
  case $key in
    minimal) label="minimal Spring Boot app, GET /ping" ;;
    sync-ping) label="seckill (synchronous instance), GET /api/ping" ;;
    fast-ping) label="seckill (fast-path instance), GET /api/ping" ;;
    sync) label="purchases, synchronous path (201)" ;;
    fast) label="purchases, fast path (202)" ;;
  esac
  v=${R[$key]}
  printf '%-58s %12s %10s %10s %8s\n' "$label" "$(rps "$v")" "$(field "$v" p50_ms)" "$(field "$v" p99_ms)" \
    "$(( $(field "$v" status_errors) + $(field "$v" socket_errors) ))"
done
for key in sync fast; do
  [[ -n "${R[$key]:-}" ]] || continue
  v=${R[$key]}
  printf '%-58s %s orders in %s s = %s orders/s (the measured buyers\x27 orders by created_at, the first instant\x27s not counted; orders table %s; purchases answered 2xx %s, the rest were in flight when wrk stopped)\n' \
    "orders written to the database, $key$([[ $key == fast ]] && echo ' (worker draining the queue)')" "$(drained "$v" 1)" "$(drained "$v" 2)" "$(drained "$v" 3)" \
    "$(field "$v" orders)" "$(field "$v" answered_2xx)"
done
echo
printf '%-58s %10s %10s %10s\n' "cost per request answered 2xx (measured phase)" "JVM µs" "Redis µs" "scripts"
for key in sync-ping fast-ping sync fast; do
  [[ -n "${R[$key]:-}" ]] || continue
  case $key in
    sync-ping) label="GET /api/ping, synchronous instance" ;;
    fast-ping) label="GET /api/ping, fast-path instance" ;;
    sync) label="purchase, synchronous path" ;;
    fast) label="purchase, fast path" ;;
  esac
  printf '%-58s %10s %10s %10s\n' "$label" "$(per_request "${R[$key]}" jvm_us)" "$(per_request "${R[$key]}" redis_us)" \
    "$(per_request "${R[$key]}" redis_scripts)"
done
echo
printf '%-58s %10s %8s\n' "ratio (same run)" "measured" "target"
if [[ -n "${R[sync]:-}" && -n "${R[fast]:-}" ]]; then
  printf '%-58s %10s %8s\n' "purchases/s, fast / sync" "$(ratio "$(rps "${R[fast]}")" "$(rps "${R[sync]}")")" ">= 8"
  printf '%-58s %10s %8s\n' "p50, sync / fast (how many times shorter)" "$(ratio "$(field "${R[sync]}" p50_ms)" "$(field "${R[fast]}" p50_ms)")" ""
  printf '%-58s %10s %8s\n' "p99, sync / fast (how many times shorter)" "$(ratio "$(field "${R[sync]}" p99_ms)" "$(field "${R[fast]}" p99_ms)")" ""
  printf '%-58s %10s %8s\n' "orders written/s while draining, fast / sync" "$(ratio "$(drained "${R[fast]}" 3)" "$(drained "${R[sync]}" 3)")" ">= 5"
fi
if [[ -n "${R[fast]:-}" ]]; then
  printf '%-58s %10s %8s\n' "scripts Redis ran per fast-path purchase" "$(per_request "${R[fast]}" redis_scripts)" "<= 1.05"
  printf '%-58s %10s %8s\n' "Redis CPU per fast-path purchase, µs" "$(per_request "${R[fast]}" redis_us)" "<= 40"
fi
if [[ -n "${R[fast]:-}" && -n "${R[fast-ping]:-}" ]]; then
  printf '%-58s %10s %8s\n' "JVM CPU, fast-path purchase / GET /api/ping" \
    "$(ratio "$(per_request "${R[fast]}" jvm_us)" "$(per_request "${R[fast-ping]}" jvm_us)")" "<= 2.5"
  printf '%-58s %10s %8s\n' "fast-path purchase / GET /api/ping, req/s" "$(ratio "$(rps "${R[fast]}")" "$(rps "${R[fast-ping]}")")" ""
fi
if [[ -n "${R[sync]:-}" && -n "${R[sync-ping]:-}" ]]; then
  printf '%-58s %10s %8s\n' "synchronous purchase / GET /api/ping, req/s" "$(ratio "$(rps "${R[sync]}")" "$(rps "${R[sync-ping]}")")" ""
fi
for key in fast-ping sync-ping; do
  if [[ -n "${R[minimal]:-}" && -n "${R[$key]:-}" ]]; then
    printf '%-58s %10s %8s\n' "GET /api/ping ($key instance) / minimal app GET /ping" "$(ratio "$(rps "${R[$key]}")" "$(rps "${R[minimal]}")")" ""
  fi
done
