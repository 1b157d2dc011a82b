package io.onlyonce.example.seckill.seckill;

import io.onlyonce.example.seckill.auth.CurrentUser;
import io.onlyonce.example.seckill.db.Retries;
import io.onlyonce.example.seckill.order.BusinessIds;
import io.onlyonce.example.seckill.order.Order;
import io.onlyonce.example.seckill.order.OrderView;
import io.onlyonce.spring.Idempotent;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.validation.Valid;
import java.net.URI;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /api/seckill/activities/{activityId}/orders} with {@code Idempotency-Token}: every
 * layer. The request window (servlet de-dup filter, same user + path + product within 1 s) answers
 * 429 to a burst; the one-time token is checked (signed, this user, this activity) and consumed
 * atomically before the method runs, so a resent token gets 409 {@code duplicate-submission} with
 * the first order; the database holds one live order per user and never oversells. With
 * {@code seckill.fast-path.enabled} the purchase is {@code fastpath.FastPathOrderController}'s.
 */
@RestController
@ConditionalOnBooleanProperty(name = "seckill.onlyonce.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "seckill.fast-path.enabled", havingValue = false, matchIfMissing = true)
public class SeckillOrderController {

    static final String TOKEN_HEADER = "Idempotency-Token";

    private final SeckillService seckill;

    public SeckillOrderController(SeckillService seckill) {
        this.seckill = seckill;
    }

    /** 201 with the order. */
    @PostMapping(path = "/api/seckill/activities/{activityId}/orders", consumes = MediaType.APPLICATION_JSON_VALUE)
    @Idempotent(strategy = Idempotent.Strategy.TOKEN, scope = SeckillTokens.SCOPE)
    @ApiResponse(responseCode = "201", description = "the order (synchronous path)",
            content = @Content(mediaType = "application/json", schema = @Schema(implementation = OrderView.class)))
    public ResponseEntity<OrderView> buy(@PathVariable long activityId, @RequestHeader(TOKEN_HEADER) String token,
            @Valid @RequestBody SeckillOrderRequest request, @AuthenticationPrincipal Jwt jwt) {
        return placed(seckill, activityId, token, request, jwt);
    }

    static ResponseEntity<OrderView> placed(SeckillService seckill, long activityId, String token,
            SeckillOrderRequest request, Jwt jwt) {
        CurrentUser user = CurrentUser.of(jwt);
        String businessId = BusinessIds.forToken(token.strip());
        Order order = Retries.transientFailures(() -> seckill.buy(user, activityId, request.productId(),
                request.quantityOrOne(), businessId));
        return ResponseEntity.created(URI.create("/api/orders/" + order.orderNo())).body(OrderView.of(order));
    }
}
