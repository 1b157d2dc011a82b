#!/usr/bin/env bash
# A single-node KRaft Kafka broker on 127.0.0.1 for the tests, the reference service and the benches,
# run from the org.apache.kafka:kafka_2.13 artifacts of Maven Central (no Docker, no download
# outside Maven): the libraries are assembled by `mvn -f scripts/kafka/pom.xml package`.
#
#   scripts/kafka/kafka.sh start     start one unless a broker already answers on the port
#   scripts/kafka/kafka.sh stop      stop the broker this script started (SIGTERM, then SIGKILL)
#   scripts/kafka/kafka.sh kill      SIGKILL it (tests of a broker that dies)
#   scripts/kafka/kafka.sh status    exit 0 when a broker answers on the port
#
# Settings (environment): ONLYONCE_KAFKA_PORT (9092), ONLYONCE_KAFKA_CONTROLLER_PORT (port + 1),
# ONLYONCE_KAFKA_HOME (/var/lib/onlyonce-kafka-<port>: data, logs, pid, server.properties),
# ONLYONCE_KAFKA_HEAP (512m). Topics are never created automatically (auto.create.topics.enable=false):
# a message to a topic nobody created fails, as an unroutable message does on RabbitMQ.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PORT="${ONLYONCE_KAFKA_PORT:-9092}"
CONTROLLER_PORT="${ONLYONCE_KAFKA_CONTROLLER_PORT:-$((PORT + 1))}"
HOME_DIR="${ONLYONCE_KAFKA_HOME:-/var/lib/onlyonce-kafka-$PORT}"
HEAP="${ONLYONCE_KAFKA_HEAP:-512m}"
LIBS="$SCRIPT_DIR/target/kafka/libs"
WAIT_SECS="${ONLYONCE_SERVICE_WAIT_SECS:-90}"

log() { echo "[kafka] $*"; }
die() { echo "[kafka] ERROR: $*" >&2; exit 1; }

port_open() { timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null; }

pid_alive() { [ -f "$HOME_DIR/broker.pid" ] && kill -0 "$(cat "$HOME_DIR/broker.pid")" 2>/dev/null; }

assemble() {
  if ls "$LIBS"/kafka_2.13-*.jar >/dev/null 2>&1; then
    return 0
  fi
  log "assembling the broker from Maven Central (mvn -f scripts/kafka/pom.xml package)"
  mvn -B -ntp -q -f "$SCRIPT_DIR/pom.xml" package || die "could not assemble the Kafka broker"
}

java_bin() {
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then echo "$JAVA_HOME/bin/java"; else echo java; fi
}

write_config() {
  mkdir -p "$HOME_DIR/data" "$HOME_DIR/logs"
  cat > "$HOME_DIR/server.properties" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$CONTROLLER_PORT
listeners=PLAINTEXT://127.0.0.1:$PORT,CONTROLLER://127.0.0.1:$CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$HOME_DIR/data
num.partitions=3
auto.create.topics.enable=false
offsets.topic.replication.factor=1
offsets.topic.num.partitions=6
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
log.retention.hours=24
log.segment.bytes=67108864
delete.topic.enable=true
EOF
  cat > "$HOME_DIR/log4j2.properties" <<EOF
status = error
appender.file.type = File
appender.file.name = file
appender.file.fileName = $HOME_DIR/logs/server.log
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = WARN
rootLogger.appenderRef.file.ref = file
logger.kafka.name = kafka
logger.kafka.level = INFO
logger.server.name = org.apache.kafka.server
logger.server.level = INFO
EOF
}

start() {
  if port_open "$PORT"; then
    log "a broker already answers on 127.0.0.1:$PORT: left as it is"
    return 0
  fi
  assemble
  write_config
  local java
  java="$(java_bin)"
  if [ ! -f "$HOME_DIR/data/meta.properties" ]; then
    local cluster
    cluster="$("$java" -cp "$LIBS/*" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -1)"
    log "formatting $HOME_DIR/data (cluster $cluster)"
    "$java" -Dlog4j2.configurationFile="$HOME_DIR/log4j2.properties" -cp "$LIBS/*" kafka.tools.StorageTool \
      format -t "$cluster" -c "$HOME_DIR/server.properties" >> "$HOME_DIR/logs/format.log" 2>&1 ||
      die "could not format the log directory (see $HOME_DIR/logs/format.log)"
  fi
  log "starting on 127.0.0.1:$PORT (home $HOME_DIR)"
  # setsid: the broker outlives this script and holds none of its descriptors (a caller's lock)
  setsid "$java" -Xms128m -Xmx"$HEAP" -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true \
    -Dlog4j2.configurationFile="$HOME_DIR/log4j2.properties" -Dkafka.logs.dir="$HOME_DIR/logs" \
    -cp "$LIBS/*" kafka.Kafka "$HOME_DIR/server.properties" \
    > "$HOME_DIR/logs/stdout.log" 2>&1 < /dev/null 8>&- &
  echo $! > "$HOME_DIR/broker.pid"
  local i
  for ((i = 0; i < WAIT_SECS; i++)); do
    if port_open "$PORT" && grep -q "Kafka Server started\|\[KafkaRaftServer nodeId=1\] Kafka Server started" \
        "$HOME_DIR/logs/server.log" "$HOME_DIR/logs/stdout.log" 2>/dev/null; then
      log "kafka 127.0.0.1:$PORT is up"
      return 0
    fi
    pid_alive || die "the broker exited at start-up (see $HOME_DIR/logs/server.log and stdout.log)"
    sleep 1
  done
  die "the broker did not answer on 127.0.0.1:$PORT within ${WAIT_SECS}s (see $HOME_DIR/logs/server.log)"
}

stop() {
  local signal="${1:-TERM}" i
  if ! pid_alive; then
    log "no broker of this script runs for port $PORT"
    return 0
  fi
  local pid
  pid="$(cat "$HOME_DIR/broker.pid")"
  kill -"$signal" "$pid" 2>/dev/null || true
  for ((i = 0; i < 60; i++)); do
    kill -0 "$pid" 2>/dev/null || { log "stopped ($signal)"; rm -f "$HOME_DIR/broker.pid"; return 0; }
    sleep 0.5
  done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$HOME_DIR/broker.pid"
  log "killed after 30 s"
}

case "${1:-start}" in
  start) start ;;
  stop) stop TERM ;;
  kill) stop KILL ;;
  status) port_open "$PORT" ;;
  *) die "usage: kafka.sh start|stop|kill|status" ;;
esac
