package io.onlyonce.verify.check;

import io.onlyonce.verify.history.History;
import io.onlyonce.verify.history.Op;
import io.onlyonce.verify.history.OpType;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every paid order has its outbox row ({@code <orderNo>_paid}) and it was sent, no outbox row is of an
 * order not paid, and every consumer applied each message once: a user's points are the sum of their
 * paid orders, one shipment per paid order and none for the others, no inbox entry twice.
 */
public final class MessagesChecker implements Checker {

    static final String NAME = "messages";

    static final String SUFFIX = "_paid";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public CheckResult check(History history) {
        Findings out = new Findings(NAME, "every paid order has one outbox row, sent; every consumer effect once");
        Optional<Op> read = history.finalRead();
        if (read.isEmpty()) {
            return out.noFinalRead();
        }
        FinalRead fin = new FinalRead(read.get());
        Map<String, List<Long>> paysOf = new HashMap<>();
        for (Op pay : history.completions("pay")) {
            if (pay.type() == OpType.OK) {
                paysOf.computeIfAbsent(Values.text(pay, "orderNo"), k -> new ArrayList<>()).add(pay.index());
            }
        }

        Map<String, Map<String, Object>> outbox = new HashMap<>();
        for (Map<String, Object> row : fin.rows("outbox")) {
            outbox.putIfAbsent(Values.text(row, "id"), row);
        }
        Map<String, Integer> shipments = new LinkedHashMap<>();
        for (Map<String, Object> row : fin.rows("shipments")) {
            shipments.merge(Values.text(row, "orderNo"), 1, Integer::sum);
        }
        Map<String, BigDecimal> paidPerUser = new HashMap<>();
        long paidOrders = 0;
        for (Map<String, Object> order : fin.rows("orders")) {
            if (!Values.paid(order)) {
                continue;
            }
            paidOrders++;
            String orderNo = Values.text(order, "orderNo");
            BigDecimal amount = Values.amount(order.get("amount"));
            paidPerUser.merge(Values.text(order, "userId"), amount == null ? BigDecimal.ZERO : amount, BigDecimal::add);
            List<Long> ops = with(paysOf.get(orderNo), fin);
            Map<String, Object> row = outbox.get(orderNo + SUFFIX);
            if (row == null) {
                out.anomaly("outbox-missing", orderNo, "paid order " + orderNo + " has no outbox row " + orderNo + SUFFIX, ops);
            } else if (!"SUCCESS".equals(Values.text(row, "status"))) {
                out.anomaly("outbox-unsent", orderNo, "the outbox row of paid order " + orderNo + " is "
                        + Values.text(row, "status") + ", not SUCCESS", ops);
            }
            int shipped = shipments.getOrDefault(orderNo, 0);
            if (shipped == 0) {
                out.anomaly("shipment-missing", orderNo, "paid order " + orderNo + " was not shipped", ops);
            } else if (shipped > 1) {
                out.anomaly("shipment-twice", orderNo, "paid order " + orderNo + " was shipped " + shipped + " times", ops);
            }
        }
        out.count("paidOrders", paidOrders).count("outboxRows", fin.rows("outbox").size())
                .count("shipments", fin.rows("shipments").size());

        for (Map<String, Object> row : fin.rows("outbox")) {
            String id = Values.text(row, "id");
            String orderNo = id != null && id.endsWith(SUFFIX) ? id.substring(0, id.length() - SUFFIX.length()) : id;
            Map<String, Object> order = fin.order(orderNo);
            if (order == null || !Values.paid(order)) {
                out.anomaly("outbox-without-payment", orderNo, "outbox row " + id + " is of an order that is "
                        + (order == null ? "missing" : Values.text(order, "status")), with(paysOf.get(orderNo), fin));
            }
        }
        for (String orderNo : shipments.keySet()) {
            Map<String, Object> order = fin.order(orderNo);
            if (order == null || !Values.paid(order)) {
                out.anomaly("shipment-without-payment", orderNo, "order " + orderNo + " was shipped but is "
                        + (order == null ? "missing" : Values.text(order, "status")), with(paysOf.get(orderNo), fin));
            }
        }

        // the consumers' inbox: one row per (consumer, message); a message recorded twice is named by
        // the payments of its order, and so are the points of its buyer when the points consumer took it twice
        Map<String, Integer> inbox = new LinkedHashMap<>();
        for (Map<String, Object> row : fin.rows("inbox")) {
            inbox.merge(Values.text(row, "consumer") + "\u0000" + Values.text(row, "messageId"), 1, Integer::sum);
        }
        out.count("inboxRows", fin.rows("inbox").size());
        Map<String, List<Long>> creditedTwice = new HashMap<>();
        inbox.forEach((pair, n) -> {
            if (n > 1) {
                String[] parts = pair.split("\u0000", 2);
                String orderNo = parts[1].endsWith(SUFFIX) ? parts[1].substring(0, parts[1].length() - SUFFIX.length()) : parts[1];
                List<Long> ops = with(paysOf.get(orderNo), fin);
                out.anomaly("inbox-duplicate", parts[1], "consumer " + parts[0] + " recorded message " + parts[1] + " "
                        + n + " times", ops);
                Map<String, Object> order = fin.order(orderNo);
                if (order != null && parts[0].contains("points")) {
                    creditedTwice.computeIfAbsent(Values.text(order, "userId"), k -> new ArrayList<>())
                            .addAll(paysOf.getOrDefault(orderNo, List.of()));
                }
            }
        });

        Optional<Op> setup = history.setup();
        if (setup.isEmpty()) {
            out.noSetup();
        } else {
            Map<String, Object> points = fin.op().object("points");
            List<Map<String, Object>> users = setup.get().rows("users");
            out.count("users", users.size());
            for (Map<String, Object> user : users) {
                String id = Values.text(user, "id");
                BigDecimal expected = paidPerUser.getOrDefault(id, BigDecimal.ZERO);
                BigDecimal actual = Values.amount(points.get(id));
                BigDecimal has = actual == null ? BigDecimal.ZERO : actual;
                if (has.compareTo(expected) != 0) {
                    out.anomaly("points-mismatch", id, "user " + id + " has " + (actual == null ? "no" : actual.toPlainString())
                            + " points but paid " + expected.toPlainString() + " in orders", with(creditedTwice.get(id), fin));
                }
            }
        }

        return out.result();
    }

    private static List<Long> with(List<Long> ops, FinalRead fin) {
        List<Long> out = new ArrayList<>(ops == null ? List.of() : ops);
        out.add(fin.index());
        return out;
    }
}
