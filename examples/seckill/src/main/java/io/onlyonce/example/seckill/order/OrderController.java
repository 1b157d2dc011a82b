package io.onlyonce.example.seckill.order;

import io.onlyonce.IdempotencyKey;
import io.onlyonce.example.seckill.auth.CurrentUser;
import io.onlyonce.example.seckill.db.Retries;
import io.onlyonce.example.seckill.web.ApiException;
import io.onlyonce.example.seckill.web.AppProblem;
import io.onlyonce.spring.Idempotent;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.validation.Valid;
import java.net.URI;
import org.jspecify.annotations.Nullable;
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
 * {@code POST /api/orders} with {@code Idempotency-Key: <businessId>}: the business layer. The first
 * request runs and its 201 is stored; a retry with the same key and body gets the same 201 back
 * byte for byte ({@code Idempotent-Replayed: true}), a concurrent one 409 with {@code Retry-After},
 * the same key with another body 422 (all answered by the OnlyOnce starter). Should the key's
 * record be lost, the unique business id in the database still answers 409 {@code order-exists}.
 */
@RestController
@ConditionalOnBooleanProperty(name = "seckill.onlyonce.enabled", matchIfMissing = true)
public class OrderController {

    private final OrderService orders;

    public OrderController(OrderService orders) {
        this.orders = orders;
    }

    @PostMapping(path = "/api/orders", consumes = MediaType.APPLICATION_JSON_VALUE)
    @Idempotent
    @ApiResponse(responseCode = "201", description = "the order placed (again: the stored answer, Idempotent-Replayed: true)",
            content = @Content(mediaType = "application/json", schema = @Schema(implementation = OrderView.class)))
    public ResponseEntity<OrderView> create(@RequestHeader(name = BusinessIdInterceptor.HEADER, required = false) @Nullable String key,
            @Valid @RequestBody OrderRequest request, @AuthenticationPrincipal Jwt jwt) {
        return created(orders, key, request, jwt);
    }

    static ResponseEntity<OrderView> created(OrderService orders, @Nullable String key, OrderRequest request, Jwt jwt) {
        if (key == null) {
            throw new ApiException(AppProblem.BUSINESS_ID_INVALID);
        }
        String businessId = IdempotencyKey.parseHeaderValue(key);
        CurrentUser user = CurrentUser.of(jwt);
        Order order = Retries.transientFailures(() -> orders.create(user, businessId, request.productId(), request.quantity()));
        return ResponseEntity.created(URI.create("/api/orders/" + order.orderNo())).body(OrderView.of(order));
    }
}
