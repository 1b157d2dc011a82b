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
 * Each distinct payment (trade number) is recorded once, an order is paid by at most one payment and
 * a paid order names that payment, every payment recorded as a refund has exactly one refund row and
 * every refund row has its refund payment.
 */
public final class PaymentsChecker implements Checker {

    static final String NAME = "payments";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public CheckResult check(History history) {
        Findings out = new Findings(NAME, "each payment recorded once; one refund row per payment beyond the first of an order");
        Optional<Op> read = history.finalRead();
        if (read.isEmpty()) {
            return out.noFinalRead();
        }
        FinalRead fin = new FinalRead(read.get());
        Map<String, List<Op>> paysOfTrade = new HashMap<>();
        for (Op pay : history.completions("pay")) {
            paysOfTrade.computeIfAbsent(Values.text(pay, "tradeNo"), k -> new ArrayList<>()).add(pay);
        }

        List<Map<String, Object>> payments = fin.rows("payments");
        Map<String, Integer> perTrade = new LinkedHashMap<>();
        Map<String, Set<String>> paidTradesOfOrder = new LinkedHashMap<>();
        Set<String> refundTrades = new LinkedHashSet<>();
        for (Map<String, Object> row : payments) {
            String tradeNo = Values.text(row, "tradeNo");
            perTrade.merge(tradeNo, 1, Integer::sum);
            String outcome = Values.text(row, "outcome");
            if ("PAID".equals(outcome)) {
                paidTradesOfOrder.computeIfAbsent(Values.text(row, "orderNo"), k -> new LinkedHashSet<>()).add(tradeNo);
            } else if ("REFUND".equals(outcome)) {
                refundTrades.add(tradeNo);
            }
        }
        out.count("payments", payments.size()).count("tradeNos", perTrade.size())
                .count("paidPayments", paidTradesOfOrder.values().stream().mapToLong(Set::size).sum())
                .count("refundPayments", refundTrades.size()).count("refunds", fin.rows("refunds").size());

        perTrade.forEach((tradeNo, n) -> {
            if (n > 1) {
                out.anomaly("payment-recorded-twice", tradeNo, "payment " + tradeNo + " is recorded " + n + " times",
                        with(paysOfTrade.get(tradeNo), fin));
            }
        });
        paidTradesOfOrder.forEach((orderNo, trades) -> {
            if (trades.size() > 1) {
                List<Op> pays = new ArrayList<>();
                for (String t : trades) {
                    pays.addAll(paysOfTrade.getOrDefault(t, List.of()));
                }
                out.anomaly("paid-twice", orderNo, "order " + orderNo + " has " + trades.size() + " PAID payments " + trades,
                        with(pays, fin));
            }
        });
        for (Map<String, Object> order : fin.rows("orders")) {
            if (!Values.paid(order)) {
                continue;
            }
            String orderNo = Values.text(order, "orderNo");
            String tradeNo = Values.text(order, "tradeNo");
            Set<String> trades = paidTradesOfOrder.getOrDefault(orderNo, Set.of());
            if (!trades.contains(tradeNo)) {
                out.anomaly("paid-by-unknown-payment", orderNo, "paid order " + orderNo + " names trade " + tradeNo
                        + " but its PAID payments are " + trades, with(paysOfTrade.get(tradeNo), fin));
            }
        }
        for (String tradeNo : refundTrades) {
            int n = fin.refunds(tradeNo).size();
            if (n == 0) {
                out.anomaly("refund-missing", tradeNo, "payment " + tradeNo + " is recorded as a refund but no refund row has it",
                        with(paysOfTrade.get(tradeNo), fin));
            } else if (n > 1) {
                out.anomaly("refund-twice", tradeNo, "payment " + tradeNo + " was refunded " + n + " times",
                        with(paysOfTrade.get(tradeNo), fin));
            }
        }
        Set<String> refunded = new LinkedHashSet<>();
        for (Map<String, Object> row : fin.rows("refunds")) {
            refunded.add(Values.text(row, "tradeNo"));
        }
        for (String tradeNo : refunded) {
            if (!refundTrades.contains(tradeNo)) {
                out.anomaly("refund-without-payment", tradeNo, "refund of trade " + tradeNo + " has no REFUND payment",
                        with(paysOfTrade.get(tradeNo), fin));
            }
        }
        return out.result();
    }

    private static List<Long> with(List<Op> ops, FinalRead fin) {
        List<Long> out = new ArrayList<>(ops == null ? List.of() : Values.indexes(ops));
        out.add(fin.index());
        return out;
    }
}
