package io.onlyonce.verify.check;

import static io.onlyonce.verify.check.HistoryBuilder.m;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The value of a final read, built row by row and changed in place by a test before it is added to
 * a history (every table present, empty until filled; drained true).
 */
final class FinalState {

    static final List<String> TABLES = List.of("orders", "payments", "refunds", "shipments", "outbox", "inbox", "reservations",
            "products", "activityStock", "redisStock", "inProgress", "queues");

    private final Map<String, Object> value = new LinkedHashMap<>();

    FinalState() {
        for (String table : TABLES) {
            value.put(table, new ArrayList<Map<String, Object>>());
        }
        value.put("points", new LinkedHashMap<String, Object>());
        value.put("drained", true);
        value.put("drainMs", 1200);
    }

    @SuppressWarnings("unchecked")
    List<Map<String, Object>> rows(String table) {
        return (List<Map<String, Object>>) value.get(table);
    }

    FinalState add(String table, Map<String, Object> row) {
        rows(table).add(row);
        return this;
    }

    /** The first row of {@code table} whose {@code field} is {@code equals}, to change in place. */
    Map<String, Object> row(String table, String field, Object equals) {
        return rows(table).stream().filter(r -> Objects.equals(r.get(field), equals)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no " + table + " row with " + field + " = " + equals));
    }

    FinalState remove(String table, String field, Object equals) {
        rows(table).removeIf(r -> Objects.equals(r.get(field), equals));
        return this;
    }

    @SuppressWarnings("unchecked")
    FinalState points(String userId, String points) {
        ((Map<String, Object>) value.get("points")).put(userId, points);
        return this;
    }

    FinalState put(String field, Object v) {
        value.put(field, v);
        return this;
    }

    Map<String, Object> value() {
        return value;
    }

    static Map<String, Object> order(String orderNo, String businessId, int userId, int productId, Integer activityId, int quantity,
            String amount, String status, String tradeNo) {
        return m("orderNo", orderNo, "businessId", businessId, "userId", userId, "productId", productId, "activityId", activityId,
                "quantity", quantity, "amount", amount, "status", status, "tradeNo", tradeNo);
    }

    static Map<String, Object> payment(String tradeNo, String orderNo, String amount, String outcome) {
        return m("tradeNo", tradeNo, "orderNo", orderNo, "amount", amount, "outcome", outcome);
    }

    static Map<String, Object> refund(String orderNo, String tradeNo, String amount) {
        return m("orderNo", orderNo, "tradeNo", tradeNo, "amount", amount);
    }

    static Map<String, Object> shipment(String orderNo, int userId) {
        return m("orderNo", orderNo, "userId", userId);
    }

    static Map<String, Object> outbox(String id, String status) {
        return m("id", id, "status", status);
    }

    static Map<String, Object> inbox(String consumer, String messageId) {
        return m("consumer", consumer, "messageId", messageId);
    }

    static Map<String, Object> reservation(String reservationId, int userId, int activityId, String status, String orderNo,
            String reason) {
        return m("reservationId", reservationId, "userId", userId, "activityId", activityId, "status", status, "orderNo", orderNo,
                "reason", reason);
    }

    static Map<String, Object> product(int id, int stock) {
        return m("id", id, "stock", stock);
    }

    static Map<String, Object> activityStock(int activityId, int productId, int initialStock, int stock) {
        return m("activityId", activityId, "productId", productId, "initialStock", initialStock, "stock", stock);
    }

    static Map<String, Object> redisStock(int activityId, int stock) {
        return m("activityId", activityId, "stock", stock);
    }

    static Map<String, Object> inProgress(String key, long ageMs) {
        return m("key", key, "ageMs", ageMs);
    }

    static Map<String, Object> queue(String name, int messages) {
        return m("name", name, "messages", messages);
    }
}
