#!/usr/bin/env bash
# Gateway bench: the same route through the seckill gateway with RequestDedup switched on and off
# in the same run (the Actuator endpoint toggles it between rounds), load from wrk, every request a
# new body so that each one with the filter on costs its Redis round trip. Prints requests/s and
# p99 of each, the ratio on/off and the p99 the filter adds.
#
#   bench/gateway.sh [--seconds=10] [--rounds=3] [--connections=32] [--threads=2]
#
# Needs wrk, java, the Redis on REDIS_HOST:REDIS_PORT (127.0.0.1:6379; keys under oo-bench-gw:, 1 s TTL).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=10; rounds=3; connections=32; threads=2
for arg in "$@"; do
  case "$arg" in
    --seconds=*) seconds=${arg#*=} ;;
    --rounds=*) rounds=${arg#*=} ;;
    --connections=*) connections=${arg#*=} ;;
    --threads=*) threads=${arg#*=} ;;
    *) echo "unknown argument $arg" >&2; exit 2 ;;
  esac
done
command -v wrk >/dev/null || { echo "wrk is required (apt-get install wrk)" >&2; exit 1; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
# the gateway jar, and its classpath for the downstream (Reactor Netty)
mvn -B -q -ntp -pl examples/seckill-gateway -am package dependency:build-classpath -DskipTests \
  -Dmdep.outputFile=target/classpath.txt >/dev/null
jar=$(ls examples/seckill-gateway/target/onlyonce-example-seckill-gateway-*.jar | grep -v '\.original$' | head -n 1)
classpath=$(cat examples/seckill-gateway/target/classpath.txt)

downstream_port=$(free_port); gateway_port=$(free_port); management_port=$(free_port)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM

java -Xmx256m -cp "$classpath" bench/gateway/Downstream.java "$downstream_port" & pids+=("$!")
BENCH_DOWNSTREAM_PORT=$downstream_port GATEWAY_PORT=$gateway_port GATEWAY_MANAGEMENT_PORT=$management_port \
  ONLYONCE_REDIS_PREFIX=oo-bench-gw: SECKILL_JWT_SECRET=bench-only-secret-0123456789abcdef0123456789 \
  java -Xms512m -Xmx512m -jar "$jar" --spring.config.additional-location=file:bench/gateway/gateway-bench.yml \
  >/tmp/onlyonce-gateway-bench.log 2>&1 & pids+=("$!")
for i in $(seq 1 180); do
  curl -fsS "http://127.0.0.1:$management_port/actuator/health" 2>/dev/null | grep -q UP && break
  sleep 1
done
curl -fsS "http://127.0.0.1:$management_port/actuator/requestdedup/bench" >/dev/null ||
  { echo "the gateway did not start; see /tmp/onlyonce-gateway-bench.log" >&2; exit 1; }

set_filter() {
  curl -fsS -X POST -H 'Content-Type: application/json' -d "{\"enabled\":$1}" \
    "http://127.0.0.1:$management_port/actuator/requestdedup/bench" >/dev/null
}
# one wrk run: prints "<requests/s> <p99 in ms> <non-2xx>"
measure() {
  local out rps p99 errors
  out=$(wrk -t"$threads" -c"$connections" -d"$1s" --latency -s bench/gateway/unique-post.lua "http://127.0.0.1:$gateway_port")
  rps=$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")
  p99=$(awk '$1 == "99%" {v=$2; if (v ~ /us$/) {sub(/us$/,"",v); v=v/1000} else if (v ~ /ms$/) {sub(/ms$/,"",v)} else if (v ~ /s$/) {sub(/s$/,"",v); v=v*1000}; print v}' <<<"$out")
  errors=$(awk '/Non-2xx or 3xx responses:/ {print $5}' <<<"$out")
  echo "$rps $p99 ${errors:-0}"
}

# the JIT needs a while: two warm-up rounds of each
echo "warm-up: 2 x (${seconds}s off, ${seconds}s on)"
for _ in 1 2; do
  set_filter false; measure "$seconds" >/dev/null
  set_filter true; measure "$seconds" >/dev/null
done

off_rps=(); off_p99=(); on_rps=(); on_p99=(); ratios=(); added=()
for round in $(seq 1 "$rounds"); do
  set_filter false; read -r r p e < <(measure "$seconds"); off_rps+=("$r"); off_p99+=("$p")
  printf 'round %d  off: %10.0f req/s  p99 %7.2f ms  non-2xx %s\n' "$round" "$r" "$p" "$e"
  set_filter true; read -r r p e < <(measure "$seconds"); on_rps+=("$r"); on_p99+=("$p")
  ratios+=("$(awk -v a="$r" -v b="${off_rps[-1]}" 'BEGIN {print a/b}')")
  added+=("$(awk -v a="$p" -v b="${off_p99[-1]}" 'BEGIN {print a-b}')")
  printf 'round %d  on:  %10.0f req/s  p99 %7.2f ms  non-2xx %s   ratio %.2f  p99 added %.2f ms\n' \
    "$round" "$r" "$p" "$e" "${ratios[-1]}" "${added[-1]}"
done
set_filter false

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
m_off=$(median "${off_rps[@]}"); m_on=$(median "${on_rps[@]}")
p_off=$(median "${off_p99[@]}"); p_on=$(median "${on_p99[@]}")
echo
printf '%-36s %12s %10s %8s\n' "route /bench/orders (medians)" "requests/s" "p99 ms" "ratio"
printf '%-36s %12.0f %10.2f %8s\n' "RequestDedup off (baseline)" "$m_off" "$p_off" "1.00"
printf '%-36s %12.0f %10.2f %8.2f\n' "RequestDedup on" "$m_on" "$p_on" "$(awk -v a="$m_on" -v b="$m_off" 'BEGIN {print a/b}')"
echo
printf 'ratio on/off, median of the rounds:     %.2f   (target 0.85 or more)\n' "$(median "${ratios[@]}")"
printf 'p99 added by the filter, median:        %.2f ms   (target under 1 ms)\n' "$(median "${added[@]}")"
