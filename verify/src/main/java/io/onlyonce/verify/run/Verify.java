package io.onlyonce.verify.run;

import io.onlyonce.verify.check.CheckResult;
import io.onlyonce.verify.check.Checks;
import io.onlyonce.verify.history.History;
import io.onlyonce.verify.history.HistoryWriter;
import io.onlyonce.verify.history.OpType;
import io.onlyonce.verify.nemesis.Fault;
import io.onlyonce.verify.nemesis.Nemesis;
import io.onlyonce.verify.nemesis.Schedule;
import io.onlyonce.verify.report.Report;
import io.onlyonce.verify.report.RunInfo;
import io.onlyonce.verify.workload.Api;
import io.onlyonce.verify.workload.Workload;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code scripts/verify.sh}: starts the system, runs the workload under the seeded fault schedule,
 * reads the final state, checks the history and writes the report. Exit 0: no anomaly; 1:
 * anomalies; 2: could not run.
 */
public final class Verify {

    private Verify() {
    }

    public static void main(String[] args) {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("verify: " + e.getMessage());
            System.exit(2);
            return;
        }
        int exit;
        try {
            exit = run(options);
        } catch (CannotRun e) {
            System.err.println("verify: could not run: " + e.getMessage());
            exit = 2;
        } catch (Exception e) {
            System.err.println("verify: could not run: " + e);
            e.printStackTrace();
            exit = 2;
        }
        System.exit(exit);
    }

    static int run(Options options) throws Exception {
        Instant startedAt = Instant.now();
        Files.createDirectories(options.out());
        Console.say("run " + options.command() + " -> " + options.out());
        // more rounds than the time allows (a round of every kind takes about two minutes): the nemesis stops at the deadline
        int rounds = Math.max(3, (int) Math.ceil(options.minutes()) * 2);
        List<Fault> schedule = Schedule.of(options.seed(), options.faults(), rounds, Cluster.LEASE);
        Path historyFile = options.out().resolve("history.jsonl");
        try (Cluster cluster = new Cluster(options)) {
            try {
                cluster.start();
            } catch (CannotRun e) {
                throw e;
            } catch (Exception e) {
                throw new CannotRun("the system did not start: " + e.getMessage() + " (logs in " + cluster.logs() + ")", e);
            }
            Api api = new Api(cluster.gatewayUrl(), cluster.lossyUrl(), cluster.paymentSecret());
            Setup setup = Setup.create(cluster, api, options.seed(), options.clients(), (int) Math.ceil(options.minutes()) + 1);
            List<Map<String, Object>> faults = new ArrayList<>();
            for (Fault f : schedule) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("kind", f.kind().wire());
                m.put("target", f.target());
                m.put("holdMs", f.holdMs());
                faults.add(m);
            }
            History history;
            Nemesis nemesis;
            try (HistoryWriter writer = new HistoryWriter(historyFile)) {
                writer.record("setup", OpType.OK, "setup", setup.record(options, faults));
                Workload workload = new Workload(api, writer, options.seed(), setup.users, setup.products, setup.sales);
                long runNanos = TimeUnit.MILLISECONDS.toNanos((long) (options.minutes() * 60_000));
                long deadline = System.nanoTime() + runNanos;
                nemesis = new Nemesis(cluster, writer, schedule, deadline - TimeUnit.SECONDS.toNanos(5), 8_000);
                Thread faultThread = new Thread(nemesis, "nemesis");
                Console.say("workload: " + options.clients() + " clients for " + options.minutes() + " min; faults "
                        + (options.faults().isEmpty() ? "none" : options.faults().size() + " kinds"));
                workload.start();
                faultThread.start();
                while (System.nanoTime() < deadline) {
                    Thread.sleep(Math.min(10_000, Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()))));
                    Console.say(progress(writer));
                }
                faultThread.join(TimeUnit.MINUTES.toMillis(3));
                if (faultThread.isAlive()) {
                    faultThread.interrupt();
                    faultThread.join(60_000);
                }
                Console.say("faults over, struck: " + struck(nemesis.struck()) + "; letting the clients finish their intents");
                workload.stop(120);
                if (nemesis.failure() != null) {
                    throw new CannotRun("a fault could not be healed: " + nemesis.failure(), nemesis.failure());
                }
                if (!workload.crashed().isEmpty()) {
                    throw new CannotRun("clients failed, the history is incomplete: " + workload.crashed());
                }
                List<String> missed = options.faults().stream().filter(k -> !nemesis.struck().containsKey(k))
                        .map(k -> k.wire()).toList();
                if (!missed.isEmpty()) {
                    throw new CannotRun("faults asked for never struck (give the run more minutes): " + missed);
                }
                Console.say("final read");
                Map<String, Object> state = new FinalRead(cluster, api, setup, workload.reservations(), !options.broken("business-layer")).read(Duration.ofMinutes(3));
                writer.record("final", OpType.OK, "read", state);
                history = writer.history();
            }
            List<CheckResult> results = Checks.run(history);
            long durationMs = Duration.between(startedAt, Instant.now()).toMillis();
            List<String> notes = new ArrayList<>();
            notes.add("faults scheduled " + schedule.size() + " (rounds of every kind, worked through until the time was up), struck: "
                    + struck(nemesis.struck()));
            RunInfo info = new RunInfo(options.seed(), options.minutes(), options.faults().stream().map(k -> k.wire()).toList(),
                    options.breaks(), options.command(), startedAt, durationMs, notes);
            Report.write(options.out(), history, results, info);
            System.out.println(Report.summary(history, results));
            boolean valid = results.stream().allMatch(CheckResult::valid);
            Console.say((valid ? "VALID" : "INVALID") + ": report " + options.out().resolve("report.html"));
            return valid ? 0 : 1;
        }
    }

    private static String struck(Map<io.onlyonce.verify.nemesis.FaultKind, Integer> struck) {
        return struck.isEmpty() ? "none" : new java.util.TreeMap<>(struck).entrySet().stream()
                .map(e -> e.getKey().wire() + " " + e.getValue()).collect(java.util.stream.Collectors.joining(", "));
    }

    private static String progress(HistoryWriter writer) {
        History h = writer.history();
        long ok = h.ops().stream().filter(op -> op.isClient() && op.type() == OpType.OK).count();
        long fail = h.ops().stream().filter(op -> op.isClient() && op.type() == OpType.FAIL).count();
        long info = h.ops().stream().filter(op -> op.isClient() && op.type() == OpType.INFO).count();
        return "operations: " + ok + " ok, " + fail + " fail, " + info + " info";
    }
}
