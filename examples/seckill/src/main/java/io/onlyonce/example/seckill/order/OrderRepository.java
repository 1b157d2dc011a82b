package io.onlyonce.example.seckill.order;

import io.onlyonce.example.seckill.db.SqlDialect;
import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** The {@code orders} table. Every state change is a conditional UPDATE: the state machine lives in SQL. */
@Repository
public class OrderRepository {

    private static final String COLUMNS = "order_no, business_id, user_id, product_id, activity_id, quantity, amount, "
            + "status, live_key, trade_no, created_at, paid_at, cancelled_at";
    private static final RowMapper<Order> MAPPER = OrderRepository::map;

    private final JdbcClient jdbc;
    private final SqlDialect dialect;

    public OrderRepository(JdbcClient jdbc, SqlDialect dialect) {
        this.jdbc = jdbc;
        this.dialect = dialect;
    }

    /**
     * Inserts a new order unless one of its unique keys (order number, business id, live key) is
     * taken; never aborts the surrounding transaction.
     *
     * @return true if inserted
     */
    public boolean insertIfAbsent(Order order) {
        return dialect.insertIfAbsent(jdbc, "orders",
                "order_no, business_id, user_id, product_id, activity_id, quantity, amount, status, live_key, created_at",
                "?, ?, ?, ?, ?, ?, ?, ?, ?, ?",
                order.orderNo(), order.businessId(), order.userId(), order.productId(), order.activityId(),
                order.quantity(), order.amount(), order.status().name(), order.liveKey(), order.createdAt().toEpochMilli());
    }

    public Optional<Order> find(String orderNo) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM orders WHERE order_no = ?").param(orderNo).query(MAPPER).optional();
    }

    /** The order, its row locked until the transaction ends (serialises payment notifications of one order). */
    public Optional<Order> findForUpdate(String orderNo) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM orders WHERE order_no = ? FOR UPDATE").param(orderNo).query(MAPPER).optional();
    }

    public Optional<Order> findByBusinessId(String businessId) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM orders WHERE business_id = ?").param(businessId).query(MAPPER).optional();
    }

    public Optional<Order> findByLiveKey(String liveKey) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM orders WHERE live_key = ?").param(liveKey).query(MAPPER).optional();
    }

    /** The newest orders of {@code userId}, newest first. */
    public List<Order> findByUser(long userId, int limit) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM orders WHERE user_id = ? ORDER BY id DESC LIMIT ?")
                .params(userId, limit).query(MAPPER).list();
    }

    /** UNPAID → CANCELLED (freeing the live key); false when the order was not UNPAID. */
    public boolean markCancelled(String orderNo, Instant now) {
        return jdbc.sql("UPDATE orders SET status = 'CANCELLED', live_key = NULL, cancelled_at = ? "
                        + "WHERE order_no = ? AND status = 'UNPAID'")
                .params(now.toEpochMilli(), orderNo).update() == 1;
    }

    /** UNPAID and placed at or before {@code cutoff} → CANCELLED; false otherwise. */
    public boolean markExpired(String orderNo, Instant cutoff, Instant now) {
        return jdbc.sql("UPDATE orders SET status = 'CANCELLED', live_key = NULL, cancelled_at = ? "
                        + "WHERE order_no = ? AND status = 'UNPAID' AND created_at <= ?")
                .params(now.toEpochMilli(), orderNo, cutoff.toEpochMilli()).update() == 1;
    }

    /** UNPAID → PAID; false when the order was not UNPAID. */
    public boolean markPaid(String orderNo, String tradeNo, Instant now) {
        return jdbc.sql("UPDATE orders SET status = 'PAID', trade_no = ?, paid_at = ? WHERE order_no = ? AND status = 'UNPAID'")
                .params(tradeNo, now.toEpochMilli(), orderNo).update() == 1;
    }

    /** Numbers of unpaid orders placed at or before {@code cutoff}, oldest first. */
    public List<String> findUnpaidPlacedBefore(Instant cutoff, int limit) {
        return jdbc.sql("SELECT order_no FROM orders WHERE status = 'UNPAID' AND created_at <= ? ORDER BY created_at LIMIT ?")
                .params(cutoff.toEpochMilli(), limit).query(String.class).list();
    }

    private static Order map(ResultSet rs, int row) throws SQLException {
        return new Order(
                rs.getString("order_no"),
                rs.getString("business_id"),
                rs.getLong("user_id"),
                rs.getLong("product_id"),
                nullableLong(rs, "activity_id"),
                rs.getInt("quantity"),
                rs.getBigDecimal("amount").setScale(2, java.math.RoundingMode.UNNECESSARY),
                OrderStatus.valueOf(rs.getString("status")),
                rs.getString("live_key"),
                rs.getString("trade_no"),
                Instant.ofEpochMilli(rs.getLong("created_at")),
                instant(rs, "paid_at"),
                instant(rs, "cancelled_at"));
    }

    private static @Nullable Long nullableLong(ResultSet rs, String column) throws SQLException {
        long value = rs.getLong(column);
        return rs.wasNull() ? null : value;
    }

    private static @Nullable Instant instant(ResultSet rs, String column) throws SQLException {
        Long millis = nullableLong(rs, column);
        return millis == null ? null : Instant.ofEpochMilli(millis);
    }

    static BigDecimal money(BigDecimal value) {
        return value.setScale(2, java.math.RoundingMode.HALF_UP);
    }
}
