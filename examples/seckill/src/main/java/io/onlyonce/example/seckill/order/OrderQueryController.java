package io.onlyonce.example.seckill.order;

import io.onlyonce.example.seckill.auth.CurrentUser;
import io.onlyonce.example.seckill.db.Retries;
import io.onlyonce.example.seckill.payment.PaymentService;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
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

    /**
     * The newest orders first, at most {@code limit} (1 to 100, default 20; 400 {@code validation-failed}
     * outside), each as {@code GET} shows it: three queries whatever the number of orders.
     */
    @GetMapping("/api/orders")
    public List<OrderView> list(@RequestParam(defaultValue = "20") @Min(1) @Max(100) int limit,
            @AuthenticationPrincipal Jwt jwt) {
        List<Order> newest = orders.list(CurrentUser.of(jwt), limit);
        List<String> numbers = newest.stream().map(Order::orderNo).toList();
        Map<String, List<PaymentService.Payment>> paid = payments.payments(numbers);
        Map<String, String> shipped = shipments(numbers);
        return newest.stream()
                .map(order -> view(order, paid.getOrDefault(order.orderNo(), List.of()), shipped.get(order.orderNo())))
                .toList();
    }

    private OrderView view(Order order) {
        return view(order, payments.payments(order.orderNo()), shipments(List.of(order.orderNo())).get(order.orderNo()));
    }

    private static OrderView view(Order order, List<PaymentService.Payment> paid, @Nullable String shipmentNo) {
        return OrderView.of(order, paid.stream()
                .map(p -> new OrderView.PaymentView(p.tradeNo(), p.amount(), p.outcome().name()))
                .toList(), shipmentNo);
    }

    private Map<String, String> shipments(List<String> orderNos) {
        if (orderNos.isEmpty()) {
            return Map.of();
        }
        Map<String, String> shipped = new HashMap<>();
        jdbc.sql("SELECT order_no, shipment_no FROM shipments WHERE order_no IN (:orderNos)")
                .param("orderNos", orderNos)
                .query(rs -> {
                    shipped.put(rs.getString("order_no"), rs.getString("shipment_no"));
                });
        return shipped;
    }

    @PostMapping("/api/orders/{orderNo}/cancel")
    public OrderView cancel(@PathVariable String orderNo, @AuthenticationPrincipal Jwt jwt) {
        CurrentUser user = CurrentUser.of(jwt);
        return OrderView.of(Retries.transientFailures(() -> orders.cancel(user, orderNo)));
    }
}
