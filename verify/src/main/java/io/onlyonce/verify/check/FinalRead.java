package io.onlyonce.verify.check;

import io.onlyonce.verify.history.Op;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The final read of a history with its rows indexed the ways the checkers look them up (orders by
 * business id and order number, payments and refunds by trade number, reservations by id).
 */
final class FinalRead {

    private final Op op;
    private final Map<String, List<Map<String, Object>>> ordersByBusinessId = new HashMap<>();
    private final Map<String, Map<String, Object>> orderByOrderNo = new HashMap<>();
    private final Map<String, Integer> ordersPerOrderNo = new HashMap<>();
    private final Map<String, List<Map<String, Object>>> paymentsByTradeNo = new HashMap<>();
    private final Map<String, List<Map<String, Object>>> refundsByTradeNo = new HashMap<>();
    private final Map<String, Map<String, Object>> reservationById = new HashMap<>();

    FinalRead(Op op) {
        this.op = op;
        for (Map<String, Object> row : rows("orders")) {
            ordersByBusinessId.computeIfAbsent(Values.text(row, "businessId"), k -> new ArrayList<>()).add(row);
            orderByOrderNo.putIfAbsent(Values.text(row, "orderNo"), row);
            ordersPerOrderNo.merge(Values.text(row, "orderNo"), 1, Integer::sum);
        }
        for (Map<String, Object> row : rows("payments")) {
            paymentsByTradeNo.computeIfAbsent(Values.text(row, "tradeNo"), k -> new ArrayList<>()).add(row);
        }
        for (Map<String, Object> row : rows("refunds")) {
            refundsByTradeNo.computeIfAbsent(Values.text(row, "tradeNo"), k -> new ArrayList<>()).add(row);
        }
        for (Map<String, Object> row : rows("reservations")) {
            reservationById.putIfAbsent(Values.text(row, "reservationId"), row);
        }
    }

    long index() {
        return op.index();
    }

    Op op() {
        return op;
    }

    List<Map<String, Object>> rows(String field) {
        List<Map<String, Object>> rows = op.rows(field);
        return rows == null ? List.of() : rows;
    }

    /** The orders stored with this business id (the key, or {@code rsv_<reservationId>}). */
    List<Map<String, Object>> orders(String businessId) {
        return ordersByBusinessId.getOrDefault(businessId, List.of());
    }

    /** The order with this number, or null. */
    Map<String, Object> order(String orderNo) {
        return orderByOrderNo.get(orderNo);
    }

    /** How many orders have this number. */
    int ordersNumbered(String orderNo) {
        return ordersPerOrderNo.getOrDefault(orderNo, 0);
    }

    List<Map<String, Object>> payments(String tradeNo) {
        return paymentsByTradeNo.getOrDefault(tradeNo, List.of());
    }

    List<Map<String, Object>> refunds(String tradeNo) {
        return refundsByTradeNo.getOrDefault(tradeNo, List.of());
    }

    /** The reservation with this id, or null. */
    Map<String, Object> reservation(String reservationId) {
        return reservationById.get(reservationId);
    }

    /** The business id of the order a fast-path reservation makes. */
    static String reservationBusinessId(String reservationId) {
        return "rsv_" + reservationId;
    }
}
