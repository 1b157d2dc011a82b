package io.onlyonce.verify.check;

import io.onlyonce.verify.history.History;
import io.onlyonce.verify.history.Op;
import io.onlyonce.verify.history.OpType;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * Every 2xx for one order key carries the same order number and amount, every 2xx for one purchase
 * token the same reservation (or, on the synchronous path, the same order), and at most one of them is
 * not marked replayed (a second one answered as new is a second execution); every 2xx for one trade
 * number names the same order and outcome. Needs no final read.
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
            // the 2xx answers and the first answers that 409 duplicate-submission refusals carry
            List<Op> answers = new ArrayList<>(oks);
            for (Attempt a : attempts) {
                if (a.completion() != null && !a.ok() && (Values.text(a.completion(), "firstReservationId") != null
                        || Values.text(a.completion(), "firstOrderNo") != null)) {
                    answers.add(a.completion());
                }
            }
            Op first = oks.get(0);
            if (answers.stream().anyMatch(ok -> !Objects.equals(purchaseResult(ok), purchaseResult(first)))) {
                out.anomaly("replay-differs", token, "token " + token + " was answered with different results: "
                        + describe(answers, ReplayChecker::purchaseResult), Values.indexes(answers));
            }
            unmarked(out, "token", token, oks, "purchaseReplays");
        });
        out.count("tradeNos", 0).count("payOks", 0).count("payReplays", 0);
        Attempt.byIntent(history, "pay", "tradeNo").forEach((tradeNo, attempts) -> {
            List<Op> oks = Attempt.oks(attempts);
            if (oks.isEmpty()) {
                return;
            }
            out.inc("tradeNos").add("payOks", oks.size());
            oks.stream().filter(ok -> "REPEATED".equals(Values.text(ok, "result"))).forEach(ok -> out.inc("payReplays"));
            Op first = oks.get(0);
            if (oks.stream().anyMatch(ok -> !Objects.equals(Values.text(ok, "orderNo"), Values.text(first, "orderNo"))
                    || !Objects.equals(Values.text(ok, "outcome"), Values.text(first, "outcome")))) {
                out.anomaly("replay-differs", tradeNo, "payment " + tradeNo + " was answered with different orders or outcomes: "
                        + describe(oks, ok -> ok.str("orderNo") + " " + ok.str("outcome")), Values.indexes(oks));
            }
        });
        return out.result();
    }

    /** What a purchase was answered with: its reservation, or on the synchronous path its order. */
    private static String purchaseResult(Op answer) {
        if (answer.type() != OpType.OK) {
            String rid = Values.text(answer, "firstReservationId");
            return rid != null ? rid : Values.text(answer, "firstOrderNo");
        }
        String rid = Values.text(answer, "reservationId");
        return rid != null ? rid : Values.text(answer, "orderNo");
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
        return describe(oks, ok -> ok.str(a) + (b == null ? "" : " " + ok.str(b)));
    }

    private static String describe(List<Op> oks, Function<Op, String> answer) {
        List<String> parts = new ArrayList<>();
        for (Op ok : oks) {
            parts.add(ok.index() + ": " + answer.apply(ok));
        }
        return String.join(", ", parts);
    }
}
