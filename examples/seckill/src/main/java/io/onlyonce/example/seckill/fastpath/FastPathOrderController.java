package io.onlyonce.example.seckill.fastpath;

import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoredResponse;
import io.onlyonce.example.seckill.auth.CurrentUser;
import io.onlyonce.example.seckill.seckill.SeckillOrderRequest;
import io.onlyonce.example.seckill.seckill.SeckillTokens;
import io.onlyonce.spring.PrincipalResolver;
import io.onlyonce.spring.dedup.DeferredWindow;
import io.onlyonce.spring.metrics.OnlyOnceStatistics;
import io.onlyonce.spring.metrics.OutcomeRecorder;
import io.onlyonce.spring.web.IdempotentRequests;
import io.onlyonce.spring.web.OnlyOnceFilter;
import io.onlyonce.spring.web.OnlyOnceRejection;
import io.onlyonce.spring.web.ProblemType;
import io.onlyonce.token.OneTimeToken;
import io.onlyonce.token.TokenService;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.validation.Valid;
import java.util.Collections;
import java.util.Map;
import java.util.regex.Pattern;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.HandlerMapping;

/**
 * {@code POST /api/seckill/activities/{activityId}/orders} with {@code Idempotency-Token} on the fast
 * path: every layer in one Redis script call. The token is verified here (signed, this user, this
 * activity: no store call), then one {@code EVALSHA} checks the request window (deferred to this
 * handler by the de-dup filter), consumes the token, writes the purchase's record and, in the same
 * script, the buyer's mark, the stock, the queue and the 202 it answers. A resent token is told the
 * first answer (409 {@code duplicate-submission}), a burst within the window is 429, exactly as on
 * the two-step path; the per-layer counts of {@code /api/stats} say which check stopped it.
 */
@RestController
@ConditionalOnBooleanProperty(name = "seckill.fast-path.enabled")
public class FastPathOrderController {

    /** The purchase's path, whose request window the purchase's script checks. */
    static final Pattern PURCHASE = Pattern.compile("/api/seckill/activities/[^/]+/orders");
    private static final String TOKEN_HEADER = "Idempotency-Token";

    private final Reservations reservations;
    private final TokenService tokens;
    private final PrincipalResolver principals;
    private final OnlyOnceStatistics statistics;

    public FastPathOrderController(Reservations reservations, TokenService tokens, PrincipalResolver principals,
            OnlyOnceStatistics statistics) {
        this.reservations = reservations;
        this.tokens = tokens;
        this.principals = principals;
        this.statistics = statistics;
    }

    /** 202 with a reservation to follow at its {@code Location}. */
    @PostMapping(path = "/api/seckill/activities/{activityId}/orders", consumes = MediaType.APPLICATION_JSON_VALUE)
    @ApiResponse(responseCode = "202", description = "queued: follow the Location",
            content = @Content(mediaType = "application/json", schema = @Schema(implementation = Reservations.ReservationView.class)))
    public ResponseEntity<byte[]> buy(@PathVariable long activityId, @Valid @RequestBody SeckillOrderRequest request,
            @AuthenticationPrincipal Jwt jwt, HttpServletRequest http) {
        try {
            String principal = principals.resolve(http);
            OneTimeToken token = verified(http, principal);
            IdempotencyKey key = IdempotentRequests.tokenResultKey(
                    IdempotentRequests.scope(Reservations.ENDPOINT, principal), token);
            StoredResponse answer = reservations.purchase(CurrentUser.of(jwt), activityId, request.productId(),
                    request.quantityOrOne(), token, key, DeferredWindow.of(http).orElse(null));
            return written(answer);
        } catch (OnlyOnceRejection rejection) {
            // a replay byte for byte, a refusal as every OnlyOnce problem: written by OnlyOnceFilter
            throw OnlyOnceFilter.answer(http, rejection);
        }
    }

    private OneTimeToken verified(HttpServletRequest http, String principal) {
        @SuppressWarnings("unchecked")
        Map<String, String> variables = (Map<String, String>) http.getAttribute(HandlerMapping.URI_TEMPLATE_VARIABLES_ATTRIBUTE);
        String scope = IdempotentRequests.tokenScope(SeckillTokens.SCOPE, variables == null ? Map.of() : variables);
        try {
            return IdempotentRequests.verifiedToken(tokens, Collections.list(http.getHeaders(TOKEN_HEADER)), principal, scope);
        } catch (OnlyOnceRejection refused) {
            statistics.record(OutcomeRecorder.LAYER_BUSINESS,
                    refused.problemType() == ProblemType.IDEMPOTENCY_TOKEN_MISSING ? "missing_key" : "token_rejected",
                    Reservations.ENDPOINT);
            throw refused;
        }
    }

    /** The answer as stored: the first 202 and every replay carry the same bytes. */
    private static ResponseEntity<byte[]> written(StoredResponse answer) {
        HttpHeaders headers = new HttpHeaders();
        answer.headers().forEach(h -> headers.add(h.name(), h.value()));
        return ResponseEntity.status(answer.status()).headers(headers).body(answer.body());
    }
}
