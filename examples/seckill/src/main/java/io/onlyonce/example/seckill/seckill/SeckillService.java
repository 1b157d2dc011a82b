package io.onlyonce.example.seckill.seckill;

import io.onlyonce.example.seckill.SeckillProperties;
import io.onlyonce.example.seckill.auth.CurrentUser;
import io.onlyonce.example.seckill.limits.RequestRates;
import io.onlyonce.example.seckill.order.Order;
import io.onlyonce.example.seckill.order.OrderService;
import io.onlyonce.example.seckill.stats.DataLayerCounters;
import io.onlyonce.example.seckill.web.ApiException;
import io.onlyonce.example.seckill.web.AppProblem;
import io.onlyonce.spring.metrics.OnlyOnceStatistics;
import java.time.Clock;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Isolation;
import org.springframework.transaction.annotation.Transactional;

/**
 * Flash-sale orders, in one transaction: the order row first (its {@code live_key} UNIQUE allows
 * one live order per user, activity and product), then the stock by optimistic-lock UPDATE, the hot
 * row touched last so its lock is held for the shortest time. Sold out rolls the row back.
 */
@Service
public class SeckillService {

    static final String ORDER_ENDPOINT = "POST /api/seckill/activities/{activityId}/orders";
    static final String TOKEN_ENDPOINT = "POST /api/seckill/activities/{activityId}/tokens";

    private final ActivityRepository activities;
    private final OrderService orders;
    private final DataLayerCounters counters;
    private final SeckillProperties.Limits limits;
    private final OnlyOnceStatistics statistics;
    private final Clock clock;

    public SeckillService(ActivityRepository activities, OrderService orders, DataLayerCounters counters,
            SeckillProperties properties, OnlyOnceStatistics statistics, Clock clock) {
        this.activities = activities;
        this.orders = orders;
        this.counters = counters;
        this.limits = properties.limits();
        this.statistics = statistics;
        this.clock = clock;
    }

    /**
     * The activity a one-time token may be issued for: running now (else 404 or 409
     * {@code activity-not-active}) and, with the limits on, with stock left (else 409
     * {@code sold-out}): a token that can only meet "sold out" is not handed out.
     */
    public Activity tokenableActivity(long activityId) {
        Activity activity = runningActivity(activityId);
        if (limits.enabled() && activities.stock(activityId).stream().noneMatch(s -> s.stock() > 0)) {
            statistics.record(RequestRates.LAYER, "token_sold_out", TOKEN_ENDPOINT);
            throw new ApiException(AppProblem.SOLD_OUT);
        }
        return activity;
    }

    /** The activity, if it is running now (else 404 or 409). */
    public Activity runningActivity(long activityId) {
        Activity activity = activities.find(activityId).orElseThrow(() -> new ApiException(AppProblem.ACTIVITY_NOT_FOUND));
        if (!activity.isRunningAt(clock.instant())) {
            throw new ApiException(AppProblem.ACTIVITY_NOT_ACTIVE);
        }
        return activity;
    }

    @Transactional(isolation = Isolation.READ_COMMITTED)
    public Order buy(CurrentUser user, long activityId, @Nullable Long productId, int quantity, String businessId) {
        runningActivity(activityId);
        SeckillStock stock = stockOf(activityId, productId);
        Order order = orders.newOrder(user.id(), businessId, stock.productId(), activityId, quantity, stock.price(),
                Order.liveKey(user.id(), activityId, stock.productId()));
        Order placed = orders.insert(order, ORDER_ENDPOINT);
        if (!activities.takeStock(activityId, stock.productId(), quantity)) {
            counters.record(DataLayerCounters.SOLD_OUT, ORDER_ENDPOINT);
            throw new ApiException(AppProblem.SOLD_OUT);
        }
        return placed;
    }

    /** The product of the activity: the one named, or the activity's first when none is. */
    private SeckillStock stockOf(long activityId, @Nullable Long productId) {
        if (productId != null) {
            return activities.stock(activityId, productId).orElseThrow(() -> new ApiException(AppProblem.PRODUCT_NOT_FOUND));
        }
        List<SeckillStock> all = activities.stock(activityId);
        if (all.isEmpty()) {
            throw new ApiException(AppProblem.PRODUCT_NOT_FOUND);
        }
        return all.get(0);
    }
}
