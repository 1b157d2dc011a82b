#!/usr/bin/env bash
# HTTP overhead of @Idempotent, loaded by wrk from outside the service's JVM. One Spring Boot MVC
# application (bench/src/.../HttpOverheadBench.java) with a plain and an @Idempotent endpoint, the
# same trivial handler; per store, rounds alternate plain / @Idempotent with a new key per request /
# @Idempotent replaying one key, after a warm-up of each. Prints the median requests/s of each, the
# ratios against plain in the same run, and what each request costs: CPU of the service's JVM and
# of redis-server per request, Redis commands per request.
#
#   bench/http-overhead.sh [--stores=redis,memory] [--seconds=10] [--rounds=3] [--connections=32] [--threads=2]
#
# Lines "figure <name> <value>" are the figures docs/benchmarks.md quotes. Needs wrk, java, and for
# the Redis store the Redis on 127.0.0.1:6379 (keys under a prefix of this run, deleted at the end).
set -euo pipefail
cd "$(dirname "$0")/.."
stores=redis,memory; seconds=10; rounds=3; connections=32; threads=2
for arg in "$@"; do
  case "$arg" in
    --stores=*) stores=${arg#*=} ;;
    --seconds=*) seconds=${arg#*=} ;;
    --rounds=*) rounds=${arg#*=} ;;
    --connections=*) connections=${arg#*=} ;;
    --threads=*) threads=${arg#*=} ;;
    *) echo "unknown argument $arg" >&2; exit 2 ;;
  esac
done
command -v wrk >/dev/null || { echo "wrk is required (apt-get install wrk)" >&2; exit 1; }

mvn -B -q -ntp -pl bench -am package dependency:build-classpath -DskipTests -Dmdep.outputFile=target/classpath.txt >/dev/null
classpath="bench/target/classes:$(cat bench/target/classpath.txt)"
ticks=$(getconf CLK_TCK)
run=$(date +%s)-$$
prefix="oo-bench-http-$run:"
redis_pid=$(redis-cli -p 6379 info server 2>/dev/null | awk -F: '/^process_id:/ {print $2}' | tr -d '\r' || true)

server=""
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null || true
  wait 2>/dev/null || true
  redis-cli -p 6379 --scan --pattern "$prefix*" 2>/dev/null | xargs -r -n 500 redis-cli -p 6379 unlink >/dev/null || true
}
trap cleanup EXIT INT TERM

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
redis_commands() { redis-cli -p 6379 info stats 2>/dev/null | awk -F: '/^total_commands_processed:/ {print $2}' | tr -d '\r' || echo 0; }

# one wrk run against $1 with KEYS=$2: prints "<requests/s> <requests> <non-2xx> <jvm ticks> <redis ticks> <redis commands>"
measure() {
  local path=$1 keys=$2 id="$run-$RANDOM" out rps total errors j0 j1 r0 r1 c0 c1
  if [ "$keys" = one ]; then
    # the first answer, recorded before the load: every request of the run is then its replay
    curl -fsS -o /dev/null -X POST -H 'Content-Type: application/json' -H "Idempotency-Key: $id-replayed" \
      -d '{"item":"phone","quantity":1}' "http://127.0.0.1:$port$path"
  fi
  j0=$(cpu_ticks "$server"); r0=$( [ -n "$redis_pid" ] && cpu_ticks "$redis_pid" || echo 0); c0=$(redis_commands)
  out=$(KEYS=$keys RUN="$id" wrk -t"$threads" -c"$connections" -d"${seconds}s" -s bench/http/post.lua "http://127.0.0.1:$port$path")
  j1=$(cpu_ticks "$server"); r1=$( [ -n "$redis_pid" ] && cpu_ticks "$redis_pid" || echo 0); c1=$(redis_commands)
  rps=$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")
  total=$(awk '/requests in/ {print $1}' <<<"$out")
  errors=$(awk '/Non-2xx or 3xx responses:/ {print $5}' <<<"$out")
  echo "$rps $total ${errors:-0} $((j1 - j0)) $((r1 - r0)) $((c1 - c0))"
}
median() { sort -g | awk '{v[NR]=$1} END {if (NR % 2) print v[(NR+1)/2]; else print (v[NR/2] + v[NR/2+1]) / 2}'; }

echo "OnlyOnce HTTP overhead: wrk -t$threads -c$connections, $seconds s rounds, $rounds rounds, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
IFS=, read -ra store_list <<<"$stores"
for store in "${store_list[@]}"; do
  log=/tmp/onlyonce-http-overhead-$store.log
  java -Xms512m -Xmx512m -XX:+UseParallelGC -cp "$classpath" io.onlyonce.bench.HttpOverheadBench \
    --store="$store" --prefix="$prefix" >"$log" 2>&1 &
  server=$!
  port=""
  for i in $(seq 1 120); do
    port=$(awk '/^listening / {print $2}' "$log" 2>/dev/null || true)
    [ -n "$port" ] && break
    kill -0 "$server" 2>/dev/null || { echo "the service did not start; see $log" >&2; exit 1; }
    sleep 1
  done
  [ -n "$port" ] || { echo "the service did not start in 120 s; see $log" >&2; exit 1; }
  # warm-up: the JIT and the store's connection, each endpoint and kind of request
  for kind in "/plain none" "/protected unique" "/protected one"; do
    set -- $kind; saved=$seconds; seconds=$(( saved < 5 ? saved : 5 )); measure "$1" "$2" >/dev/null; seconds=$saved
  done
  : >/tmp/onlyonce-http-overhead-rounds
  printf '\n%-8s %-6s %12s %12s %12s %10s\n' store round "plain r/s" "key r/s" "replay r/s" "non-2xx"
  for round in $(seq 1 "$rounds"); do
    read -r p_rps p_n p_err p_j p_r p_c <<<"$(measure /plain none)"
    read -r k_rps k_n k_err k_j k_r k_c <<<"$(measure /protected unique)"
    read -r r_rps r_n r_err r_j r_r r_c <<<"$(measure /protected one)"
    printf '%-8s %-6s %12.0f %12.0f %12.0f %10s\n' "$store" "$round" "$p_rps" "$k_rps" "$r_rps" "$((p_err + k_err + r_err))"
    echo "$p_rps $k_rps $r_rps $p_n $k_n $r_n $p_j $k_j $r_j $p_r $k_r $r_r $p_c $k_c $r_c" >>/tmp/onlyonce-http-overhead-rounds
  done
  col() { awk -v c="$1" '{print $c}' /tmp/onlyonce-http-overhead-rounds | median; }
  # per request, over all rounds: CPU microseconds (JVM, redis-server) and Redis commands
  per() { awk -v t="$1" -v n="$2" -v k="$3" '{a += $t; b += $n} END {printf "%.1f", (b ? a * k / b : 0)}' /tmp/onlyonce-http-overhead-rounds; }
  us=$(awk -v t="$ticks" 'BEGIN {print 1000000 / t}')
  plain=$(col 1); keyed=$(col 2); replay=$(col 3)
  printf '\nmedian   plain %.0f r/s, @Idempotent %.0f r/s (%.2f), replay %.0f r/s (%.2f)\n' \
    "$plain" "$keyed" "$(awk -v a="$keyed" -v b="$plain" 'BEGIN {print a / b}')" \
    "$replay" "$(awk -v a="$replay" -v b="$plain" 'BEGIN {print a / b}')"
  echo "figure http_idempotent_over_plain_$store $(awk -v a="$keyed" -v b="$plain" 'BEGIN {printf "%.2f", a / b}')"
  echo "figure http_replay_over_plain_$store $(awk -v a="$replay" -v b="$plain" 'BEGIN {printf "%.2f", a / b}')"
  echo "figure jvm_cpu_us_per_request_plain_$store $(per 7 4 "$us")"
  echo "figure jvm_cpu_us_per_request_idempotent_$store $(per 8 5 "$us")"
  echo "figure jvm_cpu_us_per_request_replay_$store $(per 9 6 "$us")"
  if [ "$store" = redis ]; then
    echo "figure jvm_cpu_us_added_per_request $(awk -v a="$(per 8 5 "$us")" -v b="$(per 7 4 "$us")" 'BEGIN {printf "%.1f", a - b}')"
    echo "figure redis_cpu_us_per_request_idempotent $(per 11 5 "$us")"
    echo "figure redis_cpu_us_per_request_replay $(per 12 6 "$us")"
    echo "figure redis_commands_per_request_idempotent $(per 14 5 1)"
    echo "figure redis_commands_per_request_replay $(per 15 6 1)"
  fi
  kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; server=""
done
