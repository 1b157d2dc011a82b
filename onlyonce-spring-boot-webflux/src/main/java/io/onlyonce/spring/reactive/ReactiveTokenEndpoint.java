package io.onlyonce.spring.reactive;

import io.onlyonce.spring.http.IdempotentRequests;
import io.onlyonce.spring.http.OnlyOnceRejection;
import io.onlyonce.spring.http.TokenLimits;
import io.onlyonce.token.IssuedToken;
import io.onlyonce.token.TokenService;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.HandlerFunction;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;

/**
 * {@code POST /idempotency/tokens} on WebFlux, as on the servlet side: an optional {@code scope}
 * (query parameter or JSON body), the caller's limits, 201 {@code {"token": "...", "expiresAt": "..."}}.
 * The token and window stores are called on the bounded elastic scheduler.
 */
final class ReactiveTokenEndpoint implements HandlerFunction<ServerResponse> {

    private static final ParameterizedTypeReference<Map<String, Object>> BODY = new ParameterizedTypeReference<>() {
    };

    private final TokenService tokens;
    private final TokenLimits limits;
    private final ReactivePrincipalResolver principals;
    private final ReactiveIdempotency idempotency;
    private final boolean principalRequired;
    private final Duration unavailableRetryAfter;

    ReactiveTokenEndpoint(TokenService tokens, TokenLimits limits, ReactivePrincipalResolver principals,
            ReactiveIdempotency idempotency, boolean principalRequired, Duration unavailableRetryAfter) {
        this.tokens = tokens;
        this.limits = limits;
        this.principals = principals;
        this.idempotency = idempotency;
        this.principalRequired = principalRequired;
        this.unavailableRetryAfter = unavailableRetryAfter;
    }

    @Override
    public Mono<ServerResponse> handle(ServerRequest request) {
        Mono<String> scope = request.queryParam("scope").map(Mono::just).orElseGet(() -> request.bodyToMono(BODY)
                .mapNotNull(body -> body.get("scope") instanceof String value ? value : null)
                .defaultIfEmpty(""));
        return scope.zipWith(principals.resolve(request.exchange()).map(java.util.Optional::of)
                        .defaultIfEmpty(java.util.Optional.empty()))
                .flatMap(both -> ReactiveIdempotency.blocking(() -> IdempotentRequests.issue(tokens, limits,
                        both.getT2().orElse(null), principalRequired, both.getT1(), unavailableRetryAfter)))
                .flatMap(ReactiveTokenEndpoint::created)
                .onErrorResume(OnlyOnceRejection.class, refused -> idempotency.problemResponse(request, refused));
    }

    private static Mono<ServerResponse> created(IssuedToken issued) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("token", issued.value());
        body.put("expiresAt", issued.expiresAt().toString());
        return ServerResponse.status(HttpStatus.CREATED).contentType(MediaType.APPLICATION_JSON).bodyValue(body);
    }
}
