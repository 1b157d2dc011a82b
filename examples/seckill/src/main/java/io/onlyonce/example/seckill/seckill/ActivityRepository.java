package io.onlyonce.example.seckill.seckill;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** Flash sales and their stock ({@code seckill_activities}, {@code seckill_stock}). */
@Repository
public class ActivityRepository {

    private static final String STOCK = "SELECT s.activity_id, s.product_id, p.name AS product_name, s.price, "
            + "s.initial_stock, s.stock, p.price AS regular_price FROM seckill_stock s JOIN products p ON p.id = s.product_id ";

    private static final RowMapper<SeckillStock> STOCK_MAPPER = (rs, row) -> new SeckillStock(rs.getLong("activity_id"),
            rs.getLong("product_id"), rs.getString("product_name"), rs.getBigDecimal("price"), rs.getInt("initial_stock"),
            rs.getInt("stock"), rs.getBigDecimal("regular_price"));

    private final JdbcClient jdbc;

    public ActivityRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    public Optional<Activity> find(long id) {
        return jdbc.sql("SELECT id, name, starts_at, ends_at FROM seckill_activities WHERE id = ?").param(id)
                .query((rs, row) -> new Activity(rs.getLong("id"), rs.getString("name"),
                        Instant.ofEpochMilli(rs.getLong("starts_at")), Instant.ofEpochMilli(rs.getLong("ends_at"))))
                .optional();
    }

    public List<Activity> findAll() {
        return jdbc.sql("SELECT id, name, starts_at, ends_at FROM seckill_activities ORDER BY id")
                .query((rs, row) -> new Activity(rs.getLong("id"), rs.getString("name"),
                        Instant.ofEpochMilli(rs.getLong("starts_at")), Instant.ofEpochMilli(rs.getLong("ends_at"))))
                .list();
    }

    public List<SeckillStock> stock(long activityId) {
        return jdbc.sql(STOCK + "WHERE s.activity_id = ? ORDER BY s.product_id").param(activityId)
                .query(STOCK_MAPPER).list();
    }

    public Optional<SeckillStock> stock(long activityId, long productId) {
        return jdbc.sql(STOCK + "WHERE s.activity_id = ? AND s.product_id = ?").params(activityId, productId)
                .query(STOCK_MAPPER).optional();
    }

    /**
     * The optimistic-lock deduction: takes {@code quantity} only if that much is left, in one
     * statement, so stock never goes below zero however many buyers race.
     *
     * @return false (nothing changed) when sold out
     */
    public boolean takeStock(long activityId, long productId, int quantity) {
        return jdbc.sql("UPDATE seckill_stock SET stock = stock - ?, version = version + 1 "
                        + "WHERE activity_id = ? AND product_id = ? AND stock >= ?")
                .params(quantity, activityId, productId, quantity).update() == 1;
    }

    /** Puts back the stock of a cancelled order. */
    public void returnStock(long activityId, long productId, int quantity) {
        jdbc.sql("UPDATE seckill_stock SET stock = stock + ?, version = version + 1 WHERE activity_id = ? AND product_id = ?")
                .params(quantity, activityId, productId).update();
    }

    /**
     * Makes activity {@code id} run from no later than {@code startsBy} until no earlier than
     * {@code endsNotBefore} (the demo sale's reopening).
     *
     * @return false when there is no such activity
     */
    public boolean reopen(long id, Instant startsBy, Instant endsNotBefore) {
        return jdbc.sql("UPDATE seckill_activities SET "
                        + "starts_at = CASE WHEN starts_at > ? THEN ? ELSE starts_at END, "
                        + "ends_at = CASE WHEN ends_at < ? THEN ? ELSE ends_at END WHERE id = ?")
                .params(startsBy.toEpochMilli(), startsBy.toEpochMilli(), endsNotBefore.toEpochMilli(),
                        endsNotBefore.toEpochMilli(), id)
                .update() == 1;
    }

    /**
     * Fills every product of {@code activityId} with less than {@code stock} left up to
     * {@code stock}, adding the same to its initial stock, so that sold + left = initial still holds
     * (the oversell check of {@code GET /api/stats}). One statement per row, so a purchase racing it
     * is counted either before or after, never lost.
     *
     * @return how many products were restocked
     */
    public int fillUp(long activityId, int stock) {
        return jdbc.sql("UPDATE seckill_stock SET initial_stock = initial_stock + (? - stock), stock = ?, "
                        + "version = version + 1 WHERE activity_id = ? AND stock < ?")
                .params(stock, stock, activityId, stock).update();
    }

    public void insert(Activity activity) {
        jdbc.sql("INSERT INTO seckill_activities (id, name, starts_at, ends_at) VALUES (?, ?, ?, ?)")
                .params(activity.id(), activity.name(), activity.startsAt().toEpochMilli(), activity.endsAt().toEpochMilli())
                .update();
    }

    public void insertStock(long activityId, long productId, BigDecimal price, int stock) {
        jdbc.sql("INSERT INTO seckill_stock (activity_id, product_id, price, initial_stock, stock) VALUES (?, ?, ?, ?, ?)")
                .params(activityId, productId, price, stock, stock).update();
    }
}
