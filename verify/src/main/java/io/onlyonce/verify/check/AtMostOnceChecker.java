package io.onlyonce.verify.check;

import io.onlyonce.verify.history.History;
import io.onlyonce.verify.history.Op;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * At most one order per business id, at most one reservation per one-time token, and per user and
 * sale no more units in live orders than the sale allows each user ({@code over-sale-limit}'s subject
 * is the user id; its message names the sale).
 */
public final class AtMostOnceChecker implements Checker {

    static final String NAME = "at-most-once";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public CheckResult check(History history) {
        Findings out = new Findings(NAME, "at most one order per business id, one reservation per token, the sale's units per user");
        Optional<Op> read = history.finalRead();
        if (read.isEmpty()) {
            return out.noFinalRead();
        }
        FinalRead fin = new FinalRead(read.get());
        Map<String, List<Attempt>> orderKeys = Attempt.byIntent(history, "order", "key");
        Map<String, List<Attempt>> tokens = Attempt.byIntent(history, "purchase", "token");

        // The ok purchases by reservation id, so an rsv_ business id can point at the answers that named it.
        Map<String, List<Op>> purchasesByReservation = new HashMap<>();
        Map<String, List<Op>> purchasesByUserSale = new HashMap<>();
        for (List<Attempt> attempts : tokens.values()) {
            for (Op ok : Attempt.oks(attempts)) {
                String rid = Values.text(ok, "reservationId");
                if (rid != null) {
                    purchasesByReservation.computeIfAbsent(rid, k -> new ArrayList<>()).add(ok);
                }
                purchasesByUserSale.computeIfAbsent(userSale(Values.text(ok, "userId"), Values.text(ok, "activity")),
                        k -> new ArrayList<>()).add(ok);
            }
        }

        Map<String, Integer> perBusinessId = new LinkedHashMap<>();
        for (Map<String, Object> row : fin.rows("orders")) {
            perBusinessId.merge(Values.text(row, "businessId"), 1, Integer::sum);
        }
        out.count("orders", fin.rows("orders").size()).count("businessIds", perBusinessId.size());
        perBusinessId.forEach((businessId, n) -> {
            if (n <= 1) {
                return;
            }
            List<Long> ops = new ArrayList<>();
            List<Attempt> attempts = orderKeys.get(businessId);
            if (attempts != null) {
                ops.addAll(Values.indexes(Attempt.completions(attempts)));
            }
            if (businessId != null && businessId.startsWith("rsv_")) {
                ops.addAll(Values.indexes(purchasesByReservation.getOrDefault(businessId.substring(4), List.of())));
            }
            ops.add(fin.index());
            out.anomaly("duplicate-effect", businessId, n + " orders are stored with business id " + businessId, ops);
        });

        out.count("tokens", tokens.size());
        tokens.forEach((token, attempts) -> {
            List<Op> oks = Attempt.oks(attempts);
            Set<String> reservations = new LinkedHashSet<>();
            for (Op ok : oks) {
                String rid = Values.text(ok, "reservationId");
                if (rid != null) {
                    reservations.add(rid);
                }
            }
            if (reservations.size() > 1) {
                out.anomaly("token-reused", token, "token " + token + " was answered with " + reservations.size()
                        + " reservations " + reservations, Values.indexes(oks));
            }
        });

        Optional<Op> setup = history.setup();
        if (setup.isEmpty()) {
            out.noSetup();
            return out.result();
        }
        Map<String, Long> limits = new HashMap<>();
        for (Map<String, Object> activity : setup.get().rows("activities")) {
            long max = Values.number(activity, "maxUnitsPerUser", -1);
            if (max >= 0) {
                limits.put(Values.text(activity, "id"), max);
            }
        }
        Map<String, Long> units = new LinkedHashMap<>();
        for (Map<String, Object> row : fin.rows("orders")) {
            String activity = Values.text(row, "activityId");
            if (activity != null && Values.live(row)) {
                units.merge(userSale(Values.text(row, "userId"), activity), Values.number(row, "quantity", 1), Long::sum);
            }
        }
        out.count("userSales", units.size());
        units.forEach((pair, n) -> {
            String[] parts = pair.split("\u0000", 2);
            Long max = limits.get(parts[1]);
            if (max != null && n > max) {
                List<Long> ops = new ArrayList<>(Values.indexes(purchasesByUserSale.getOrDefault(pair, List.of())));
                ops.add(fin.index());
                out.anomaly("over-sale-limit", parts[0], "user " + parts[0] + " holds " + n + " units of activity " + parts[1]
                        + " in live orders, more than its " + max + " per user", ops);
            }
        });
        return out.result();
    }

    private static String userSale(String userId, String activityId) {
        return userId + "\u0000" + activityId;
    }
}
