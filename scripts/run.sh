#!/usr/bin/env bash
# Starts the reference flash-sale service (examples/seckill) on its embedded default:
# H2 file database under ./data/seckill, in-memory OnlyOnce stores, port 8080. No server needed.
# Extra arguments go to the application, e.g. scripts/run.sh --server.port=9090
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
if ! command -v mvn >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1; then
  echo "[run] installing maven / openjdk-17-jdk-headless"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends maven openjdk-17-jdk-headless
fi

echo "[run] building the service (tests skipped; scripts/test.sh runs them)"
mvn -B -q -ntp -pl examples/seckill -am package -DskipTests
jar=$(ls examples/seckill/target/onlyonce-example-seckill-*.jar | grep -v original | head -n 1)
echo "[run] starting $jar on http://localhost:8080 (walk-through: examples/seckill/README.md)"
exec java -jar "$jar" "$@"
