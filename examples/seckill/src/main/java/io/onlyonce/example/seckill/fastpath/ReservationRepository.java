package io.onlyonce.example.seckill.fastpath;

import io.onlyonce.example.seckill.db.SqlDialect;
import io.onlyonce.example.seckill.order.Order;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.StringJoiner;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The fast path's SQL: decided reservations ({@code seckill_reservations}), orders written many
 * rows to a statement, and the sale's snapshot the Redis stock is loaded from.
 */
public class ReservationRepository {

    private static final String ORDER_COLUMNS =
            "order_no, business_id, user_id, product_id, activity_id, quantity, amount, status, live_key, created_at";
    private static final String DECISION_COLUMNS =
            "reservation_id, activity_id, user_id, product_id, quantity, status, order_no, reason, decided_at";

    private final JdbcClient jdbc;
    private final SqlDialect dialect;
    /** Whether the server has {@code plan_cache_mode} (PostgreSQL 12 and later); read once. */
    private volatile @Nullable Boolean planSetting;

    public ReservationRepository(JdbcClient jdbc, SqlDialect dialect) {
        this.jdbc = jdbc;
        this.dialect = dialect;
    }

    /**
     * A decided reservation.
     *
     * @param reservationId the reservation
     * @param userId its buyer
     * @param orderNo its order, when ORDERED
     * @param reason why it failed, when FAILED
     */
    public record Row(String reservationId, long userId, @Nullable String orderNo, @Nullable String reason) {
    }

    /** The decided reservations among {@code ids}, by id. */
    public Map<String, Row> find(Collection<String> ids) {
        Map<String, Row> rows = new HashMap<>();
        if (ids.isEmpty()) {
            return rows;
        }
        SqlDialect.Condition in = dialect.anyOf("reservation_id", ids, String.class);
        jdbc.sql("SELECT reservation_id, user_id, order_no, reason FROM seckill_reservations WHERE " + in.sql())
                .params(in.parameters())
                .query((rs, n) -> new Row(rs.getString(1), rs.getLong(2), rs.getString(3), rs.getString(4)))
                .list().forEach(row -> rows.put(row.reservationId(), row));
        return rows;
    }

    public Optional<Row> find(String id) {
        return jdbc.sql("SELECT reservation_id, user_id, order_no, reason FROM seckill_reservations WHERE reservation_id = ?")
                .param(id).query((rs, n) -> new Row(rs.getString(1), rs.getLong(2), rs.getString(3), rs.getString(4)))
                .optional();
    }

    /**
     * Makes the statements of the current transaction planned for the values they run with (see
     * {@link SqlDialect#planForTheseValues}): the writer's lookups of a batch's 500 ids. PostgreSQL
     * before 12 has no such setting and keeps its generic plans.
     */
    public void planForTheseValues() {
        Boolean known = planSetting;
        if (known == null) {
            known = dialect != SqlDialect.POSTGRESQL || jdbc.sql("SELECT current_setting('server_version_num')::int >= 120000")
                    .query(Boolean.class).single();
            planSetting = known;
        }
        if (known) {
            dialect.planForTheseValues(jdbc);
        }
    }

    /**
     * Buyers among {@code userIds} who hold a live (unpaid or paid) order of the sale, found by the
     * orders' unique {@code live_key} of each buyer and product of the sale: index lookups whatever
     * the planner's statistics say (a sale's first minute adds its orders faster than they are
     * analysed, and a plan by {@code activity_id} then reads every order of the sale per batch).
     */
    public Set<Long> liveBuyers(long activityId, Collection<Long> userIds, Collection<Long> productIds) {
        if (userIds.isEmpty() || productIds.isEmpty()) {
            return Set.of();
        }
        List<String> keys = new ArrayList<>(userIds.size() * productIds.size());
        for (long user : userIds) {
            for (long product : productIds) {
                keys.add(Order.liveKey(user, activityId, product));
            }
        }
        SqlDialect.Condition in = dialect.anyOf("live_key", keys, String.class);
        return new HashSet<>(jdbc.sql("SELECT user_id FROM orders WHERE " + in.sql()).params(in.parameters())
                .query(Long.class).list());
    }

    /** Flash-sale price per product of the sale. */
    public Map<Long, BigDecimal> prices(long activityId) {
        Map<Long, BigDecimal> prices = new HashMap<>();
        jdbc.sql("SELECT product_id, price FROM seckill_stock WHERE activity_id = ?").param(activityId)
                .query((rs, n) -> Map.entry(rs.getLong(1), rs.getBigDecimal(2))).list()
                .forEach(e -> prices.put(e.getKey(), e.getValue()));
        return prices;
    }

    /**
     * Records decisions, each unless the reservation is decided already (a redelivery, or the status
     * query marked it lost): many rows to one statement where the database can skip a colliding row.
     */
    public void insertDecisions(List<Decision> decisions, long activityId, long now) {
        List<Object[]> rows = new ArrayList<>(decisions.size());
        for (Decision d : decisions) {
            QueuedReservation r = d.reservation();
            rows.add(new Object[] {r.id().toString(), activityId, r.id().userId(), r.productId(), r.quantity(),
                    d.ordered() ? "ORDERED" : "FAILED", d.orderNo(), d.reason(), now});
        }
        insertIfAbsent("seckill_reservations", DECISION_COLUMNS, rows);
    }

    /** Records one decision unless the reservation is decided already. */
    public void insertDecision(ReservationId id, long productId, int quantity, String reason, long now) {
        insertIfAbsent("seckill_reservations", DECISION_COLUMNS, List.<Object[]>of(new Object[] {id.toString(),
                id.activityId(), id.userId(), productId, quantity, "FAILED", null, reason, now}));
    }

    /** Inserts the orders, each unless a unique key holds it (the buyer's live order); returns the order numbers written. */
    public Set<String> insertOrders(List<Order> orders) {
        List<Object[]> rows = new ArrayList<>(orders.size());
        for (Order o : orders) {
            rows.add(new Object[] {o.orderNo(), o.businessId(), o.userId(), o.productId(), o.activityId(), o.quantity(),
                    o.amount().setScale(2, RoundingMode.HALF_UP), o.status().name(), o.liveKey(), o.createdAt().toEpochMilli()});
        }
        insertIfAbsent("orders", ORDER_COLUMNS, rows);
        if (orders.isEmpty()) {
            return Set.of();
        }
        SqlDialect.Condition in = dialect.anyOf("order_no", orders.stream().map(Order::orderNo).toList(), String.class);
        return new HashSet<>(jdbc.sql("SELECT order_no FROM orders WHERE " + in.sql()).params(in.parameters())
                .query(String.class).list());
    }

    /** Turns reservations recorded ORDERED in this transaction whose order could not be written into FAILED. */
    public void markFailed(Collection<String> reservationIds, String reason) {
        if (!reservationIds.isEmpty()) {
            SqlDialect.Condition in = dialect.anyOf("reservation_id", reservationIds, String.class);
            List<Object> parameters = new ArrayList<>(in.parameters().size() + 1);
            parameters.add(reason);
            parameters.addAll(in.parameters());
            jdbc.sql("UPDATE seckill_reservations SET status = 'FAILED', order_no = NULL, reason = ? WHERE " + in.sql())
                    .params(parameters).update();
        }
    }

    /** Takes {@code units} of the product's stock if that many are left (the optimistic lock, last line). */
    public boolean takeStock(long activityId, long productId, int units) {
        return jdbc.sql("UPDATE seckill_stock SET stock = stock - ?, version = version + 1 "
                        + "WHERE activity_id = ? AND product_id = ? AND stock >= ?")
                .params(units, activityId, productId, units).update() == 1;
    }

    /**
     * The sale in one statement, so in one snapshot on every database: stock per product, buyers with
     * a live order and cancelled orders.
     */
    public SaleSnapshot snapshot(long activityId) {
        Map<Long, Integer> stock = new LinkedHashMap<>();
        Map<Long, String> buyers = new HashMap<>();
        List<String> cancelled = new ArrayList<>();
        jdbc.sql("SELECT 'S', product_id, stock, NULL, NULL FROM seckill_stock WHERE activity_id = ? "
                        + "UNION ALL SELECT 'L', user_id, 0, business_id, order_no FROM orders "
                        + "WHERE activity_id = ? AND status <> 'CANCELLED' "
                        + "UNION ALL SELECT 'C', user_id, 0, NULL, order_no FROM orders "
                        + "WHERE activity_id = ? AND status = 'CANCELLED'")
                .params(activityId, activityId, activityId)
                .query(rs -> {
                    String kind = rs.getString(1);
                    switch (kind) {
                        case "S" -> stock.put(rs.getLong(2), rs.getInt(3));
                        case "L" -> {
                            String businessId = rs.getString(4);
                            buyers.put(rs.getLong(2), businessId.startsWith("rsv_") ? businessId.substring(4)
                                    : "o:" + rs.getString(5));
                        }
                        default -> cancelled.add(rs.getString(5));
                    }
                });
        return new SaleSnapshot(stock, buyers, cancelled);
    }

    /** Running sales' ids. */
    public List<Long> runningActivities(long now) {
        return jdbc.sql("SELECT id FROM seckill_activities WHERE starts_at <= ? AND ends_at > ? ORDER BY id")
                .params(now, now).query(Long.class).list();
    }

    private void insertIfAbsent(String table, String columns, List<Object[]> rows) {
        if (rows.isEmpty()) {
            return;
        }
        int width = rows.get(0).length;
        StringJoiner one = new StringJoiner(", ", "(", ")");
        for (int i = 0; i < width; i++) {
            one.add("?");
        }
        if (dialect == SqlDialect.H2) {
            for (Object[] row : rows) {
                dialect.insertIfAbsent(jdbc, table, columns, one.toString().substring(1, one.length() - 1), row);
            }
            return;
        }
        StringJoiner values = new StringJoiner(", ");
        List<Object> parameters = new ArrayList<>(rows.size() * width);
        for (Object[] row : rows) {
            values.add(one.toString());
            parameters.addAll(java.util.Arrays.asList(row));
        }
        String sql = dialect == SqlDialect.POSTGRESQL
                ? "INSERT INTO " + table + " (" + columns + ") VALUES " + values + " ON CONFLICT DO NOTHING"
                : "INSERT IGNORE INTO " + table + " (" + columns + ") VALUES " + values;
        jdbc.sql(sql).params(parameters).update();
    }
}
