package io.onlyonce.example.seckill.limits;

import io.onlyonce.example.seckill.SeckillProperties;
import io.onlyonce.example.seckill.auth.UserRepository;
import io.onlyonce.example.seckill.order.Order;
import io.onlyonce.example.seckill.web.ApiException;
import io.onlyonce.example.seckill.web.AppProblem;
import io.onlyonce.spring.metrics.OnlyOnceStatistics;
import java.util.Map;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * Per-user caps on what one user may hold, checked in the order's own transaction: at most
 * {@code seckill.limits.max-unpaid-orders} unpaid orders, at most
 * {@code seckill.limits.max-units-per-activity} units in live (unpaid or paid) orders of one flash
 * sale and {@code seckill.limits.max-units-per-product} of one product in live regular orders
 * (cancelled orders never count). Beyond a cap: 409, and the order's row rolls back.
 *
 * <p>The buyer's row in {@code users} is locked first ({@link #lockBuyer}), so one user's orders
 * are placed one after the other and every count includes every order before it, however many
 * requests arrive at once; different users never wait for each other.
 */
@Component
public class PurchaseLimits {

    private final JdbcClient jdbc;
    private final UserRepository users;
    private final SeckillProperties.Limits limits;
    private final OnlyOnceStatistics statistics;

    public PurchaseLimits(JdbcClient jdbc, UserRepository users, SeckillProperties properties, OnlyOnceStatistics statistics) {
        this.jdbc = jdbc;
        this.users = users;
        this.limits = properties.limits();
        this.statistics = statistics;
    }

    /** Locks the buyer's row until the order's transaction ends (nothing when the limits are off). */
    public void lockBuyer(long userId) {
        if (limits.enabled()) {
            users.lock(userId);
        }
    }

    /**
     * Checks the caps with {@code placed} already inserted (in the caller's transaction, after {@link #lockBuyer}).
     *
     * @throws ApiException 409 {@code unpaid-order-limit} or {@code purchase-limit}
     */
    public void check(Order placed, String endpoint) {
        if (!limits.enabled()) {
            return;
        }
        if (limits.maxUnpaidOrders() > 0) {
            long unpaid = count("SELECT COUNT(*) FROM orders WHERE user_id = ? AND status = 'UNPAID'", placed.userId());
            if (unpaid > limits.maxUnpaidOrders()) {
                refuse(AppProblem.UNPAID_ORDER_LIMIT, limits.maxUnpaidOrders(), "unpaid_limit", endpoint);
            }
        }
        if (placed.activityId() != null && limits.maxUnitsPerActivity() > 0) {
            long units = count("SELECT COALESCE(SUM(quantity), 0) FROM orders WHERE user_id = ? AND activity_id = ? "
                    + "AND status IN ('UNPAID', 'PAID')", placed.userId(), placed.activityId());
            if (units > limits.maxUnitsPerActivity()) {
                refuse(AppProblem.PURCHASE_LIMIT, limits.maxUnitsPerActivity(), "unit_limit", endpoint);
            }
        }
        if (placed.activityId() == null && limits.maxUnitsPerProduct() > 0) {
            long units = count("SELECT COALESCE(SUM(quantity), 0) FROM orders WHERE user_id = ? AND product_id = ? "
                    + "AND activity_id IS NULL AND status IN ('UNPAID', 'PAID')", placed.userId(), placed.productId());
            if (units > limits.maxUnitsPerProduct()) {
                refuse(AppProblem.PURCHASE_LIMIT, limits.maxUnitsPerProduct(), "unit_limit", endpoint);
            }
        }
    }

    private long count(String sql, Object... parameters) {
        return jdbc.sql(sql).params(parameters).query(Long.class).single();
    }

    private void refuse(AppProblem problem, int limit, String outcome, String endpoint) {
        statistics.record(RequestRates.LAYER, outcome, endpoint);
        throw new ApiException(problem, Map.<String, Object>of("limit", limit), limit);
    }
}
