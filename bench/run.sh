#!/usr/bin/env bash
# Runs one benchmark class of this module against the servers on localhost.
#   bench/run.sh StoreThroughputBench [--seconds=10] [--warmup=3] [--clients=50] [--stores=memory,redis,...]
#   bench/run.sh RedisMemoryBench [--tokens=100000] [--records=20000]
#   bench/run.sh RedisClientsBench [--seconds=10] [--warmup=3] [--clients=50] [--rounds=2]
#   bench/run.sh MessagingBench [-Dbench.n=4000] [-Dbench.rounds=5]
# Arguments starting with -D are system properties of the benchmark's JVM; the others go to the class.
set -euo pipefail
cd "$(dirname "$0")/.."
main="${1:-StoreThroughputBench}"; shift || true
jvm=(); program=()
for arg in "$@"; do
  case "$arg" in
    -D*) jvm+=("$arg") ;;
    *) program+=("$arg") ;;
  esac
done
mvn -B -q -ntp -pl bench -am package dependency:build-classpath -DskipTests -Dmdep.outputFile=target/classpath.txt >/dev/null
exec java -Xms1g -Xmx1g "${jvm[@]}" -cp "bench/target/classes:$(cat bench/target/classpath.txt)" "io.onlyonce.bench.$main" "${program[@]}"
