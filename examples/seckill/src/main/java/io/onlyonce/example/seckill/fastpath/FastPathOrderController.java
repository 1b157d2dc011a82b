package io.onlyonce.example.seckill.fastpath;

import io.onlyonce.example.seckill.auth.CurrentUser;
import io.onlyonce.example.seckill.seckill.SeckillOrderRequest;
import io.onlyonce.example.seckill.seckill.SeckillTokens;
import io.onlyonce.spring.Idempotent;
import io.onlyonce.spring.atomic.AtomicIdempotency;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.validation.Valid;
import java.util.regex.Pattern;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /api/seckill/activities/{activityId}/orders} with {@code Idempotency-Token} on the fast
 * path: every layer in one Redis script call. {@code @Idempotent} verifies the token (signed, this
 * user, this activity: no store call) and binds the purchase's record to {@link AtomicIdempotency};
 * then one {@code EVALSHA} checks the request window (deferred to this handler by the de-dup filter),
 * consumes the token, writes the purchase's record and, in the same script, the buyer's mark, the
 * stock, the queue and the 202 it answers. A resent token is told the first answer (409
 * {@code duplicate-submission}), a burst within the window is 429, exactly as on the synchronous
 * path; the per-layer counts of {@code /api/stats} say which check stopped it.
 */
@RestController
@ConditionalOnBooleanProperty(name = "seckill.fast-path.enabled")
public class FastPathOrderController {

    /** The purchase's path, whose request window the purchase's script checks. */
    static final Pattern PURCHASE = Pattern.compile("/api/seckill/activities/[^/]+/orders");

    private final Reservations reservations;

    public FastPathOrderController(Reservations reservations) {
        this.reservations = reservations;
    }

    /** 202 with a reservation to follow at its {@code Location}. */
    // produces: the answer's bytes are the script's, JSON; a client that accepts no JSON is 406 before anything runs
    @PostMapping(path = "/api/seckill/activities/{activityId}/orders", consumes = MediaType.APPLICATION_JSON_VALUE,
            produces = MediaType.APPLICATION_JSON_VALUE)
    @Idempotent(strategy = Idempotent.Strategy.TOKEN, scope = SeckillTokens.SCOPE)
    @ApiResponse(responseCode = "202", description = "queued: follow the Location",
            content = @Content(mediaType = "application/json", schema = @Schema(implementation = Reservations.ReservationView.class)))
    public ResponseEntity<byte[]> buy(@PathVariable long activityId, @Valid @RequestBody SeckillOrderRequest request,
            @AuthenticationPrincipal Jwt jwt, @Parameter(hidden = true) AtomicIdempotency atomic) {
        // the first 202 and every replay of it carry the same bytes
        return AtomicIdempotency.respond(reservations.purchase(CurrentUser.of(jwt), activityId, request.productId(),
                request.quantityOrOne(), atomic));
    }
}
