#!/usr/bin/env bash
# Runs one benchmark class of this module against the servers on localhost.
#   bench/run.sh StoreThroughputBench [--seconds=10] [--warmup=3] [--clients=50] [--stores=memory,redis,...]
#   bench/run.sh RedisMemoryBench [--tokens=100000] [--records=20000]
set -euo pipefail
cd "$(dirname "$0")/.."
main="${1:-StoreThroughputBench}"; shift || true
mvn -B -q -ntp -pl bench -am package dependency:build-classpath -DskipTests -Dmdep.outputFile=target/classpath.txt >/dev/null
exec java -Xms1g -Xmx1g -cp "bench/target/classes:$(cat bench/target/classpath.txt)" "io.onlyonce.bench.$main" "$@"
