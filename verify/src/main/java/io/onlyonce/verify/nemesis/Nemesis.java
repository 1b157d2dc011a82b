package io.onlyonce.verify.nemesis;

import io.onlyonce.verify.history.HistoryWriter;
import io.onlyonce.verify.history.OpType;
import io.onlyonce.verify.run.Cluster;
import io.onlyonce.verify.run.Console;
import io.onlyonce.verify.topology.JavaService;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Works through the schedule while the workload runs: strikes each fault (a {@code start} event),
 * holds it, heals it (a {@code stop} event once the part is back), waits the gap. Stops starting
 * faults at the deadline; a fault in progress is always healed.
 */
public final class Nemesis implements Runnable {

    private final Cluster cluster;
    private final HistoryWriter history;
    private final List<Fault> schedule;
    private final long deadlineNanos;
    private final long quietMs;
    private final Map<FaultKind, Integer> struck = new EnumMap<>(FaultKind.class);
    private volatile Throwable failure;

    public Nemesis(Cluster cluster, HistoryWriter history, List<Fault> schedule, long deadlineNanos, long quietMs) {
        this.cluster = cluster;
        this.history = history;
        this.schedule = List.copyOf(schedule);
        this.deadlineNanos = deadlineNanos;
        this.quietMs = quietMs;
    }

    @Override
    public void run() {
        try {
            Thread.sleep(quietMs);
            for (Fault fault : schedule) {
                if (System.nanoTime() >= deadlineNanos || Thread.currentThread().isInterrupted()) {
                    break;
                }
                strike(fault);
                struck.merge(fault.kind(), 1, Integer::sum);
                Thread.sleep(fault.gapMs());
            }
        } catch (InterruptedException stop) {
            Thread.currentThread().interrupt();
        } catch (Throwable t) {
            failure = t;
            Console.say("nemesis failed: " + t);
        }
    }

    /** The faults that struck, by kind. */
    public synchronized Map<FaultKind, Integer> struck() {
        return Map.copyOf(struck);
    }

    /** Why the nemesis stopped early (a part that did not come back), or null. */
    public Throwable failure() {
        return failure;
    }

    private void event(FaultKind kind, String phase, String target, String detail) {
        Map<String, Object> value = new LinkedHashMap<>();
        value.put("phase", phase);
        value.put("target", target);
        if (detail != null) {
            value.put("detail", detail);
        }
        history.record("nemesis", OpType.INFO, kind.wire(), value);
        Console.say("nemesis " + kind.wire() + " " + phase + " " + target + (detail == null ? "" : " (" + detail + ")"));
    }

    private void strike(Fault fault) throws Exception {
        FaultKind kind = fault.kind();
        String target = fault.target();
        switch (kind) {
            case KILL -> {
                JavaService instance = instance(target);
                event(kind, "start", target, "kill -9");
                instance.kill9();
                Thread.sleep(fault.holdMs());
                instance.start(instance.clockOffset());
                event(kind, "stop", target, "started again");
            }
            case KILL_AFTER_COMMIT -> killAfterCommit(fault);
            case PAUSE -> {
                JavaService instance = instance(target);
                event(kind, "start", target, "SIGSTOP for " + fault.holdMs() + " ms (lease " + Cluster.LEASE.toMillis() + " ms)");
                instance.pause();
                try {
                    Thread.sleep(fault.holdMs());
                } finally {
                    instance.resume();
                }
                event(kind, "stop", target, "SIGCONT");
            }
            case REDIS_RESTART -> {
                event(kind, "start", target, "kill -9, started again empty");
                cluster.redis().restartEmpty();
                event(kind, "stop", target, "back, empty");
            }
            case REDIS_PAUSE -> {
                event(kind, "start", target, "SIGSTOP for " + fault.holdMs() + " ms");
                cluster.redis().pause();
                try {
                    Thread.sleep(fault.holdMs());
                } finally {
                    cluster.redis().resume();
                }
                event(kind, "stop", target, "SIGCONT");
            }
            case POSTGRES_RESTART -> {
                event(kind, "start", target, "pg_ctl stop -m fast");
                cluster.postgres().stop();
                Thread.sleep(fault.holdMs());
                cluster.postgres().startAgain();
                event(kind, "stop", target, "started again");
            }
            case RABBIT_RESTART -> {
                event(kind, "start", target, "rabbitmqctl stop");
                cluster.rabbit().stop();
                Thread.sleep(fault.holdMs());
                cluster.rabbit().startAgain();
                event(kind, "stop", target, "started again");
            }
            case RELAY_REPUBLISH -> {
                int rows = republish();
                event(kind, "start", target, rows + " sent rows set back to unsent");
                event(kind, "stop", target, null);
            }
            case REDIS_PARTITION -> {
                event(kind, "start", target, "the proxy to Redis drops every connection");
                cluster.redisProxy().cut();
                try {
                    Thread.sleep(fault.holdMs());
                } finally {
                    cluster.redisProxy().restore();
                }
                event(kind, "stop", target, "connections let through again");
            }
            case CLOCK_SKEW -> {
                JavaService skewed = cluster.skewed();
                event(kind, "start", target, "its requests go to seckill-3, whose clock runs " + Cluster.SKEW.toMinutes() + " min ahead");
                cluster.secondFront().retarget(skewed.port());
                try {
                    Thread.sleep(fault.holdMs());
                } finally {
                    cluster.secondFront().retarget(cluster.instance(2).port());
                }
                event(kind, "stop", target, "its requests go to seckill-2 again");
            }
        }
    }

    /** Waits for a new order row, then kills the instance whose TSID node wrote its number. */
    private void killAfterCommit(Fault fault) throws Exception {
        String fresh = null;
        long seen = 0;
        // one connection for the whole watch: a poll is one indexed query, every 5 ms
        try (Connection db = cluster.database(); Statement sql = db.createStatement()) {
            String last = latestOrder(sql);
            long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (System.nanoTime() < until) {
                String now = latestOrder(sql);
                if (now != null && !now.equals(last)) {
                    fresh = now;
                    seen = System.nanoTime();
                    break;
                }
                Thread.sleep(5);
            }
        } catch (java.sql.SQLException down) {
            // the database is unreachable: kill the scheduled target
        }
        JavaService instance = fresh == null ? instance(fault.target()) : cluster.instance(Tsids.node(fresh));
        String target = instance.name();
        instance.kill9();
        long afterMs = seen == 0 ? -1 : Duration.ofNanos(System.nanoTime() - seen).toMillis();
        event(FaultKind.KILL_AFTER_COMMIT, "start", target, fresh == null ? "no new order within 20 s: kill -9"
                : "kill -9 " + afterMs + " ms after order " + fresh + " was seen committed (polled every 5 ms)");
        Thread.sleep(fault.holdMs());
        instance.start(instance.clockOffset());
        event(FaultKind.KILL_AFTER_COMMIT, "stop", target, "started again");
    }

    private static String latestOrder(Statement sql) throws java.sql.SQLException {
        try (ResultSet row = sql.executeQuery("SELECT order_no FROM orders ORDER BY id DESC LIMIT 1")) {
            return row.next() ? row.getString(1) : null;
        }
    }

    private int republish() throws Exception {
        try (Connection db = cluster.database(); Statement sql = db.createStatement()) {
            return sql.executeUpdate("UPDATE onlyonce_message_log SET status = 'PREPARED', sent_at_ms = NULL,"
                    + " next_attempt_at_ms = (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT"
                    + " WHERE id IN (SELECT id FROM onlyonce_message_log WHERE status = 'SUCCESS' ORDER BY random() LIMIT 20)");
        }
    }

    private JavaService instance(String target) {
        return cluster.instance(target.endsWith("1") ? 1 : 2);
    }
}
