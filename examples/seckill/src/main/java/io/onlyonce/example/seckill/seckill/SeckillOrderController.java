package io.onlyonce.example.seckill.seckill;

import io.onlyonce.example.seckill.auth.CurrentUser;
import io.onlyonce.example.seckill.db.Retries;
import io.onlyonce.example.seckill.fastpath.Reservations;
import io.onlyonce.example.seckill.order.BusinessIds;
import io.onlyonce.example.seckill.order.Order;
import io.onlyonce.example.seckill.order.OrderView;
import io.onlyonce.spring.Idempotent;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.validation.Valid;
import java.net.URI;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
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
 * the first order; the database holds one live order per user and never oversells.
 */
@RestController
@ConditionalOnBooleanProperty(name = "seckill.onlyonce.enabled", matchIfMissing = true)
public class SeckillOrderController {

    static final String TOKEN_HEADER = "Idempotency-Token";

    private final SeckillService seckill;
    private final @Nullable Reservations fastPath;

    public SeckillOrderController(SeckillService seckill, ObjectProvider<Reservations> fastPath) {
        this.seckill = seckill;
        this.fastPath = fastPath.getIfAvailable();
    }

    /**
     * 201 with the order (synchronous path), or, with {@code seckill.fast-path.enabled}, 202 with a
     * reservation to follow at its {@code Location}.
     */
    @PostMapping(path = "/api/seckill/activities/{activityId}/orders", consumes = MediaType.APPLICATION_JSON_VALUE)
    @Idempotent(strategy = Idempotent.Strategy.TOKEN, scope = SeckillTokens.SCOPE)
    @ApiResponse(responseCode = "201", description = "the order (synchronous path)",
            content = @Content(mediaType = "application/json", schema = @Schema(implementation = OrderView.class)))
    @ApiResponse(responseCode = "202", description = "queued (seckill.fast-path.enabled): follow the Location",
            content = @Content(mediaType = "application/json", schema = @Schema(implementation = Reservations.ReservationView.class)))
    public ResponseEntity<?> buy(@PathVariable long activityId, @RequestHeader(TOKEN_HEADER) String token,
            @Valid @RequestBody SeckillOrderRequest request, @AuthenticationPrincipal Jwt jwt) {
        if (fastPath != null) {
            Reservations.ReservationView reservation = fastPath.reserve(CurrentUser.of(jwt), activityId,
                    request.productId(), request.quantityOrOne());
            return ResponseEntity.accepted()
                    .location(URI.create("/api/seckill/reservations/" + reservation.reservationId()))
                    .body(reservation);
        }
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
