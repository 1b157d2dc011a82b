package io.onlyonce.example.boot4;

import io.onlyonce.spring.Idempotent;
import java.net.URI;
import java.security.Principal;
import java.util.UUID;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * Places an order once per {@code Idempotency-Key}: a retry with the same key and body gets the
 * first answer again (with {@code Idempotent-Replayed: true}), the same key with another body is
 * 422, no key is 400, and each user's keys are their own.
 */
@RestController
class OrderController {

    record OrderRequest(String item, int quantity) {
    }

    record Order(String orderNo, String buyer, String item, int quantity) {
    }

    private final JdbcClient jdbc;

    OrderController(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    @PostMapping("/orders")
    @Idempotent
    ResponseEntity<Order> place(@RequestBody OrderRequest request, Principal buyer) {
        Order order = new Order(UUID.randomUUID().toString(), buyer.getName(), request.item(), request.quantity());
        jdbc.sql("INSERT INTO orders (order_no, buyer, item, quantity) VALUES (?, ?, ?, ?)")
                .params(order.orderNo(), order.buyer(), order.item(), order.quantity())
                .update();
        return ResponseEntity.created(URI.create("/orders/" + order.orderNo())).body(order);
    }
}
