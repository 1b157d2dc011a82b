package io.onlyonce.example.seckill.order;

import io.onlyonce.example.seckill.auth.CurrentUser;
import io.onlyonce.example.seckill.limits.PurchaseLimits;
import io.onlyonce.example.seckill.product.Product;
import io.onlyonce.example.seckill.product.ProductRepository;
import io.onlyonce.example.seckill.seckill.ActivityRepository;
import io.onlyonce.example.seckill.stats.DataLayerCounters;
import io.onlyonce.example.seckill.web.ApiException;
import io.onlyonce.example.seckill.web.AppProblem;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Isolation;
import org.springframework.transaction.annotation.Transactional;

/**
 * The data layer of ordering: everything of one order in one transaction, and every duplicate the
 * layers above missed stopped by a unique key or a conditional UPDATE, answered with the order that
 * already exists (409), never with a second row or a 500.
 *
 * <p>Transactions run READ COMMITTED on every database (MySQL defaults to REPEATABLE READ), so the
 * row that made an insert collide is visible to the read that follows it.
 */
@Service
public class OrderService {

    static final String CREATE_ENDPOINT = "POST /api/orders";
    static final String CANCEL_ENDPOINT = "POST /api/orders/{orderNo}/cancel";
    /** How often an insert whose collision vanished (the other transaction rolled back) is tried again. */
    private static final int INSERT_ATTEMPTS = 3;

    private final OrderRepository orders;
    private final ProductRepository products;
    private final ActivityRepository activities;
    private final OrderNumbers numbers;
    private final DataLayerCounters counters;
    private final PurchaseLimits limits;
    private final Clock clock;
    private final ObjectProvider<StockReturns> stockReturns;

    public OrderService(OrderRepository orders, ProductRepository products, ActivityRepository activities,
            OrderNumbers numbers, DataLayerCounters counters, PurchaseLimits limits, Clock clock,
            ObjectProvider<StockReturns> stockReturns) {
        this.stockReturns = stockReturns;
        this.orders = orders;
        this.products = products;
        this.activities = activities;
        this.numbers = numbers;
        this.counters = counters;
        this.limits = limits;
        this.clock = clock;
    }

    /**
     * A regular order: the row (unique business id), then the stock (optimistic UPDATE). Sold out
     * rolls the row back, so a retry of the same business id is not blocked by a dead order.
     */
    @Transactional(isolation = Isolation.READ_COMMITTED)
    public Order create(CurrentUser user, String businessId, long productId, int quantity) {
        Product product = products.find(productId).orElseThrow(() -> new ApiException(AppProblem.PRODUCT_NOT_FOUND));
        Order order = newOrder(user.id(), businessId, productId, null, quantity, product.price(), null);
        Order placed = insert(order, CREATE_ENDPOINT);
        if (!products.takeStock(productId, quantity)) {
            counters.record(DataLayerCounters.SOLD_OUT, CREATE_ENDPOINT);
            throw new ApiException(AppProblem.SOLD_OUT);
        }
        return placed;
    }

    /** A new UNPAID order, not yet stored. */
    public Order newOrder(long userId, String businessId, long productId, Long activityId, int quantity,
            BigDecimal unitPrice, String liveKey) {
        BigDecimal amount = OrderRepository.money(unitPrice.multiply(BigDecimal.valueOf(quantity)));
        return new Order(numbers.next(), businessId, userId, productId, activityId, quantity, amount, OrderStatus.UNPAID,
                liveKey, null, clock.instant().truncatedTo(java.time.temporal.ChronoUnit.MILLIS), null, null);
    }

    /**
     * Inserts {@code order} in the caller's transaction, or explains why a unique key refused it:
     * its business id is taken (409 {@code order-exists} with that order's number) or the user
     * already holds a live order of this flash sale (409 {@code live-order-exists}); or refuses it
     * when it would take the user past a purchase limit (409, {@link PurchaseLimits}: the buyer's row
     * is locked first, so one user's orders are placed one after the other).
     *
     * @return the order as stored (its number may differ from the one given if that collided)
     */
    @Transactional(isolation = Isolation.READ_COMMITTED)
    public Order insert(Order order, String endpoint) {
        limits.lockBuyer(order.userId());
        Order candidate = order;
        for (int attempt = 0; attempt < INSERT_ATTEMPTS; attempt++) {
            if (orders.insertIfAbsent(candidate)) {
                limits.check(candidate, endpoint);
                return candidate;
            }
            Optional<Order> sameBusinessId = orders.findByBusinessId(candidate.businessId());
            if (sameBusinessId.isPresent()) {
                counters.record(DataLayerCounters.DUPLICATE_BUSINESS_ID, endpoint);
                throw ApiException.aboutOrder(AppProblem.ORDER_EXISTS, sameBusinessId.get().orderNo());
            }
            if (candidate.liveKey() != null) {
                Optional<Order> live = orders.findByLiveKey(candidate.liveKey());
                if (live.isPresent()) {
                    counters.record(DataLayerCounters.LIVE_ORDER_CONFLICT, endpoint);
                    throw ApiException.aboutOrder(AppProblem.LIVE_ORDER_EXISTS, live.get().orderNo());
                }
            }
            // the colliding row is gone again (its transaction rolled back, or that order was just
            // cancelled), or the order number collided: try once more with a fresh number
            candidate = candidate.withOrderNo(numbers.next());
        }
        throw new ApiException(AppProblem.ORDER_CONFLICT);
    }

    /** The caller's order; 404 for an unknown order and for another user's (its existence is not revealed). */
    @Transactional(readOnly = true)
    public Order get(CurrentUser user, String orderNo) {
        return ownOrder(user, orderNo);
    }

    @Transactional(readOnly = true)
    public List<Order> list(CurrentUser user, int limit) {
        return orders.findByUser(user.id(), limit);
    }

    /**
     * Cancels the caller's order. Idempotent: the state machine's UPDATE ({@code WHERE status =
     * 'UNPAID'}) succeeds once, and only then is the stock returned; cancelling a cancelled order
     * answers it unchanged. A paid order cannot be cancelled (409).
     */
    @Transactional(isolation = Isolation.READ_COMMITTED)
    public Order cancel(CurrentUser user, String orderNo) {
        Order order = ownOrder(user, orderNo);
        if (orders.markCancelled(order.orderNo(), clock.instant())) {
            returnStock(order);
            return orders.find(orderNo).orElseThrow();
        }
        Order current = orders.find(orderNo).orElseThrow();
        if (current.status() == OrderStatus.CANCELLED) {
            counters.record(DataLayerCounters.REPEATED_CANCEL, CANCEL_ENDPOINT);
            return current;
        }
        if (current.status() == OrderStatus.PAID) {
            throw ApiException.aboutOrder(AppProblem.ORDER_NOT_CANCELLABLE, orderNo);
        }
        throw new ApiException(AppProblem.ORDER_CONFLICT);
    }

    /**
     * Cancels an order still unpaid at {@code cutoff} (the sweeper), returning its stock once.
     *
     * @return true if this call cancelled it
     */
    @Transactional(isolation = Isolation.READ_COMMITTED)
    public boolean cancelExpired(String orderNo, Instant cutoff) {
        Optional<Order> order = orders.find(orderNo);
        if (order.isEmpty() || !orders.markExpired(orderNo, cutoff, clock.instant())) {
            return false;
        }
        returnStock(order.get());
        return true;
    }

    private void returnStock(Order order) {
        if (order.activityId() != null) {
            activities.returnStock(order.activityId(), order.productId(), order.quantity());
            stockReturns.ifAvailable(returns -> returns.returned(order));
        } else {
            products.returnStock(order.productId(), order.quantity());
        }
    }

    private Order ownOrder(CurrentUser user, String orderNo) {
        if (orderNo.length() > 32) {
            throw new ApiException(AppProblem.ORDER_NOT_FOUND);
        }
        return orders.find(orderNo).filter(o -> o.userId() == user.id())
                .orElseThrow(() -> new ApiException(AppProblem.ORDER_NOT_FOUND));
    }
}
