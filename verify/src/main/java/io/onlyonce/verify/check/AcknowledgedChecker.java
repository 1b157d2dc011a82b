package io.onlyonce.verify.check;

import io.onlyonce.verify.history.History;
import io.onlyonce.verify.history.Op;
import io.onlyonce.verify.history.OpType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Every intent answered 2xx has its effect in the final read: the order answered, with that business
 * id, amount and user; the reservation answered, ordered once or failed without an order (lost only
 * after a Redis restart); the order a synchronous purchase answered, stored once; the payment
 * answered paid, recorded and the order paid; a repeat answered, its payment recorded; the refund
 * answered, recorded; the cancel answered, the order cancelled. More than one order for one business
 * id is {@code at-most-once}'s finding, not this one's; a reservation still QUEUED is counted and left
 * to {@code liveness}, one missing or unreadable is lost. A cancel answered 2xx with an
 * {@code orderStatus} other than CANCELLED did not cancel and is only counted.
 */
public final class AcknowledgedChecker implements Checker {

    static final String NAME = "acknowledged";

    /** The nemesis kind that empties Redis, after which a fast-path reservation may be lost. */
    static final String REDIS_RESTART = "redis-restart";

    /** The reason of a reservation the fast path lost. */
    static final String RESERVATION_LOST = "reservation-lost";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public CheckResult check(History history) {
        Findings out = new Findings(NAME, "every intent answered 2xx has its effect in the final read");
        Optional<Op> read = history.finalRead();
        if (read.isEmpty()) {
            return out.noFinalRead();
        }
        FinalRead fin = new FinalRead(read.get());
        orders(history, fin, out);
        purchases(history, fin, out);
        payments(history, fin, out);
        cancels(history, fin, out);
        return out.result();
    }

    private static void orders(History history, FinalRead fin, Findings out) {
        out.count("orderKeys", 0);
        Attempt.byIntent(history, "order", "key").forEach((key, attempts) -> {
            List<Op> oks = Attempt.oks(attempts);
            if (oks.isEmpty()) {
                return;
            }
            out.inc("orderKeys");
            List<Map<String, Object>> stored = fin.orders(key);
            if (stored.isEmpty()) {
                out.anomaly("lost-acknowledged", key, "order key " + key + " was answered " + oks.size()
                        + " time(s) with order " + oks.get(0).str("orderNo") + " but no order has that business id", with(oks, fin));
                return;
            }
            List<Op> other = new ArrayList<>();
            List<String> why = new ArrayList<>();
            for (Op ok : oks) {
                String orderNo = Values.text(ok, "orderNo");
                Map<String, Object> row = stored.stream().filter(r -> Objects.equals(Values.text(r, "orderNo"), orderNo))
                        .findFirst().orElse(null);
                if (row == null) {
                    other.add(ok);
                    why.add(ok.index() + ": order " + orderNo + " but the order stored with that business id is "
                            + Values.text(stored.get(0), "orderNo"));
                    continue;
                }
                Object amount = ok.value().get("amount");
                if (amount != null && !Values.sameAmount(amount, row.get("amount"))) {
                    other.add(ok);
                    why.add(ok.index() + ": amount " + amount + " but order " + orderNo + " is stored with amount "
                            + row.get("amount"));
                } else if (!Objects.equals(Values.text(ok, "userId"), Values.text(row, "userId"))) {
                    other.add(ok);
                    why.add(ok.index() + ": user " + Values.text(ok, "userId") + " but order " + orderNo
                            + " is stored with userId " + Values.text(row, "userId"));
                }
            }
            if (!other.isEmpty()) {
                out.anomaly("acknowledged-other-order", key, "order key " + key + " was answered with another order than the "
                        + "one stored: " + String.join("; ", why), with(other, fin));
            }
        });
    }

    private static void purchases(History history, FinalRead fin, Findings out) {
        Map<String, List<Op>> byReservation = new LinkedHashMap<>();
        Map<String, String> tokenOf = new LinkedHashMap<>();
        Map<String, Map<String, List<Op>>> byOrderNo = new LinkedHashMap<>();
        Attempt.byIntent(history, "purchase", "token").forEach((token, attempts) -> {
            // a token used again is refused 409 duplicate-submission with its first answer: that answer acknowledges too
            for (Attempt a : attempts) {
                Op refused = a.completion();
                String first = refused == null || refused.type() != OpType.FAIL ? null : Values.text(refused, "firstReservationId");
                if (first != null) {
                    byReservation.computeIfAbsent(first, k -> new ArrayList<>()).add(refused);
                    tokenOf.putIfAbsent(first, token);
                }
            }
            for (Op ok : Attempt.oks(attempts)) {
                String rid = Values.text(ok, "reservationId");
                String orderNo = Values.text(ok, "orderNo");
                if (rid != null) {
                    byReservation.computeIfAbsent(rid, k -> new ArrayList<>()).add(ok);
                    tokenOf.putIfAbsent(rid, token);
                } else if (orderNo != null) {
                    byOrderNo.computeIfAbsent(token, k -> new LinkedHashMap<>()).computeIfAbsent(orderNo, k -> new ArrayList<>()).add(ok);
                }
            }
        });
        out.count("reservations", byReservation.size()).count("reservationsOrdered", 0).count("reservationsQueued", 0)
                .count("reservationsAbsent", 0).count("reservationsLostWithRedis", 0);
        List<Long> redisRestarts = new ArrayList<>();
        for (Op event : history.nemesis()) {
            if (REDIS_RESTART.equals(event.f()) && "start".equals(event.str("phase"))) {
                redisRestarts.add(event.index());
            }
        }
        byReservation.forEach((rid, oks) -> {
            String token = tokenOf.get(rid);
            Map<String, Object> row = fin.reservation(rid);
            String status = row == null ? null : Values.text(row, "status");
            List<Map<String, Object>> orders = fin.orders(FinalRead.reservationBusinessId(rid));
            if ("ORDERED".equals(status)) {
                out.inc("reservationsOrdered");
                if (orders.isEmpty()) {
                    out.anomaly("lost-acknowledged", token, "reservation " + rid + " of token " + token
                            + " is ORDERED but no order has business id rsv_" + rid, with(oks, fin));
                }
            } else if ("FAILED".equals(status)) {
                String reason = Values.text(row, "reason");
                out.inc("reservationsFailed." + (reason == null ? "unknown" : reason));
                if (!orders.isEmpty()) {
                    out.anomaly("failed-reservation-ordered", token, "reservation " + rid + " of token " + token
                            + " FAILED (" + reason + ") yet order " + Values.text(orders.get(0), "orderNo") + " was made from it",
                            with(oks, fin));
                } else if (RESERVATION_LOST.equals(reason)) {
                    long answered = oks.get(0).index();
                    if (redisRestarts.stream().anyMatch(i -> i > answered && i < fin.index())) {
                        out.inc("reservationsLostWithRedis");
                    } else {
                        out.anomaly("lost-acknowledged", token, "reservation " + rid + " of token " + token + " was answered 202"
                                + " and then FAILED as " + RESERVATION_LOST + " without a Redis restart after the answer",
                                with(oks, fin));
                    }
                }
            } else if ("QUEUED".equals(status)) {
                out.inc("reservationsQueued");
            } else {
                out.inc("reservationsAbsent");
                out.anomaly("lost-acknowledged", token, "reservation " + rid + " of token " + token + " was answered 202 but "
                        + (row == null ? "is missing from the final read" : "reads as " + status), with(oks, fin));
            }
        });
        out.count("purchaseOrders", 0);
        byOrderNo.forEach((token, answers) -> answers.forEach((orderNo, oks) -> {
            out.inc("purchaseOrders");
            int stored = fin.ordersNumbered(orderNo);
            if (stored != 1) {
                out.anomaly("lost-acknowledged", token, "token " + token + " was answered with order " + orderNo + " but the final "
                        + "read holds " + stored + " orders with that number", with(oks, fin));
            }
        }));
    }

    private static void payments(History history, FinalRead fin, Findings out) {
        out.count("payments", 0);
        for (Op ok : history.completions("pay")) {
            if (ok.type() != OpType.OK) {
                continue;
            }
            out.inc("payments");
            String tradeNo = Values.text(ok, "tradeNo");
            String result = Values.text(ok, "result");
            out.inc("payments." + (result == null ? "unknown" : result));
            List<Map<String, Object>> recorded = fin.payments(tradeNo);
            if ("PAID".equals(result)) {
                boolean paymentRow = recorded.stream().anyMatch(p -> "PAID".equals(Values.text(p, "outcome")));
                Map<String, Object> order = fin.order(Values.text(ok, "orderNo"));
                if (!paymentRow) {
                    out.anomaly("lost-acknowledged", tradeNo, "payment " + tradeNo + " was answered PAID but no PAID payment "
                            + "is recorded with that trade number", with(List.of(ok), fin));
                } else if (order == null || !Values.paid(order)) {
                    out.anomaly("lost-acknowledged", tradeNo, "payment " + tradeNo + " was answered PAID but order "
                            + ok.str("orderNo") + " is " + (order == null ? "missing" : Values.text(order, "status")),
                            with(List.of(ok), fin));
                }
            } else if ("REPEATED".equals(result)) {
                if (recorded.isEmpty()) {
                    out.anomaly("lost-acknowledged", tradeNo, "payment " + tradeNo + " was answered REPEATED but no payment "
                            + "is recorded with that trade number", with(List.of(ok), fin));
                }
            } else if ("REFUND".equals(result) || "CANCELLED".equals(result)) {
                if (fin.refunds(tradeNo).isEmpty()) {
                    out.anomaly("lost-acknowledged", tradeNo, "payment " + tradeNo + " was answered " + result
                            + " but no refund has that trade number", with(List.of(ok), fin));
                }
            }
        }
    }

    private static void cancels(History history, FinalRead fin, Findings out) {
        out.count("cancels", 0);
        for (Op ok : history.completions("cancel")) {
            if (ok.type() != OpType.OK) {
                continue;
            }
            String answered = Values.text(ok, "orderStatus");
            if (answered != null && !"CANCELLED".equals(answered)) {
                out.inc("cancelsNotCancelling");
                continue;
            }
            out.inc("cancels");
            String orderNo = Values.text(ok, "orderNo");
            Map<String, Object> order = fin.order(orderNo);
            if (order == null || !"CANCELLED".equals(Values.text(order, "status"))) {
                out.anomaly("lost-acknowledged", orderNo, "order " + orderNo + " was answered cancelled but is "
                        + (order == null ? "missing" : Values.text(order, "status")), with(List.of(ok), fin));
            }
        }
    }

    private static List<Long> with(List<Op> ops, FinalRead fin) {
        List<Long> out = new ArrayList<>(Values.indexes(ops));
        out.add(fin.index());
        return out;
    }
}
