package io.onlyonce.verify.check;

import io.onlyonce.verify.history.History;
import io.onlyonce.verify.history.Op;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A key retried with another body (productId, quantity) never makes a second effect, a 2xx to an
 * altered body means that body is the one stored, and the order stored under a key has the body of
 * one of that key's attempts. The first rule needs no final read and runs without one.
 */
public final class FingerprintChecker implements Checker {

    static final String NAME = "fingerprint";

    /** What an order request asks for; the idempotency fingerprint covers it. */
    record Body(String productId, long quantity) {

        static Body of(Op op) {
            return new Body(Values.text(op, "productId"), Values.number(op.value(), "quantity", 1));
        }

        static Body of(Map<String, Object> row) {
            return new Body(Values.text(row, "productId"), Values.number(row, "quantity", 1));
        }

        @Override
        public String toString() {
            return "product " + productId + " x " + quantity;
        }
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public CheckResult check(History history) {
        Findings out = new Findings(NAME, "a key retried with another body never makes a second effect; the order stored is the body that took effect");
        Optional<Op> read = history.finalRead();
        FinalRead fin = read.map(FinalRead::new).orElse(null);
        out.count("keys", 0).count("alteredAttempts", 0).count("alteredRefused", 0).count("alteredAccepted", 0)
                .count("alteredUnknown", 0);
        Attempt.byIntent(history, "order", "key").forEach((key, attempts) -> {
            out.inc("keys");
            Set<Body> executed = new LinkedHashSet<>();
            List<Op> fresh = new ArrayList<>();
            Set<Body> tried = new LinkedHashSet<>();
            for (Attempt a : attempts) {
                tried.add(Body.of(a.invocation()));
                if (a.invocation().bool("altered")) {
                    out.inc("alteredAttempts").inc(a.ok() ? "alteredAccepted" : a.failed() ? "alteredRefused" : "alteredUnknown");
                }
                if (a.ok() && !a.completion().bool("replayed")) {
                    executed.add(Body.of(a.invocation()));
                    fresh.add(a.completion());
                }
            }
            if (executed.size() > 1) {
                out.anomaly("fingerprint-bypass", key, "order key " + key + " was executed with " + executed.size()
                        + " different bodies " + executed, Values.indexes(fresh));
            }
            if (fin == null) {
                return;
            }
            List<Map<String, Object>> stored = fin.orders(key);
            if (stored.isEmpty()) {
                return;
            }
            for (Attempt a : attempts) {
                if (!a.ok() || !a.invocation().bool("altered")) {
                    continue;
                }
                Map<String, Object> order = answered(stored, a.completion());
                Body asked = Body.of(a.invocation());
                if (!Body.of(order).equals(asked)) {
                    out.anomaly("altered-body-accepted", key, "order key " + key + " was answered 2xx for the altered body "
                            + asked + " but the order stored is " + Body.of(order), List.of(a.invocation().index(),
                            a.completion().index(), fin.index()));
                }
            }
            for (Map<String, Object> order : stored) {
                if (!tried.contains(Body.of(order))) {
                    List<Long> ops = new ArrayList<>();
                    for (Attempt a : attempts) {
                        ops.add(a.invocation().index());
                    }
                    ops.add(fin.index());
                    out.anomaly("body-mismatch", key, "order " + Values.text(order, "orderNo") + " stored for key " + key
                            + " is " + Body.of(order) + ", the body of none of its attempts " + tried, ops);
                }
            }
        });
        if (fin == null) {
            return out.noFinalRead();
        }
        return out.result();
    }

    /** The stored order a completion names, else the first stored for its key. */
    private static Map<String, Object> answered(List<Map<String, Object>> stored, Op completion) {
        String orderNo = Values.text(completion, "orderNo");
        for (Map<String, Object> row : stored) {
            if (Objects.equals(Values.text(row, "orderNo"), orderNo)) {
                return row;
            }
        }
        return stored.get(0);
    }
}
