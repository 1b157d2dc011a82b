package io.onlyonce.verify.check;

import io.onlyonce.verify.history.History;
import io.onlyonce.verify.history.Op;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Every 2xx for one order key carries the same order number and amount, every 2xx for one purchase
 * token the same reservation, and at most one of them is not marked replayed (a second one answered
 * as new is a second execution). Needs no final read.
 */
public final class ReplayChecker implements Checker {

    static final String NAME = "replay";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public CheckResult check(History history) {
        Findings out = new Findings(NAME, "every 2xx for one key carries the same order; every 2xx after the first is marked replayed");
        out.count("orderKeys", 0).count("orderOks", 0).count("orderReplays", 0);
        Attempt.byIntent(history, "order", "key").forEach((key, attempts) -> {
            List<Op> oks = Attempt.oks(attempts);
            if (oks.isEmpty()) {
                return;
            }
            out.inc("orderKeys").add("orderOks", oks.size());
            Op first = oks.get(0);
            boolean differs = oks.stream().anyMatch(ok -> !Objects.equals(Values.text(ok, "orderNo"), Values.text(first, "orderNo"))
                    || !Values.sameAmount(ok.value().get("amount"), first.value().get("amount")));
            if (differs) {
                out.anomaly("replay-differs", key, "order key " + key + " was answered with different orders or amounts: "
                        + describe(oks, "orderNo", "amount"), Values.indexes(oks));
            }
            unmarked(out, "order key", key, oks, "orderReplays");
        });
        out.count("tokens", 0).count("purchaseOks", 0).count("purchaseReplays", 0);
        Attempt.byIntent(history, "purchase", "token").forEach((token, attempts) -> {
            List<Op> oks = Attempt.oks(attempts);
            if (oks.isEmpty()) {
                return;
            }
            out.inc("tokens").add("purchaseOks", oks.size());
            Op first = oks.get(0);
            if (oks.stream().anyMatch(ok -> !Objects.equals(Values.text(ok, "reservationId"), Values.text(first, "reservationId")))) {
                out.anomaly("replay-differs", token, "token " + token + " was answered with different reservations: "
                        + describe(oks, "reservationId", null), Values.indexes(oks));
            }
            unmarked(out, "token", token, oks, "purchaseReplays");
        });
        return out.result();
    }

    private static void unmarked(Findings out, String what, String subject, List<Op> oks, String replaysCount) {
        List<Op> fresh = new ArrayList<>();
        for (Op ok : oks) {
            if (ok.bool("replayed")) {
                out.inc(replaysCount);
            } else {
                fresh.add(ok);
            }
        }
        if (fresh.size() > 1) {
            out.anomaly("unmarked-replay", subject, what + " " + subject + " was answered " + fresh.size()
                    + " times as new (not replayed): it was executed more than once", Values.indexes(fresh));
        }
    }

    private static String describe(List<Op> oks, String a, String b) {
        List<String> parts = new ArrayList<>();
        for (Op ok : oks) {
            parts.add(ok.index() + ": " + ok.str(a) + (b == null ? "" : " " + ok.str(b)));
        }
        return String.join(", ", parts);
    }
}
