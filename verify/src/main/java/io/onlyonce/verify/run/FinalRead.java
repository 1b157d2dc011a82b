package io.onlyonce.verify.run;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.onlyonce.verify.workload.Answer;
import io.onlyonce.verify.workload.Api;
import io.onlyonce.verify.workload.Workload;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Waits until the system drained (the outbox sent, every reservation decided, the queues empty, the
 * Redis stock reconciled) or a timeout passed, then reads the databases, Redis and the queues: the
 * history's last record.
 */
final class FinalRead {

    private final Cluster cluster;
    private final Api api;
    private final Setup setup;
    private final Map<String, String> reservations;
    private final boolean fastPath;

    FinalRead(Cluster cluster, Api api, Setup setup, Map<String, String> reservations, boolean fastPath) {
        this.fastPath = fastPath;
        this.cluster = cluster;
        this.api = api;
        this.setup = setup;
        this.reservations = reservations;
    }

    Map<String, Object> read(Duration timeout) throws Exception {
        long started = System.nanoTime();
        long deadline = started + timeout.toNanos();
        boolean drained = false;
        String waitingFor = "";
        // drained = nothing moving in two reads 2 s apart (a message being consumed is unacknowledged,
        // not ready: one quiet read could fall between its delivery and its commit)
        int quiet = 0;
        while (System.nanoTime() < deadline) {
            waitingFor = undrained();
            quiet = waitingFor.isEmpty() ? quiet + 1 : 0;
            if (quiet >= 2) {
                drained = true;
                break;
            }
            Thread.sleep(quiet > 0 ? 2_000 : 1_000);
        }
        long drainMs = Duration.ofNanos(System.nanoTime() - started).toMillis();
        Console.say(drained ? "drained in " + drainMs + " ms" : "not drained after " + drainMs + " ms: " + waitingFor);
        Map<String, Object> value = new LinkedHashMap<>();
        try (Connection db = cluster.database()) {
            value.put("orders", rows(db, "SELECT order_no AS \"orderNo\", business_id AS \"businessId\", user_id AS \"userId\","
                    + " product_id AS \"productId\", activity_id AS \"activityId\", quantity, amount, status, trade_no AS \"tradeNo\""
                    + " FROM orders ORDER BY id"));
            value.put("payments", rows(db, "SELECT trade_no AS \"tradeNo\", order_no AS \"orderNo\", amount, outcome"
                    + " FROM payment_notifications ORDER BY id"));
            value.put("refunds", rows(db, "SELECT order_no AS \"orderNo\", trade_no AS \"tradeNo\", amount FROM refunds ORDER BY id"));
            value.put("shipments", rows(db, "SELECT order_no AS \"orderNo\", user_id AS \"userId\" FROM shipments"));
            Map<String, Object> points = new LinkedHashMap<>();
            for (Map<String, Object> row : rows(db, "SELECT id, points FROM users")) {
                points.put(String.valueOf(row.get("id")), row.get("points"));
            }
            value.put("points", points);
            value.put("outbox", rows(db, "SELECT id, status FROM onlyonce_message_log ORDER BY created_at_ms"));
            value.put("inbox", rows(db, "SELECT consumer, message_id AS \"messageId\" FROM onlyonce_inbox"));
            value.put("products", rows(db, "SELECT id, stock FROM products ORDER BY id"));
            value.put("activityStock", rows(db, "SELECT activity_id AS \"activityId\", product_id AS \"productId\","
                    + " initial_stock AS \"initialStock\", stock FROM seckill_stock ORDER BY activity_id"));
        }
        value.put("reservations", reservationRows());
        try (RedisClient client = RedisClient.create("redis://127.0.0.1:" + cluster.redis().port());
             StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisCommands<String, String> redis = connection.sync();
            List<Map<String, Object>> redisStock = new ArrayList<>();
            for (Workload.Sale sale : setup.sales) {
                if (!fastPath) {
                    break;
                }
                String stock = redis.hget(cluster.prefix() + "fast:{a" + sale.id() + "}:stock", Long.toString(sale.productId()));
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("activityId", sale.id());
                row.put("stock", stock == null ? null : Long.parseLong(stock));
                redisStock.add(row);
            }
            if (fastPath) {
                value.put("redisStock", redisStock);
            }
            value.put("inProgress", inProgress(redis));
        }
        List<Map<String, Object>> queues = new ArrayList<>();
        for (String queue : cluster.rabbit().queues()) {
            queues.add(Map.of("name", queue, "messages", cluster.rabbit().messages(queue)));
        }
        value.put("queues", queues);
        value.put("drained", drained);
        value.put("drainMs", drainMs);
        if (!drained) {
            value.put("undrained", waitingFor);
        }
        return value;
    }

    /** What is still moving, or "" when nothing is. */
    private String undrained() {
        try (Connection db = cluster.database(); Statement sql = db.createStatement()) {
            try (ResultSet row = sql.executeQuery("SELECT COUNT(*) FROM onlyonce_message_log WHERE status IN ('PREPARED', 'SENDING')")) {
                row.next();
                if (row.getLong(1) > 0) {
                    return row.getLong(1) + " outbox rows unsent";
                }
            }
            for (Map<String, Object> r : reservationRows()) {
                if (!"ORDERED".equals(r.get("status")) && !"FAILED".equals(r.get("status"))) {
                    return "reservation " + r.get("reservationId") + " " + r.get("status");
                }
            }
            for (String queue : cluster.rabbit().queues()) {
                long messages = cluster.rabbit().messages(queue);
                // a dead-letter queue never drains by itself: liveness reports what it holds
                if (messages > 0 && !queue.endsWith(".dlq") && !queue.contains("dead")) {
                    return "queue " + queue + " holds " + messages;
                }
            }
            try (RedisClient client = RedisClient.create("redis://127.0.0.1:" + cluster.redis().port());
                 StatefulRedisConnection<String, String> connection = client.connect()) {
                for (Workload.Sale sale : fastPath ? setup.sales : List.<Workload.Sale>of()) {
                    String redisStock = connection.sync().hget(cluster.prefix() + "fast:{a" + sale.id() + "}:stock",
                            Long.toString(sale.productId()));
                    try (ResultSet row = sql.executeQuery("SELECT stock FROM seckill_stock WHERE activity_id = " + sale.id())) {
                        row.next();
                        if (redisStock != null && Long.parseLong(redisStock) != row.getLong(1)) {
                            return "sale " + sale.id() + ": Redis stock " + redisStock + ", database " + row.getLong(1);
                        }
                    }
                }
            }
            return "";
        } catch (Exception e) {
            return "reading failed: " + e;
        }
    }

    private List<Map<String, Object>> reservationRows() {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Map.Entry<String, String> reservation : reservations.entrySet()) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("reservationId", reservation.getKey());
            String[] parts = reservation.getKey().split("-");
            row.put("activityId", parts.length == 4 ? Long.parseLong(parts[0]) : null);
            row.put("userId", parts.length == 4 ? Long.parseLong(parts[2]) : null);
            try {
                Answer answer = api.get("/api/seckill/reservations/" + reservation.getKey(), reservation.getValue());
                row.put("status", answer.status() == 200 ? answer.text("status") : "HTTP " + answer.status());
                row.put("orderNo", answer.text("orderNo"));
                row.put("reason", answer.text("reason"));
            } catch (Exception e) {
                row.put("status", "UNREADABLE");
                row.put("reason", e.toString());
            }
            rows.add(row);
        }
        return rows;
    }

    private List<Map<String, Object>> inProgress(RedisCommands<String, String> redis) {
        List<Map<String, Object>> rows = new ArrayList<>();
        ScanCursor cursor = ScanCursor.INITIAL;
        do {
            KeyScanCursor<String> page = redis.scan(cursor, ScanArgs.Builder.matches(cluster.prefix() + "i:*").limit(500));
            for (String key : page.getKeys()) {
                String current = redis.get(key);
                if (current != null && current.startsWith("R")) {
                    Long ttl = redis.pttl(key);
                    Map<String, Object> row = new LinkedHashMap<>();
                    row.put("key", key);
                    row.put("ageMs", ttl == null || ttl < 0 ? -1 : Math.max(0, Cluster.LEASE.toMillis() - ttl));
                    rows.add(row);
                }
            }
            cursor = page;
        } while (!cursor.isFinished());
        return rows;
    }

    private static List<Map<String, Object>> rows(Connection db, String query) throws Exception {
        List<Map<String, Object>> rows = new ArrayList<>();
        try (Statement sql = db.createStatement(); ResultSet rs = sql.executeQuery(query)) {
            ResultSetMetaData meta = rs.getMetaData();
            while (rs.next()) {
                Map<String, Object> row = new LinkedHashMap<>();
                for (int c = 1; c <= meta.getColumnCount(); c++) {
                    Object v = rs.getObject(c);
                    if (v instanceof BigDecimal money) {
                        v = money.setScale(2, RoundingMode.HALF_UP).toPlainString();
                    }
                    row.put(meta.getColumnLabel(c), v);
                }
                rows.add(row);
            }
        }
        return rows;
    }
}
