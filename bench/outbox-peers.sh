#!/usr/bin/env bash
# OnlyOnce's outbox relay against namastack-outbox and Spring Modulith (and the raw publish), on the
# servers on localhost, in one run (module bench/peers, see docs/benchmarks.md):
#   bench/outbox-peers.sh [--broker=kafka|rabbit|both] [--n=20000] [--clients=8] [--rounds=3]
#                         [--contenders=onlyonce,namastack,modulith,raw]
# Arguments starting with -D are system properties of the benchmark's JVM; the others go to the class.
set -euo pipefail
cd "$(dirname "$0")/.."
jvm=(); program=()
for arg in "$@"; do
  case "$arg" in
    -D*) jvm+=("$arg") ;;
    *) program+=("$arg") ;;
  esac
done
mvn -B -q -ntp -pl bench/peers -am package dependency:build-classpath -DskipTests -Dmdep.outputFile=target/classpath.txt >/dev/null
exec java -Xms1g -Xmx1g "${jvm[@]}" -cp "bench/peers/target/classes:$(cat bench/peers/target/classpath.txt)" \
  io.onlyonce.bench.peers.Peers "${program[@]}"
