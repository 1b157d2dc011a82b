package io.onlyonce.example.seckill.stats;

import io.onlyonce.spring.metrics.OnlyOnceStatistics;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /api/stats}: which layer stopped how many duplicates (this instance's counts since
 * start; Prometheus sums instances from {@code onlyonce.requests}), the orders in the database, the
 * stock left per flash sale, and the oversell check: for every activity and product, sold (live
 * orders) plus stock left equals the initial stock, no stock is negative, and no user holds two
 * live orders.
 */
@RestController
public class StatsController {

    /** Outcomes that are a duplicate stopped, per layer (the rest are executions or other refusals). */
    static final Map<String, Set<String>> DUPLICATE_OUTCOMES = Map.of(
            "gateway", Set.of("window_duplicate"),
            "business", Set.of("replayed", "in_progress", "duplicate_token", "mismatch"),
            "message", Set.of("duplicate_dropped"),
            io.onlyonce.example.seckill.fastpath.Reservations.LAYER, Set.of("repeated"),
            DataLayerCounters.LAYER, Set.of(DataLayerCounters.DUPLICATE_BUSINESS_ID, DataLayerCounters.LIVE_ORDER_CONFLICT,
                    DataLayerCounters.REPEATED_PAYMENT_CALLBACK, DataLayerCounters.REPEATED_CANCEL));

    private final OnlyOnceStatistics statistics;
    private final JdbcClient jdbc;
    private final String transport;

    public StatsController(OnlyOnceStatistics statistics, JdbcClient jdbc,
            @org.springframework.beans.factory.annotation.Value("${onlyonce.messaging.transport:in-process}") String transport) {
        this.statistics = statistics;
        this.jdbc = jdbc;
        this.transport = transport.toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }

    /**
     * One flash-sale product's stock.
     *
     * @param activityId the activity
     * @param productId the product
     * @param initialStock the stock it started with
     * @param stockLeft what is left
     * @param sold items in live (unpaid or paid) orders
     * @param consistent whether sold + stockLeft == initialStock and stockLeft >= 0
     */
    public record ActivityStock(long activityId, long productId, int initialStock, int stockLeft, long sold,
            boolean consistent) {
    }

    /**
     * The oversell check over every flash sale.
     *
     * @param ok whether every other member is zero
     * @param inconsistentProducts activity products where sold + left != initial
     * @param negativeStock activity products with stock below zero
     * @param usersWithTwoLiveOrders (user, activity, product) with more than one live order
     */
    public record OversellCheck(boolean ok, long inconsistentProducts, long negativeStock, long usersWithTwoLiveOrders) {
    }

    /**
     * The statistics.
     *
     * @param layers layer → outcome → count, as decided by each layer
     * @param duplicatesStopped layer → duplicates it stopped
     * @param orders status → orders in the database, and {@code total}
     * @param payments distinct payments in the database: {@code paid} (each paid an order) and
     *     {@code refunds} (further payments of paid or cancelled orders, to be refunded)
     * @param messages the message layer in this instance: the {@code transport} its messages go through
     *     ({@code in-process}, {@code rabbit} or {@code kafka}), {@code sent} by the outbox relay (on the
     *     broker's confirm), {@code processed} by the consumers, {@code duplicatesDropped} by their
     *     inboxes, {@code deadLettered}; and {@code pending} and {@code failed} outbox rows in the database
     * @param activities stock per flash-sale product
     * @param oversell the oversell check
     */
    public record Stats(Map<String, Map<String, Long>> layers, Map<String, Long> duplicatesStopped,
            Map<String, Long> orders, Map<String, Long> payments, Map<String, Object> messages,
            List<ActivityStock> activities, OversellCheck oversell) {
    }

    @GetMapping("/api/stats")
    public Stats stats() {
        Map<String, Map<String, Long>> layers = new TreeMap<>(statistics.byLayer());
        Map<String, Long> duplicates = new LinkedHashMap<>();
        for (String layer : List.of("gateway", "business", io.onlyonce.example.seckill.fastpath.Reservations.LAYER,
                DataLayerCounters.LAYER, "message")) {
            Map<String, Long> outcomes = layers.getOrDefault(layer, Map.of());
            duplicates.put(layer, outcomes.entrySet().stream()
                    .filter(e -> DUPLICATE_OUTCOMES.get(layer).contains(e.getKey()))
                    .mapToLong(Map.Entry::getValue).sum());
        }
        Map<String, Long> orders = new LinkedHashMap<>();
        long total = 0;
        for (String status : List.of("UNPAID", "PAID", "CANCELLED")) {
            long count = jdbc.sql("SELECT COUNT(*) FROM orders WHERE status = ?").param(status).query(Long.class).single();
            orders.put(status, count);
            total += count;
        }
        orders.put("total", total);
        Map<String, Long> message = layers.getOrDefault("message", Map.of());
        Map<String, Object> messages = new LinkedHashMap<>();
        messages.put("transport", transport);
        messages.put("sent", message.getOrDefault("sent", 0L));
        messages.put("processed", message.getOrDefault("processed", 0L));
        messages.put("duplicatesDropped", message.getOrDefault("duplicate_dropped", 0L));
        messages.put("deadLettered", message.getOrDefault("dead_lettered", 0L));
        messages.put("pending", jdbc.sql("SELECT COUNT(*) FROM onlyonce_message_log WHERE status IN ('PREPARED', 'SENDING')")
                .query(Long.class).single());
        messages.put("failed", jdbc.sql("SELECT COUNT(*) FROM onlyonce_message_log WHERE status = 'FAILED'")
                .query(Long.class).single());
        Map<String, Long> payments = new LinkedHashMap<>();
        payments.put("paid", jdbc.sql("SELECT COUNT(*) FROM payment_notifications WHERE outcome = 'PAID'")
                .query(Long.class).single());
        payments.put("refunds", jdbc.sql("SELECT COUNT(*) FROM refunds").query(Long.class).single());
        List<ActivityStock> activities = new ArrayList<>(jdbc.sql(
                "SELECT s.activity_id, s.product_id, s.initial_stock, s.stock, "
                        + "(SELECT COALESCE(SUM(o.quantity), 0) FROM orders o WHERE o.activity_id = s.activity_id "
                        + "AND o.product_id = s.product_id AND o.status IN ('UNPAID', 'PAID')) AS sold "
                        + "FROM seckill_stock s ORDER BY s.activity_id, s.product_id")
                .query((rs, row) -> {
                    int initial = rs.getInt("initial_stock");
                    int left = rs.getInt("stock");
                    long sold = rs.getLong("sold");
                    return new ActivityStock(rs.getLong("activity_id"), rs.getLong("product_id"), initial, left, sold,
                            left >= 0 && sold + left == initial);
                }).list());
        long twoLive = jdbc.sql("SELECT COUNT(*) FROM (SELECT user_id, activity_id, product_id FROM orders "
                        + "WHERE activity_id IS NOT NULL AND status IN ('UNPAID', 'PAID') "
                        + "GROUP BY user_id, activity_id, product_id HAVING COUNT(*) > 1) doubled")
                .query(Long.class).single();
        long inconsistent = activities.stream().filter(a -> a.sold() + a.stockLeft() != a.initialStock()).count();
        long negative = activities.stream().filter(a -> a.stockLeft() < 0).count();
        OversellCheck check = new OversellCheck(inconsistent == 0 && negative == 0 && twoLive == 0, inconsistent,
                negative, twoLive);
        return new Stats(layers, duplicates, orders, payments, messages, activities, check);
    }
}
