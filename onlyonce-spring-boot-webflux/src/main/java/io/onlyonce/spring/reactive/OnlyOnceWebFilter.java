package io.onlyonce.spring.reactive;

import io.onlyonce.spring.Idempotent;
import io.onlyonce.spring.method.MethodSettings;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.Ordered;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.http.HttpEntity;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import org.springframework.web.util.pattern.PathPattern;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code @Idempotent} on annotated WebFlux controllers: finds the handler method a request maps to
 * (through the application's {@link RequestMappingHandlerMapping}s) and, when it is
 * {@code @Idempotent}, runs the rest of the chain through {@link ReactiveIdempotency}. Other
 * requests pass through untouched. Ordered just after Spring Security's chain (-100), so that the
 * principal is known.
 *
 * <p>A method that answers {@code Mono} (or a plain value) is recorded and replayed; one that
 * streams ({@code Flux}, another multi-value {@code Publisher}) is passed through and not stored,
 * which start-up logs once per method. A method that declares a {@link ReactiveAtomicIdempotency}
 * decides its request itself, in one Redis script call ({@link ReactiveIdempotency#protectSelfDecided}).
 */
public final class OnlyOnceWebFilter implements WebFilter, Ordered, SmartInitializingSingleton {

    /** Order of this filter: after Spring Security's WebFilterChainProxy (-100). */
    public static final int ORDER = -80;
    private static final Logger log = LoggerFactory.getLogger(OnlyOnceWebFilter.class);

    private final ReactiveIdempotency idempotency;
    private final MethodSettings.Factory settings;
    private final ObjectProvider<RequestMappingHandlerMapping> mappingProvider;
    private final @Nullable ObjectProvider<OnlyOnceHandlerStartFilter> startProvider;
    private final Map<Method, Boolean> streamed = new ConcurrentHashMap<>();
    private final Map<Method, Boolean> selfDeciding = new ConcurrentHashMap<>();
    private volatile List<RequestMappingHandlerMapping> mappings = List.of();

    /** Whether {@link OnlyOnceHandlerStartFilter} marks where handlers begin; else they begin with the rest of the chain. */
    private volatile boolean startsMarked;

    /**
     * A filter without {@link OnlyOnceHandlerStartFilter}: a handler counts as begun once the rest
     * of the chain is, so a request cancelled after the key's claim releases it only when the chain
     * had not been called yet.
     */
    public OnlyOnceWebFilter(ReactiveIdempotency idempotency, MethodSettings.Factory settings,
            ObjectProvider<RequestMappingHandlerMapping> mappings) {
        this(idempotency, settings, mappings, null);
    }

    /** @param starts the filter that marks where handlers begin, when the application has it */
    public OnlyOnceWebFilter(ReactiveIdempotency idempotency, MethodSettings.Factory settings,
            ObjectProvider<RequestMappingHandlerMapping> mappings, @Nullable ObjectProvider<OnlyOnceHandlerStartFilter> starts) {
        this.idempotency = idempotency;
        this.settings = settings;
        this.mappingProvider = mappings;
        this.startProvider = starts;
    }

    /** Whether each handler method is {@code @Idempotent}, looked up once (every request asks). */
    private final java.util.Map<Method, Boolean> idempotentMethods = new java.util.concurrent.ConcurrentHashMap<>();

    @Override
    public int getOrder() {
        return ORDER;
    }

    /** Finds the mappings, and says once per streaming {@code @Idempotent} method that its answer is not stored. */
    @Override
    public void afterSingletonsInstantiated() {
        mappings = mappingProvider.orderedStream().toList();
        startsMarked = startProvider != null && startProvider.getIfAvailable() != null;
        for (RequestMappingHandlerMapping mapping : mappings) {
            mapping.getHandlerMethods().values().stream().distinct().forEach(handler -> {
                if (isIdempotent(handler.getMethod()) && streams(handler)) {
                    log.warn("OnlyOnce: {}.{} streams its answer ({}): its key is kept once it ran, but the answer is"
                            + " not stored; a retry with the same key is answered 422 idempotency-response-not-kept",
                            handler.getBeanType().getSimpleName(), handler.getMethod().getName(),
                            handler.getMethod().getReturnType().getSimpleName());
                }
            });
        }
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        return handler(exchange).map(Optional::of).defaultIfEmpty(Optional.empty()).flatMap(found -> {
            if (found.orElse(null) instanceof HandlerMethod handler && isIdempotent(handler.getMethod())) {
                MethodSettings method = settings.forMethod(handler.getMethod());
                if (decidesItself(handler.getMethod())) {
                    return idempotency.protectSelfDecided(exchange, method, endpoint(exchange), chain::filter);
                }
                return idempotency.protect(exchange, method, endpoint(exchange), streams(handler), startsMarked
                        ? chain::filter
                        : rest -> HandlerStart.run(rest, () -> chain.filter(rest)));
            }
            return chain.filter(exchange);
        });
    }

    /** The handler method of the first mapping that has one; empty otherwise (the dispatcher decides then). */
    private Mono<Object> handler(ServerWebExchange exchange) {
        return Flux.fromIterable(mappings)
                .concatMap(mapping -> mapping.getHandler(exchange).onErrorResume(e -> Mono.empty()))
                .next();
    }

    private boolean streams(HandlerMethod handler) {
        return streamed.computeIfAbsent(handler.getMethod(), m -> {
            ResolvableType type = ResolvableType.forMethodReturnType(m, handler.getBeanType());
            if (HttpEntity.class.isAssignableFrom(type.toClass())) {
                type = type.as(HttpEntity.class).getGeneric(0);
            }
            Class<?> returned = type.toClass();
            return org.reactivestreams.Publisher.class.isAssignableFrom(returned) && !Mono.class.isAssignableFrom(returned);
        });
    }

    /** Whether the method declares an argument that decides the request itself ({@link ReactiveAtomicIdempotency}). */
    private boolean decidesItself(Method method) {
        return selfDeciding.computeIfAbsent(method, m -> Arrays.stream(m.getParameterTypes())
                .anyMatch(SelfDeciding.class::isAssignableFrom));
    }

    private boolean isIdempotent(Method method) {
        return idempotentMethods.computeIfAbsent(method, m -> AnnotatedElementUtils.hasAnnotation(m, Idempotent.class));
    }

    /** {@code METHOD route-template}, for example {@code POST /api/orders/{id}/cancel}. */
    static String endpoint(ServerWebExchange exchange) {
        Object pattern = exchange.getAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE);
        String route = pattern instanceof PathPattern path ? path.getPatternString()
                : pattern != null ? pattern.toString() : exchange.getRequest().getURI().getRawPath();
        return exchange.getRequest().getMethod().name() + " " + route;
    }
}
