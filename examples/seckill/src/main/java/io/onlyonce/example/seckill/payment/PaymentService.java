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
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.MDC;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Isolation;
import org.springframework.transaction.annotation.Transactional;

/**
 * Payment notifications. A payment platform can charge a user twice (two channels, a user who paid
 * twice), and notifies each payment, possibly many times. Every distinct payment ({@code tradeNo})
 * is recorded exactly once ({@code payment_notifications.notification_id = tradeNo + "_pay_callback"}
 * and {@code trade_no} UNIQUE): the first payment of an UNPAID order pays it (the
 * state machine's conditional UPDATE, once) and sends "order paid" through the outbox in the same
 * transaction; each further payment of a paid or cancelled order becomes a refund row, once. A
 * repeated notice of a payment already recorded changes nothing. The order row is locked first, so
 * the notices of one order are handled one after the other.
 */
@Service
public class PaymentService {

    static final String ENDPOINT = "POST /api/payments/callback";
    static final String NOTIFICATION_SUFFIX = "_pay_callback";

    /** What a notice did. */
    public enum Result {
        /** This payment paid the order. */
        PAID,
        /** A further payment of a paid order: recorded for a refund. */
        REFUND,
        /** A payment of a cancelled order: recorded for a refund. */
        CANCELLED,
        /** This payment had been notified before: nothing changed. */
        REPEATED
    }

    /** What became of one payment. */
    public enum Outcome {
        /** It paid the order. */
        PAID,
        /** It is to be refunded. */
        REFUND
    }

    /**
     * One payment of an order.
     *
     * @param tradeNo the platform's payment id
     * @param amount what was paid
     * @param outcome PAID or REFUND
     * @param receivedAt when its first notice arrived
     */
    public record Payment(String tradeNo, BigDecimal amount, Outcome outcome, Instant receivedAt) {
    }

    /**
     * The answer to a notice.
     *
     * @param result what this notice did
     * @param outcome what became of its payment
     * @param order the order afterwards
     */
    public record Handled(Result result, Outcome outcome, Order order) {
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
        Optional<Handled> repeated = repeated(notice, order);
        if (repeated.isPresent()) {
            return repeated.get();
        }
        Instant now = clock.instant();
        Outcome outcome = order.status() == OrderStatus.UNPAID ? Outcome.PAID : Outcome.REFUND;
        boolean recorded = dialect.insertIfAbsent(jdbc, "payment_notifications",
                "notification_id, order_no, trade_no, amount, outcome, received_at", "?, ?, ?, ?, ?, ?",
                notice.tradeNo() + NOTIFICATION_SUFFIX, order.orderNo(), notice.tradeNo(), notice.amount(),
                outcome.name(), now.toEpochMilli());
        if (!recorded) {
            // the same trade number, notified for another order at this very moment
            return repeated(notice, order).orElseThrow(
                    () -> new ApiException(AppProblem.TRADE_NO_CONFLICT, Map.of("tradeNo", notice.tradeNo()), notice.tradeNo()));
        }
        if (outcome == Outcome.REFUND) {
            dialect.insertIfAbsent(jdbc, "refunds", "order_no, trade_no, amount, status, created_at", "?, ?, ?, ?, ?",
                    order.orderNo(), notice.tradeNo(), notice.amount(), "PENDING", now.toEpochMilli());
            boolean cancelled = order.status() == OrderStatus.CANCELLED;
            counters.record(cancelled ? DataLayerCounters.PAYMENT_FOR_CANCELLED_ORDER
                    : DataLayerCounters.SECOND_PAYMENT_REFUNDED, ENDPOINT);
            return new Handled(cancelled ? Result.CANCELLED : Result.REFUND, Outcome.REFUND, order);
        }
        if (!orders.markPaid(order.orderNo(), notice.tradeNo(), now)) {
            throw new IllegalStateException("order " + order.orderNo() + " is locked and UNPAID, yet could not be marked paid");
        }
        Order paid = orders.find(order.orderNo()).orElseThrow();
        String requestId = MDC.get(RequestIdFilter.MDC_KEY);
        events.orderPaid(new OrderEvents.OrderPaid(paid.orderNo(), paid.businessId(), paid.userId(), paid.amount(),
                notice.tradeNo(), now, paid.orderNo() + "_paid", requestId == null ? "" : requestId));
        return new Handled(Result.PAID, Outcome.PAID, paid);
    }

    /** The earlier notice of this payment, if there was one: a repeat, or a trade number of another order. */
    private Optional<Handled> repeated(PaymentNotice notice, Order order) {
        List<Map<String, Object>> earlier = jdbc.sql("SELECT order_no, outcome FROM payment_notifications WHERE trade_no = ?")
                .param(notice.tradeNo()).query().listOfRows();
        if (earlier.isEmpty()) {
            return Optional.empty();
        }
        if (!order.orderNo().equals(earlier.get(0).get("order_no"))) {
            throw new ApiException(AppProblem.TRADE_NO_CONFLICT, Map.of("tradeNo", notice.tradeNo()), notice.tradeNo());
        }
        counters.record(DataLayerCounters.REPEATED_PAYMENT_CALLBACK, ENDPOINT);
        Outcome outcome = Outcome.valueOf(String.valueOf(earlier.get(0).get("outcome")));
        return Optional.of(new Handled(Result.REPEATED, outcome, order));
    }

    /** Every payment of {@code orderNo}, in the order they arrived. */
    public List<Payment> payments(String orderNo) {
        return payments(List.of(orderNo)).getOrDefault(orderNo, List.of());
    }

    /** The payments of each of {@code orderNos} (one query), in the order they were received; orders without any are absent. */
    public Map<String, List<Payment>> payments(Collection<String> orderNos) {
        if (orderNos.isEmpty()) {
            return Map.of();
        }
        Map<String, List<Payment>> byOrder = new HashMap<>();
        jdbc.sql("SELECT order_no, trade_no, amount, outcome, received_at FROM payment_notifications"
                        + " WHERE order_no IN (:orderNos) ORDER BY id")
                .param("orderNos", List.copyOf(orderNos))
                .query(rs -> {
                    byOrder.computeIfAbsent(rs.getString("order_no"), no -> new ArrayList<>())
                            .add(new Payment(rs.getString("trade_no"), rs.getBigDecimal("amount"),
                                    Outcome.valueOf(rs.getString("outcome")), Instant.ofEpochMilli(rs.getLong("received_at"))));
                });
        return byOrder;
    }
}
