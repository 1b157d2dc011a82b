package io.onlyonce.spring.reactive;

import io.onlyonce.spring.Idempotent;
import io.onlyonce.spring.method.MethodSettings;
import java.util.Map;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ResponseCookie;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;
import org.springframework.web.reactive.function.server.HandlerFilterFunction;
import org.springframework.web.reactive.function.server.HandlerFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.util.pattern.PathPattern;
import reactor.core.publisher.Mono;

/**
 * {@code @Idempotent} for functional routes: a {@link HandlerFilterFunction} to add to a route.
 *
 * <pre>{@code
 * @Bean
 * RouterFunction<ServerResponse> routes(OnlyOnceHandlerFilters onlyOnce, Orders orders) {
 *     return route(POST("/orders"), orders::create).filter(onlyOnce.idempotent());
 * }
 * }</pre>
 *
 * <p>The same rules as an {@code @Idempotent} handler method: the key header, the scope of route
 * template and principal, the fingerprint, replay, 400/409/422/503 problems. A route's answer is held
 * back and recorded whole before it is sent, so do not add the filter to a route that streams.
 * Only the KEY strategy, with the key from the header, applies to routes.
 */
public final class OnlyOnceHandlerFilters {

    private static final Idempotent DEFAULTS = settings(Map.of());

    private final ReactiveIdempotency idempotency;
    private final MethodSettings.Factory factory;
    private final java.util.concurrent.atomic.AtomicInteger filters = new java.util.concurrent.atomic.AtomicInteger();

    public OnlyOnceHandlerFilters(ReactiveIdempotency idempotency, MethodSettings.Factory factory) {
        this.idempotency = idempotency;
        this.factory = factory;
    }

    /** The filter with the defaults of {@code @Idempotent} (a key is required; {@code onlyonce.key.*}). */
    public HandlerFilterFunction<ServerResponse, ServerResponse> idempotent() {
        return idempotent(DEFAULTS);
    }

    /**
     * The filter with {@code annotation}'s settings (retention, lease, required, fingerprint headers,
     * failure mode), for example {@code idempotent(OnlyOnceHandlerFilters.settings(Map.of("retention", "1h")))}.
     *
     * @throws IllegalArgumentException for the TOKEN strategy or a key expression, which routes do not support,
     *     or an unparsable duration
     */
    public HandlerFilterFunction<ServerResponse, ServerResponse> idempotent(Idempotent annotation) {
        if (annotation.strategy() != Idempotent.Strategy.KEY || !annotation.key().isBlank()) {
            throw new IllegalArgumentException("a functional route is keyed by its Idempotency-Key header: the TOKEN"
                    + " strategy and key expressions apply to annotated handler methods only");
        }
        MethodSettings settings = factory.forAnnotation(annotation);
        filters.incrementAndGet();
        return (request, next) -> Mono.just(new Protected(settings, request, next));
    }

    /** How many filters {@link #idempotent} has made so far: the routes it protects. */
    int filtersMade() {
        return filters.get();
    }

    /** An {@link Idempotent} with these attributes (names as on the annotation), the others at their defaults. */
    public static Idempotent settings(Map<String, Object> attributes) {
        return MergedAnnotation.of(Idempotent.class, attributes).synthesize();
    }

    /**
     * The answer of a protected route: runs the route when it is written, so that its answer can
     * be held back and recorded. Its status and headers, until written, are a placeholder's.
     */
    private final class Protected implements ServerResponse {
        private final MethodSettings settings;
        private final ServerRequest request;
        private final HandlerFunction<ServerResponse> next;

        Protected(MethodSettings settings, ServerRequest request, HandlerFunction<ServerResponse> next) {
            this.settings = settings;
            this.request = request;
            this.next = next;
        }

        @Override
        public HttpStatusCode statusCode() {
            return HttpStatus.OK;
        }

        @Override
        public HttpHeaders headers() {
            return new HttpHeaders();
        }

        @Override
        public MultiValueMap<String, ResponseCookie> cookies() {
            return new LinkedMultiValueMap<>();
        }

        @Override
        public Mono<Void> writeTo(ServerWebExchange exchange, Context context) {
            return idempotency.protect(exchange, settings, endpoint(exchange), false, held -> HandlerStart.run(held, () -> next
                    .handle(ServerRequest.from(request).body(held.getRequest().getBody()).build())
                    .flatMap(response -> response.writeTo(held, context))));
        }
    }

    /** {@code METHOD route-template} of the matched route. */
    private static String endpoint(ServerWebExchange exchange) {
        Object pattern = exchange.getAttribute(RouterFunctions.MATCHING_PATTERN_ATTRIBUTE);
        String route = pattern instanceof PathPattern path ? path.getPatternString() : exchange.getRequest().getURI().getRawPath();
        return exchange.getRequest().getMethod().name() + " " + route;
    }
}
