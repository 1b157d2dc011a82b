package io.onlyonce.example.seckill.order;

import jakarta.validation.Valid;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /api/orders} without {@code @Idempotent} ({@code seckill.onlyonce.enabled=false}):
 * the benchmark's baseline, where only the data layer (unique business id) stops duplicates.
 */
@RestController
@ConditionalOnBooleanProperty(name = "seckill.onlyonce.enabled", havingValue = false)
public class UnprotectedOrderController {

    private final OrderService orders;

    public UnprotectedOrderController(OrderService orders) {
        this.orders = orders;
    }

    @PostMapping(path = "/api/orders", consumes = MediaType.APPLICATION_JSON_VALUE)
    public ResponseEntity<OrderView> create(@RequestHeader(BusinessIdInterceptor.HEADER) String key,
            @Valid @RequestBody OrderRequest request, @AuthenticationPrincipal Jwt jwt) {
        return OrderController.created(orders, key, request, jwt);
    }
}
