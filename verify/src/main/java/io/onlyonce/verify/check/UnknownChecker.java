package io.onlyonce.verify.check;

import io.onlyonce.verify.history.History;
import io.onlyonce.verify.history.Op;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.ToIntFunction;

/**
 * Intents (order keys, purchase tokens, payment trade numbers) none of whose attempts was answered
 * 2xx, resolved by the final read: counted as applied (one effect) or not applied (none), and more
 * than one effect is {@code applied-twice}; an intent every attempt of which was definitely refused
 * must have no effect ({@code refused-but-applied}).
 * An intent with an unknown attempt and a later 2xx is counted as converged (whether the stored
 * order agrees is {@code acknowledged}'s finding). The effect of an order key is an order with that
 * business id, of a trade number a payment row with it. A purchase token that was never answered 2xx
 * has no reservation id, so its effect is only decidable when its user has no other token in that
 * sale: then it is the orders of that user in that sale; other such tokens are counted as
 * {@code tokensUndecided} and not checked.
 */
public final class UnknownChecker implements Checker {

    static final String NAME = "unknown";

    /** The problems of a refusal that does not say the intent had no effect. */
    static final Set<String> INDEFINITE = Set.of("idempotency-request-in-progress", "order-exists", "live-order-exists", "order-conflict");

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public CheckResult check(History history) {
        Findings out = new Findings(NAME, "every intent never answered 2xx is resolved by the final read: one effect or none");
        Optional<Op> read = history.finalRead();
        if (read.isEmpty()) {
            return out.noFinalRead();
        }
        FinalRead fin = new FinalRead(read.get());
        for (String c : List.of("intents", "unknown", "unknownApplied", "unknownNotApplied", "unknownAppliedMoreThanOnce",
                "refused", "refusedIndefinite", "convergedAfterUnknown", "tokensUndecided")) {
            out.count(c, 0);
        }

        Map<String, List<Attempt>> keys = Attempt.byIntent(history, "order", "key");
        out.count("orderKeys", keys.size());
        keys.forEach((key, attempts) -> resolve(out, fin, "order key", key, attempts, k -> fin.orders(k).size()));

        Map<String, List<Attempt>> tokens = Attempt.byIntent(history, "purchase", "token");
        out.count("tokens", tokens.size());
        Map<String, Set<String>> tokensOfUserSale = new HashMap<>();
        tokens.forEach((token, attempts) -> tokensOfUserSale.computeIfAbsent(userSale(attempts.get(0).invocation()),
                k -> new HashSet<>()).add(token));
        Map<String, Integer> ordersOfUserSale = new HashMap<>();
        for (Map<String, Object> row : fin.rows("orders")) {
            if (row.get("activityId") != null) {
                ordersOfUserSale.merge(Values.text(row, "userId") + "\u0000" + Values.text(row, "activityId"), 1, Integer::sum);
            }
        }
        tokens.forEach((token, attempts) -> {
            String pair = userSale(attempts.get(0).invocation());
            if (Attempt.oks(attempts).isEmpty() && tokensOfUserSale.get(pair).size() > 1) {
                out.inc("tokensUndecided");
                return;
            }
            resolve(out, fin, "token", token, attempts, t -> ordersOfUserSale.getOrDefault(pair, 0));
        });

        Map<String, List<Attempt>> trades = Attempt.byIntent(history, "pay", "tradeNo");
        out.count("tradeNos", trades.size());
        trades.forEach((tradeNo, attempts) -> resolve(out, fin, "payment", tradeNo, attempts, t -> fin.payments(t).size()));
        return out.result();
    }

    private static void resolve(Findings out, FinalRead fin, String what, String intent, List<Attempt> attempts,
            ToIntFunction<String> effects) {
        out.inc("intents");
        long firstOk = Long.MAX_VALUE;
        long firstUnknown = Long.MAX_VALUE;
        boolean unknown = false;
        for (Attempt a : attempts) {
            if (a.ok()) {
                firstOk = Math.min(firstOk, a.completion().index());
            } else if (a.unknown()) {
                unknown = true;
                if (a.completion() != null) {
                    firstUnknown = Math.min(firstUnknown, a.completion().index());
                }
            }
        }
        if (firstOk != Long.MAX_VALUE) {
            if (firstUnknown < firstOk) {
                out.inc("convergedAfterUnknown");
            }
            return;
        }
        int n = effects.applyAsInt(intent);
        if (unknown) {
            out.inc("unknown").inc(n == 0 ? "unknownNotApplied" : n == 1 ? "unknownApplied" : "unknownAppliedMoreThanOnce");
            if (n > 1) {
                List<Long> ops = new ArrayList<>();
                for (Attempt a : attempts) {
                    ops.add(a.last().index());
                }
                ops.add(fin.index());
                out.anomaly("applied-twice", intent, what + " " + intent + " was never answered 2xx yet the final read holds "
                        + n + " effects of it", ops);
            }
            return;
        }
        out.inc("refused");
        List<Op> fails = Attempt.completions(attempts);
        boolean definite = fails.stream().noneMatch(f -> INDEFINITE.contains(f.str("problem")));
        if (!definite) {
            out.inc("refusedIndefinite");
            return;
        }
        if (n > 0) {
            List<Long> ops = new ArrayList<>(Values.indexes(fails));
            ops.add(fin.index());
            out.anomaly("refused-but-applied", intent, what + " " + intent + " was refused every time ("
                    + String.join(", ", fails.stream().map(f -> String.valueOf(f.str("problem"))).toList())
                    + ") yet the final read holds " + n + " effect(s) of it", ops);
        }
    }

    private static String userSale(Op invocation) {
        return Values.text(invocation, "userId") + "\u0000" + Values.text(invocation, "activity");
    }
}
