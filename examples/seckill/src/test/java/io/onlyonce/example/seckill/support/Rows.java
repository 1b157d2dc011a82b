package io.onlyonce.example.seckill.support;

import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.jdbc.core.simple.JdbcClient;

/** What a test reads from (and sets up in) the database directly. */
public final class Rows {

    private static final AtomicLong IDS = new AtomicLong(ThreadLocalRandom.current().nextLong(10_000, 1_000_000_000L));

    private final JdbcClient jdbc;
    private final Clock clock;

    public Rows(JdbcClient jdbc, Clock clock) {
        this.jdbc = jdbc;
        this.clock = clock;
    }

    public long count(String sql, Object... parameters) {
        return jdbc.sql(sql).params(parameters).query(Long.class).single();
    }

    /** The one text value of a query. */
    public String text(String sql, Object... parameters) {
        return jdbc.sql(sql).params(parameters).query(String.class).single();
    }

    /** Row counts of every table a request could change, and the total stock. */
    public Map<String, Long> snapshot() {
        return Map.of(
                "users", count("SELECT COUNT(*) FROM users"),
                "orders", count("SELECT COUNT(*) FROM orders"),
                "orderStates", count("SELECT COALESCE(SUM(CASE status WHEN 'UNPAID' THEN 1 WHEN 'PAID' THEN 10 ELSE 100 END), 0) FROM orders"),
                "payment_notifications", count("SELECT COUNT(*) FROM payment_notifications"),
                "refunds", count("SELECT COUNT(*) FROM refunds"),
                "productStock", count("SELECT COALESCE(SUM(stock), 0) FROM products"),
                "seckillStock", count("SELECT COALESCE(SUM(stock), 0) FROM seckill_stock"));
    }

    public long createProduct(String price, int stock) {
        long id = IDS.incrementAndGet();
        jdbc.sql("INSERT INTO products (id, name, price, stock) VALUES (?, ?, ?, ?)")
                .params(id, "Test product " + id, new BigDecimal(price), stock).update();
        return id;
    }

    /** A flash sale of {@code productId} running from a minute ago for 30 days. */
    public long createActivity(long productId, String price, int stock) {
        long id = IDS.incrementAndGet();
        Instant now = clock.instant();
        jdbc.sql("INSERT INTO seckill_activities (id, name, starts_at, ends_at) VALUES (?, ?, ?, ?)")
                .params(id, "Test sale " + id, now.minus(Duration.ofMinutes(1)).toEpochMilli(),
                        now.plus(Duration.ofDays(30)).toEpochMilli())
                .update();
        jdbc.sql("INSERT INTO seckill_stock (activity_id, product_id, price, initial_stock, stock) VALUES (?, ?, ?, ?, ?)")
                .params(id, productId, new BigDecimal(price), stock, stock).update();
        return id;
    }

    public int seckillStock(long activityId) {
        return jdbc.sql("SELECT stock FROM seckill_stock WHERE activity_id = ?").param(activityId).query(Integer.class).single();
    }

    public int productStock(long productId) {
        return jdbc.sql("SELECT stock FROM products WHERE id = ?").param(productId).query(Integer.class).single();
    }

    public String status(String orderNo) {
        return jdbc.sql("SELECT status FROM orders WHERE order_no = ?").param(orderNo).query(String.class).single();
    }
}
