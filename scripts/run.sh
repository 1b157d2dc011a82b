#!/usr/bin/env bash
# Starts the reference flash-sale service (examples/seckill) on its embedded default, in demo mode:
# H2 file database under ./data/seckill of the repository, in-memory OnlyOnce stores, port 8080,
# the published demo secrets (never expose it). No server needed.
#
#   scripts/run.sh [--reset] [application arguments...]
#
#   --reset      delete the demo data (./data/seckill.*) first: a fresh database, seeded again
#   arguments    go to the application, e.g. scripts/run.sh --server.port=9090
#
# Builds the service only when it has not been built yet or a source or pom changed since.
# Walk-through against it: scripts/demo.sh [http://localhost:<port>]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [ "${1:-}" = "--reset" ]; then
  shift
  echo "[run] --reset: deleting the demo data ./data/seckill.*"
  rm -f ./data/seckill.mv.db ./data/seckill.trace.db ./data/seckill.lock.db
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
if ! command -v mvn >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1; then
  echo "[run] installing maven / openjdk-17-jdk-headless"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends maven openjdk-17-jdk-headless
fi

built_jar() {
  ls examples/seckill/target/onlyonce-example-seckill-*.jar 2>/dev/null | grep -v '\.original$' | head -n 1 || true
}

# the first pom or main source file (code, resource) newer than the jar, if any
changed_since() {
  find . \( -path ./.git -o -path ./data -o -path ./bench -o -path ./docs -o -name target -o -name node_modules \) -prune \
    -o -type f \( -name pom.xml -o -path '*/src/main/*' \) -newer "$1" -print -quit 2>/dev/null || true
}

jar=$(built_jar)
if [ -z "$jar" ]; then
  echo "[run] building the service (first time; tests skipped, scripts/test.sh runs them)"
  mvn -B -q -ntp -pl examples/seckill -am package -DskipTests
elif changed=$(changed_since "$jar"); [ -n "$changed" ]; then
  echo "[run] rebuilding the service ($changed changed since $jar was built; tests skipped)"
  mvn -B -q -ntp -pl examples/seckill -am package -DskipTests
else
  echo "[run] $jar is up to date: not rebuilding"
fi
jar=$(built_jar)

# the port it will listen on: the last --server.port=N argument, else SERVER_PORT, else 8080
port=${SERVER_PORT:-8080}
for arg in "$@"; do
  case "$arg" in
    --server.port=*) port=${arg#--server.port=} ;;
  esac
done
if [ "$port" = "0" ]; then
  echo "[run] starting $jar on a free port (the service prints \"seckill is ready on http://localhost:<port>\" once it listens)"
else
  echo "[run] starting $jar on http://localhost:$port (walk-through: scripts/demo.sh http://localhost:$port)"
fi
echo "[run] demo data: ./data/seckill (scripts/run.sh --reset starts afresh); Ctrl-C stops it"
exec java -jar "$jar" "$@"
