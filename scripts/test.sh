#!/usr/bin/env bash
# The one command that runs every test on a fresh Debian machine:
# starts/installs the services, then `mvn -B -ntp verify "$@"`.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

if ! command -v mvn >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1; then
  echo "[test] installing maven / openjdk-17-jdk-headless"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    maven openjdk-17-jdk-headless
fi

# every published module is in onlyonce-bom, at its own version (a single-file Java program, under a second)
java scripts/CheckBom.java

# the walk-through test runs scripts/demo.sh, which needs curl, jq and openssl; the web page's
# browser test needs headless Chromium and its driver; the operations test checks ops/'s rules and
# dashboard with Prometheus and promtool (command:package); the end-to-end verifier shifts one
# instance's clock with libfaketime
missing=""
for tool in curl:curl jq:jq openssl:openssl chromium:chromium chromedriver:chromium-driver prometheus:prometheus promtool:prometheus faketime:faketime; do
  command -v "${tool%%:*}" >/dev/null 2>&1 || case " $missing " in *" ${tool#*:} "*) ;; *) missing="$missing ${tool#*:}" ;; esac
done
if [ -n "$missing" ]; then
  echo "[test] installing$missing"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends$missing
  case "$missing" in
    *prometheus*)
      # the package starts a Prometheus of its own on 9090: the test runs its own, on a free port
      { $SUDO systemctl disable --now prometheus || $SUDO service prometheus stop; } >/dev/null 2>&1 || true
      ;;
  esac
fi

bash scripts/services.sh

# the faults of the short end-to-end run
VERIFY_FAULTS="kill,kill-after-commit,pause,redis-restart,postgres-restart,relay-republish,redis-partition"

# the release profile too (sources and javadoc jars, javadoc's lint as errors), signing skipped:
# what a release would build is built on every run
echo "[test] mvn -B -ntp -Prelease -Dgpg.skip verify $*"
set +e
mvn -B -ntp -Prelease -Dgpg.skip verify "$@"
rc=$?
set -e
echo "[test] mvn exit code: $rc"

# the end-to-end verifier, short: two minutes of the workload under the main faults, a fixed seed
# (verify/README.md); its report stays in target/verify/ci as the run's artefact
if [ "$rc" -eq 0 ] && [ "${ONLYONCE_SKIP_VERIFY:-0}" != "1" ]; then
  echo "[test] scripts/verify.sh --minutes 2 --seed 20261203 (faults: $VERIFY_FAULTS)"
  set +e
  bash scripts/verify.sh --minutes 2 --seed 20261203 --faults "$VERIFY_FAULTS" --out target/verify/ci
  rc=$?
  set -e
  echo "[test] verify exit code: $rc (report: target/verify/ci/report.html)"
fi

# once more on the newest JDK: core and the Spring Boot integration compiled (still to Java 17
# bytecode) and unit-tested by Temurin 25, the JDK installed beside the default one
jdk25="$(ls -d /usr/lib/jvm/temurin-25* 2>/dev/null | head -1 || true)"
if [ "$rc" -eq 0 ] && [ "${ONLYONCE_SKIP_JDK25:-0}" != "1" ]; then
  if [ -n "$jdk25" ]; then
    echo "[test] JAVA_HOME=$jdk25 mvn -B -ntp -pl onlyonce-core,onlyonce-spring-boot,onlyonce-spring-boot-webmvc,onlyonce-spring-boot-webflux -am -DskipITs verify"
    set +e
    JAVA_HOME="$jdk25" mvn -B -ntp -pl onlyonce-core,onlyonce-spring-boot,onlyonce-spring-boot-webmvc,onlyonce-spring-boot-webflux -am -DskipITs verify
    rc=$?
    set -e
    echo "[test] mvn (JDK 25) exit code: $rc"
  else
    echo "[test] no Temurin 25 under /usr/lib/jvm: the JDK 25 run is skipped"
  fi
fi
exit "$rc"
