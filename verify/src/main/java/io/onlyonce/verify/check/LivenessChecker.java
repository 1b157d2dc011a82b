package io.onlyonce.verify.check;

import io.onlyonce.verify.history.History;
import io.onlyonce.verify.history.Op;
import io.onlyonce.verify.history.OpType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Once the faults stopped the system drained: no idempotency record in progress past its lease plus
 * a grace of {@value #GRACE_MS} ms, nor an order key refused as in progress more than its lease plus
 * {@value #HISTORY_GRACE_MS} ms after its first attempt, the queues empty, no reservation left QUEUED, every outbox row
 * sent, and the drain finished before its timeout.
 */
public final class LivenessChecker implements Checker {

    static final String NAME = "liveness";

    /** How long past its lease a record may still be in progress (a takeover is not instant). */
    static final long GRACE_MS = 30_000;

    /** How long past its lease, counted from a key's first attempt, a client may still be told it is in progress. */
    static final long HISTORY_GRACE_MS = 10_000;

    /** The problem of a refusal because the key's record is in progress. */
    static final String IN_PROGRESS = "idempotency-request-in-progress";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public CheckResult check(History history) {
        Findings out = new Findings(NAME, "no record in progress past its lease; queues drained; no reservation QUEUED; the drain finished");
        Optional<Op> read = history.finalRead();
        if (read.isEmpty()) {
            return out.noFinalRead();
        }
        FinalRead fin = new FinalRead(read.get());
        List<Long> at = List.of(fin.index());

        List<Map<String, Object>> inProgress = fin.rows("inProgress");
        out.count("inProgress", inProgress.size());
        Optional<Op> setup = history.setup();
        long lease = setup.map(s -> Values.number(s.value(), "leaseMs", -1)).orElse(-1L);
        if (setup.isEmpty()) {
            out.noSetup();
        } else if (lease >= 0) {
            for (Map<String, Object> row : inProgress) {
                long age = Values.number(row, "ageMs", 0);
                if (age > lease + GRACE_MS) {
                    String key = Values.text(row, "key");
                    out.anomaly("stuck-in-progress", key, "idempotency record " + key + " is still in progress after " + age
                            + " ms (lease " + lease + " ms + " + GRACE_MS + " ms)", at);
                }
            }
        }

        if (lease >= 0) {
            refusedInProgress(history, lease, out);
        }

        List<Map<String, Object>> queues = fin.rows("queues");
        out.count("queues", queues.size());
        for (Map<String, Object> row : queues) {
            long messages = Values.number(row, "messages", 0);
            if (messages > 0) {
                String name = Values.text(row, "name");
                out.anomaly("queue-not-drained", name, "queue " + name + " still holds " + messages + " message(s)", at);
            }
        }

        Map<String, Op> answered = new HashMap<>();
        Map<String, List<Long>> answers = new HashMap<>();
        for (Op p : history.completions("purchase")) {
            String rid = Values.text(p, "reservationId");
            if (rid != null && p.type() == OpType.OK) {
                answered.putIfAbsent(rid, p);
                answers.computeIfAbsent(rid, k -> new ArrayList<>()).add(p.index());
            }
        }
        List<Map<String, Object>> reservations = fin.rows("reservations");
        out.count("reservations", reservations.size());
        for (Map<String, Object> row : reservations) {
            if ("QUEUED".equals(Values.text(row, "status"))) {
                String rid = Values.text(row, "reservationId");
                Op first = answered.get(rid);
                String subject = first == null ? rid : first.str("token");
                List<Long> ops = new ArrayList<>(answers.getOrDefault(rid, List.of()));
                ops.add(fin.index());
                out.anomaly("reservation-undecided", subject, "reservation " + rid + " is still QUEUED", ops);
            }
        }

        List<Map<String, Object>> outbox = fin.rows("outbox");
        out.count("outboxRows", outbox.size());
        for (Map<String, Object> row : outbox) {
            String status = Values.text(row, "status");
            if (!"SUCCESS".equals(status)) {
                String id = Values.text(row, "id");
                String orderNo = id != null && id.endsWith(MessagesChecker.SUFFIX)
                        ? id.substring(0, id.length() - MessagesChecker.SUFFIX.length()) : id;
                out.anomaly("outbox-not-drained", orderNo, "outbox row " + id + " is " + status + ", not sent", at);
            }
        }

        Object drained = fin.op().value().get("drained");
        if (fin.op().value().get("drainMs") != null) {
            out.count("drainMs", Values.number(fin.op().value(), "drainMs", 0));
        }
        if (!Boolean.TRUE.equals(drained) && !"true".equals(String.valueOf(drained))) {
            out.anomaly("not-drained", "drain", drained == null ? "the final read does not say whether the system drained"
                    : "the system did not drain before the timeout (" + fin.op().value().get("drainMs") + " ms)", at);
        }
        return out.result();
    }

    /**
     * An order key still refused as in progress more than the lease plus {@value #HISTORY_GRACE_MS} ms
     * after its first attempt was sent: its record was never taken over.
     */
    private static void refusedInProgress(History history, long lease, Findings out) {
        long limitNanos = (lease + HISTORY_GRACE_MS) * 1_000_000L;
        Attempt.byIntent(history, "order", "key").forEach((key, attempts) -> {
            Op first = attempts.get(0).invocation();
            for (Op done : Attempt.completions(attempts)) {
                if (done.type() == OpType.FAIL && IN_PROGRESS.equals(done.str("problem")) && done.time() - first.time() > limitNanos) {
                    out.anomaly("stuck-in-progress", key, "order key " + key + " was still refused as in progress "
                            + (done.time() - first.time()) / 1_000_000 + " ms after its first attempt (lease " + lease + " ms + "
                            + HISTORY_GRACE_MS + " ms)", List.of(first.index(), done.index()));
                    return;
                }
            }
        });
    }
}
