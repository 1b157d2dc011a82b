package io.onlyonce.example.seckill.order;

import io.onlyonce.example.seckill.auth.CurrentUser;
import io.onlyonce.example.seckill.db.Retries;
import io.onlyonce.example.seckill.payment.PaymentService;
import java.util.List;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The caller's own orders: {@code GET /api/orders}, {@code GET /api/orders/{orderNo}} (404 for
 * another user's, as for an unknown one) and {@code POST /api/orders/{orderNo}/cancel}, which is
 * idempotent by the order's state machine and needs no key.
 */
@RestController
public class OrderQueryController {

    private final OrderService orders;
    private final PaymentService payments;
    private final JdbcClient jdbc;

    public OrderQueryController(OrderService orders, PaymentService payments, JdbcClient jdbc) {
        this.orders = orders;
        this.payments = payments;
        this.jdbc = jdbc;
    }

    /** The order with its payments and, once shipped, its shipment number. */
    @GetMapping("/api/orders/{orderNo}")
    public OrderView get(@PathVariable String orderNo, @AuthenticationPrincipal Jwt jwt) {
        return view(orders.get(CurrentUser.of(jwt), orderNo));
    }

    /** The newest orders first, at most {@code limit} (1 to 100, default 20), each as {@code GET} shows it. */
    @GetMapping("/api/orders")
    public List<OrderView> list(@RequestParam(defaultValue = "20") int limit, @AuthenticationPrincipal Jwt jwt) {
        int bounded = Math.max(1, Math.min(100, limit));
        return orders.list(CurrentUser.of(jwt), bounded).stream().map(this::view).toList();
    }

    private OrderView view(Order order) {
        List<OrderView.PaymentView> paid = payments.payments(order.orderNo()).stream()
                .map(p -> new OrderView.PaymentView(p.tradeNo(), p.amount(), p.outcome().name()))
                .toList();
        String shipmentNo = jdbc.sql("SELECT shipment_no FROM shipments WHERE order_no = ?").param(order.orderNo())
                .query(String.class).optional().orElse(null);
        return OrderView.of(order, paid, shipmentNo);
    }

    @PostMapping("/api/orders/{orderNo}/cancel")
    public OrderView cancel(@PathVariable String orderNo, @AuthenticationPrincipal Jwt jwt) {
        CurrentUser user = CurrentUser.of(jwt);
        return OrderView.of(Retries.transientFailures(() -> orders.cancel(user, orderNo)));
    }
}
