package io.onlyonce.example.seckill.payment;

import io.onlyonce.example.seckill.db.SqlDialect;
import io.onlyonce.example.seckill.order.Order;
import io.onlyonce.example.seckill.order.OrderEvents;
import io.onlyonce.example.seckill.order.OrderRepository;
import io.onlyonce.example.seckill.order.OrderStatus;
import io.onlyonce.example.seckill.stats.DataLayerCounters;
import io.onlyonce.example.seckill.web.ApiException;
import io.onlyonce.example.seckill.web.AppProblem;
import io.onlyonce.example.seckill.web.RequestIdFilter;
import java.time.Clock;
import java.time.Instant;
import org.slf4j.MDC;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Isolation;
import org.springframework.transaction.annotation.Transactional;

/**
 * Payment notifications, idempotent twice over (seed 003 §5.1): the order row is locked first, so
 * notices of one order are handled one after the other; a notice already recorded
 * ({@code outTradeNo + "_pay_callback"}, unique) changes nothing; and UNPAID → PAID is a
 * conditional UPDATE that succeeds once. A payment for a cancelled order is recorded for a refund
 * (once) and answered 409.
 */
@Service
public class PaymentService {

    static final String ENDPOINT = "POST /api/payments/callback";
    static final String NOTIFICATION_SUFFIX = "_pay_callback";

    /** What a notice did. */
    public enum Result {
        /** This notice paid the order. */
        PAID,
        /** The order was already paid by this notice's earlier delivery: nothing changed. */
        ALREADY_PAID,
        /** The order was cancelled: the payment is recorded for a refund. */
        CANCELLED
    }

    /**
     * The answer to a notice.
     *
     * @param result what happened
     * @param order the order afterwards
     */
    public record Handled(Result result, Order order) {
    }

    private final OrderRepository orders;
    private final JdbcClient jdbc;
    private final SqlDialect dialect;
    private final OrderEvents events;
    private final DataLayerCounters counters;
    private final Clock clock;

    public PaymentService(OrderRepository orders, JdbcClient jdbc, SqlDialect dialect, OrderEvents events,
            DataLayerCounters counters, Clock clock) {
        this.orders = orders;
        this.jdbc = jdbc;
        this.dialect = dialect;
        this.events = events;
        this.counters = counters;
        this.clock = clock;
    }

    @Transactional(isolation = Isolation.READ_COMMITTED)
    public Handled handle(PaymentNotice notice) {
        Order order = orders.findForUpdate(notice.outTradeNo())
                .orElseThrow(() -> new ApiException(AppProblem.ORDER_NOT_FOUND));
        if (order.amount().compareTo(notice.amount()) != 0) {
            throw ApiException.aboutOrder(AppProblem.AMOUNT_MISMATCH, order.orderNo());
        }
        String notificationId = order.orderNo() + NOTIFICATION_SUFFIX;
        Instant now = clock.instant();
        boolean recorded = dialect.insertIfAbsent(jdbc, "payment_notifications",
                "notification_id, order_no, trade_no, amount, outcome, received_at", "?, ?, ?, ?, ?, ?",
                notificationId, order.orderNo(), notice.tradeNo(), notice.amount(),
                order.status() == OrderStatus.CANCELLED ? "REFUND" : "PAID", now.toEpochMilli());
        if (!recorded) {
            counters.record(DataLayerCounters.REPEATED_PAYMENT_CALLBACK, ENDPOINT);
            return new Handled(order.status() == OrderStatus.CANCELLED ? Result.CANCELLED : Result.ALREADY_PAID, order);
        }
        if (order.status() == OrderStatus.CANCELLED) {
            dialect.insertIfAbsent(jdbc, "refunds", "order_no, trade_no, amount, status, created_at", "?, ?, ?, ?, ?",
                    order.orderNo(), notice.tradeNo(), notice.amount(), "PENDING", now.toEpochMilli());
            counters.record(DataLayerCounters.PAYMENT_FOR_CANCELLED_ORDER, ENDPOINT);
            return new Handled(Result.CANCELLED, order);
        }
        if (!orders.markPaid(order.orderNo(), notice.tradeNo(), now)) {
            // already PAID (the row lock makes any other state impossible here)
            return new Handled(Result.ALREADY_PAID, orders.find(order.orderNo()).orElseThrow());
        }
        Order paid = orders.find(order.orderNo()).orElseThrow();
        String requestId = MDC.get(RequestIdFilter.MDC_KEY);
        events.orderPaid(new OrderEvents.OrderPaid(paid.orderNo(), paid.businessId(), paid.userId(), paid.amount(),
                notice.tradeNo(), now, paid.orderNo() + "_paid", requestId == null ? "" : requestId));
        return new Handled(Result.PAID, paid);
    }
}
