#!/usr/bin/env bash
# The end-to-end verifier (verify/README.md): starts the gateway, two seckill instances and a
# private Redis, PostgreSQL and RabbitMQ on loopback, drives a workload of clients, injects faults on
# a seeded schedule, records the history, checks it and writes a report.
#
#   scripts/verify.sh [--minutes N] [--seed S] [--faults kind,...] [--break PROTECTION] [--out DIR]
#
#   --minutes N       how long the workload runs under faults (default 2)
#   --seed S          the seed of the fault schedule and the clients' choices (default: from the clock)
#   --faults k,...    kill, kill-after-commit, pause, redis-restart, redis-pause, postgres-restart,
#                     rabbit-restart, relay-republish, redis-partition, clock-skew; all (default); none
#   --break P         switch a protection off to prove the checks fail: business-layer, inbox
#   --out DIR         where history.jsonl, report.html, anomalies.json and the logs go
#                     (default target/verify/seed-S)
#
# Exit status: 0 no anomaly, 1 anomalies (listed, and in anomalies.json), 2 could not run.
# Builds the service, the gateway and the verifier when their jars are missing. Never touches the
# machine's shared servers: every server it restarts is its own process under DIR/servers.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
# a failing install or build is "could not run" (2), never "anomalies" (1)
trap 'echo "[verify] could not prepare the run" >&2; exit 2' ERR

need_install=""
for tool in redis-server:redis-server rabbitmq-server:rabbitmq-server faketime:faketime; do
  command -v "${tool%%:*}" >/dev/null 2>&1 || [ -x "/usr/sbin/${tool%%:*}" ] || need_install="$need_install ${tool#*:}"
done
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need_install="$need_install postgresql"
if [ -n "$need_install" ]; then
  echo "[verify] installing$need_install"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends$need_install
fi

jar_of() { ls "$1"/target/onlyonce-example-*.jar 2>/dev/null | grep -v -e '\.original$' -e '-sources' -e '-javadoc' -e '-plain' | head -n 1 || true; }
if [ -z "$(jar_of examples/seckill)" ] || [ -z "$(jar_of examples/seckill-gateway)" ] || [ ! -d verify/target/lib ] \
    || [ ! -d verify/target/classes/io ]; then
  echo "[verify] building the service, the gateway and the verifier (tests skipped)"
  mvn -B -q -ntp -pl examples/seckill,examples/seckill-gateway,verify -am package -DskipTests
fi

trap - ERR
exec java -Xmx1g -cp "verify/target/classes:verify/target/lib/*" io.onlyonce.verify.run.Verify --repo "$PWD" "$@"
