package io.onlyonce.gateway;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.InvalidIdempotencyKeyException;
import io.onlyonce.gateway.RequestDedupMetrics.Outcome;
import io.onlyonce.gateway.internal.RequestBody;
import io.onlyonce.gateway.internal.RequestFingerprints;
import io.onlyonce.http.WindowFingerprint;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.cloud.gateway.filter.GatewayFilter;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.factory.AbstractGatewayFilterFactory;
import org.springframework.cloud.gateway.route.Route;
import org.springframework.cloud.gateway.support.HasRouteId;
import org.springframework.cloud.gateway.support.ServerWebExchangeUtils;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * {@code RequestDedup}: the gateway layer's request window on Spring Cloud Gateway. A request whose
 * fingerprint (see {@link DedupRule#fields()}) was already seen on its route within the window is
 * answered {@code 429} with the problem {@code duplicate-request} and {@code Retry-After} (the time
 * left in the window), and never reaches the service. A request carrying the same idempotency key
 * ({@code Idempotency-Key}) as the request that opened the window is that client's retry: it passes,
 * uncounted, so that the service replays its stored answer; the same request with another key or
 * none is still a duplicate.
 *
 * <p>The body, when the rule needs it, is read once: digested in full as it streams in, held at most
 * up to {@code maxBodySize} ({@code 413} beyond, declared or found) and handed on byte for byte. The
 * caller is the verified principal of the exchange (with Spring Security's resource server, the
 * JWT's subject), never a header; anonymous callers are told apart by the client address.
 *
 * <p>Store faults fail open: a call that errs, outlasts its timeout budget or meets an open circuit
 * lets the request through unchecked, counted as {@code fail_open}; the layers behind still hold.
 * The rule is read on every request from {@link RequestDedupRules}, so run-time changes apply to the
 * next request.
 *
 * <pre>
 * filters:
 *   - name: RequestDedup
 *     args:
 *       window: 2s
 *       fields: principal, body:productId
 * </pre>
 */
public class RequestDedupGatewayFilterFactory extends AbstractGatewayFilterFactory<RequestDedupGatewayFilterFactory.Config> {

    private static final Logger log = LoggerFactory.getLogger(RequestDedupGatewayFilterFactory.class);
    /** 128 bits of the opener's digest: enough that two keys of one caller never share one. */
    private static final int OPENER_HEX_DIGITS = 32;

    private final ReactiveWindowStore store;
    private final RequestDedupRules rules;
    private final CircuitBreaker breaker;
    private final RequestDedupMetrics metrics;
    private final GatewayProblems problems;
    private final Duration timeout;
    private final long maxBodySize;
    private final String keyHeader;

    /**
     * @param timeout the budget of one store call; past it the request fails open
     * @param maxBodySize the largest body read and fingerprinted; a larger one is answered 413
     * @param problemTypeBase the start of the problems' {@code type} URIs
     * @param keyHeader the request header of the idempotency key, whose retry within the window is let
     *     through to the service; empty: none
     */
    public RequestDedupGatewayFilterFactory(ReactiveWindowStore store, RequestDedupRules rules, CircuitBreaker breaker,
            RequestDedupMetrics metrics, Duration timeout, long maxBodySize, String problemTypeBase, String keyHeader) {
        super(Config.class);
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("the store timeout must be positive");
        }
        if (maxBodySize < 0 || maxBodySize > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("the body limit must be between 0 and 2 GiB");
        }
        this.store = store;
        this.rules = rules;
        this.breaker = breaker;
        this.metrics = metrics;
        this.problems = new GatewayProblems(problemTypeBase);
        this.timeout = timeout;
        this.maxBodySize = maxBodySize;
        this.keyHeader = keyHeader.strip();
    }

    @Override
    public GatewayFilter apply(Config config) {
        DedupRule configured = config.toRule();
        String configuredRouteId = config.getRouteId();
        if (configuredRouteId != null) {
            rules.configure(configuredRouteId, configured);
        }
        return new GatewayFilter() {
            @Override
            public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
                Route route = exchange.getAttribute(ServerWebExchangeUtils.GATEWAY_ROUTE_ATTR);
                String routeId = route != null ? route.getId() : configuredRouteId != null ? configuredRouteId : "-";
                return dedup(exchange, chain, routeId, rules.effective(routeId, configured));
            }

            @Override
            public String toString() {
                return "RequestDedup" + configured;
            }
        };
    }

    private Mono<Void> dedup(ServerWebExchange exchange, GatewayFilterChain chain, String routeId, DedupRule rule) {
        ServerHttpRequest request = exchange.getRequest();
        if (!rule.enabled() || !rule.methods().contains(request.getMethod().name())) {
            return chain.filter(exchange);
        }
        Mono<Optional<RequestBody>> body = rule.needsBody()
                ? RequestBody.read(request, maxBodySize).map(Optional::of)
                : Mono.just(Optional.empty());
        return body
                .onErrorResume(RequestBody.TooLargeException.class, e -> {
                    metrics.count(routeId, Outcome.TOO_LARGE);
                    return problems.write(exchange, GatewayProblems.PAYLOAD_TOO_LARGE, Long.toString(maxBodySize)).then(Mono.empty());
                })
                .flatMap(read -> caller(exchange).flatMap(caller -> decide(exchange, chain, routeId, rule,
                        read.orElse(null), caller)));
    }

    private Mono<Void> decide(ServerWebExchange exchange, GatewayFilterChain chain, String routeId, DedupRule rule,
            @Nullable RequestBody body, String caller) {
        ServerHttpRequest request = exchange.getRequest();
        RequestFingerprints parts = new RequestFingerprints(request,
                new WindowFingerprint.Recipe(rule.fields(), rule.ignoredParameters(), rule.numericVariables()),
                ServerWebExchangeUtils.getUriTemplateVariables(exchange), body, caller);
        String businessIdSource = rule.businessIdSource();
        if (businessIdSource != null && rule.businessIdPattern() != null) {
            String id = parts.present(businessIdSource) ? parts.value(businessIdSource) : "";
            if (!rule.businessIdPattern().matcher(id).matches()) {
                metrics.count(routeId, Outcome.BUSINESS_ID_INVALID);
                return problems.write(exchange, GatewayProblems.BUSINESS_ID_INVALID);
            }
        }
        Fingerprint fingerprint = parts.fingerprint(routeId);
        ServerWebExchange forward = body == null ? exchange
                : exchange.mutate().request(body.replaying(request, exchange.getResponse().bufferFactory())).build();
        return hit(routeId, fingerprint, rule.window(), opener(parts, caller)).flatMap(hit -> {
            if (hit.isEmpty()) {
                metrics.count(routeId, Outcome.FAIL_OPEN);
                return chain.filter(forward);
            }
            if (hit.get().retry()) {
                metrics.count(routeId, Outcome.KEYED_RETRY);
                return chain.filter(forward);
            }
            if (hit.get().hit().first()) {
                metrics.count(routeId, Outcome.PASSED);
                return chain.filter(forward);
            }
            metrics.count(routeId, Outcome.DUPLICATE);
            return problems.writeRetryAfter(exchange, GatewayProblems.DUPLICATE_REQUEST, hit.get().hit().retryAfterSeconds());
        });
    }

    /**
     * The opener a request names in the window: a digest of the caller and its idempotency key
     * (the one {@code keyHeader}, an sf-string or bare, as the service reads it); null without one,
     * or with two or a malformed one (the service refuses those).
     */
    private @Nullable String opener(RequestFingerprints parts, String caller) {
        if (keyHeader.isEmpty()) {
            return null;
        }
        List<String> values = parts.headerValues(keyHeader);
        if (values.size() != 1) {
            return null;
        }
        try {
            String name = IdempotencyKey.parseHeaderValue(values.get(0));
            return Fingerprint.of("idempotency-key", caller, name).hex().substring(0, OPENER_HEX_DIGITS);
        } catch (InvalidIdempotencyKeyException malformed) {
            return null;
        }
    }

    /** The hit, or empty when the store could not answer within the budget (fail open). */
    private Mono<Optional<KeyedWindowHit>> hit(String routeId, Fingerprint fingerprint, Duration window,
            @Nullable String opener) {
        if (!breaker.tryAcquirePermission()) {
            log.debug("request de-dup skipped on route {}: circuit open", routeId);
            return Mono.just(Optional.empty());
        }
        return Mono.defer(() -> {
            long start = System.nanoTime();
            AtomicBoolean settled = new AtomicBoolean();
            Mono<KeyedWindowHit> call = opener == null
                    ? store.hit(fingerprint, window).map(hit -> new KeyedWindowHit(hit, false))
                    : store.hit(fingerprint, window, opener);
            return call
                    .timeout(timeout)
                    .map(hit -> {
                        long elapsed = System.nanoTime() - start;
                        settled.set(true);
                        breaker.onSuccess(elapsed, TimeUnit.NANOSECONDS);
                        metrics.storeCall(routeId, Duration.ofNanos(elapsed), true);
                        return Optional.of(hit);
                    })
                    .onErrorResume(e -> {
                        long elapsed = System.nanoTime() - start;
                        settled.set(true);
                        breaker.onError(elapsed, TimeUnit.NANOSECONDS, e);
                        metrics.storeCall(routeId, Duration.ofNanos(elapsed), false);
                        log.debug("request de-dup skipped on route {}: {}", routeId, e.toString());
                        return Mono.just(Optional.empty());
                    })
                    .doOnCancel(() -> {
                        if (settled.compareAndSet(false, true)) {
                            breaker.releasePermission();
                        }
                    });
        });
    }

    private static Mono<String> caller(ServerWebExchange exchange) {
        InetSocketAddress remote = exchange.getRequest().getRemoteAddress();
        String address = remote == null || remote.getAddress() == null ? "" : remote.getAddress().getHostAddress();
        return exchange.getPrincipal().map(principal -> "p:" + principal.getName()).defaultIfEmpty("ip:" + address);
    }

    /**
     * The filter's arguments in a route definition; see {@link DedupRule} for their meaning. Lists
     * may be written as YAML lists or comma-separated.
     */
    public static class Config implements HasRouteId {

        private @Nullable String routeId;
        private boolean enabled = true;
        private List<String> methods = new ArrayList<>(DedupRule.DEFAULT_METHODS);
        private Duration window = DedupRule.DEFAULT_WINDOW;
        private List<String> fields = new ArrayList<>();
        private List<String> ignoredParameters = new ArrayList<>(DedupRule.DEFAULT_IGNORED_PARAMETERS);
        private List<String> numericVariables = new ArrayList<>();
        private @Nullable String businessIdSource;
        private @Nullable String businessIdPattern;

        /** The immutable rule these arguments describe. */
        public DedupRule toRule() {
            return new DedupRule(enabled, new LinkedHashSet<>(methods), window, fields, ignoredParameters, numericVariables,
                    businessIdSource == null || businessIdSource.isBlank() ? null : businessIdSource,
                    DedupRule.businessIdFormat(businessIdPattern));
        }

        @Override
        public void setRouteId(String routeId) {
            this.routeId = routeId;
        }

        @Override
        public @Nullable String getRouteId() {
            return routeId;
        }

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public List<String> getMethods() {
            return methods;
        }

        public void setMethods(List<String> methods) {
            this.methods = methods;
        }

        public Duration getWindow() {
            return window;
        }

        public void setWindow(Duration window) {
            this.window = window;
        }

        public List<String> getFields() {
            return fields;
        }

        public void setFields(List<String> fields) {
            this.fields = fields;
        }

        public List<String> getIgnoredParameters() {
            return ignoredParameters;
        }

        public void setIgnoredParameters(List<String> ignoredParameters) {
            this.ignoredParameters = ignoredParameters;
        }

        public List<String> getNumericVariables() {
            return numericVariables;
        }

        public void setNumericVariables(List<String> numericVariables) {
            this.numericVariables = numericVariables;
        }

        public @Nullable String getBusinessIdSource() {
            return businessIdSource;
        }

        public void setBusinessIdSource(@Nullable String businessIdSource) {
            this.businessIdSource = businessIdSource;
        }

        public @Nullable String getBusinessIdPattern() {
            return businessIdPattern;
        }

        public void setBusinessIdPattern(@Nullable String businessIdPattern) {
            this.businessIdPattern = businessIdPattern;
        }
    }
}
