package io.onlyonce.spring.reactive;

import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.onlyonce.engine.IdempotencyEngine;
import io.onlyonce.engine.IdempotencyListener;
import io.onlyonce.spring.autoconfigure.OnlyOnceAutoConfiguration;
import io.onlyonce.spring.autoconfigure.OnlyOnceProperties;
import io.onlyonce.spring.autoconfigure.PrincipalRequiredCheck;
import io.onlyonce.spring.autoconfigure.TokenSigning;
import io.onlyonce.spring.http.TokenLimits;
import io.onlyonce.token.TokenService;
import io.onlyonce.spring.method.MethodSettings;
import io.onlyonce.spring.method.ObservedDurations;
import io.onlyonce.spring.method.WebInvocations;
import io.onlyonce.spring.metrics.OnlyOnceStatistics;
import io.onlyonce.spring.resilience.CircuitBreakerAsyncIdempotencyStore;
import io.onlyonce.spring.resilience.CircuitBreakerAtomicExecutor;
import io.onlyonce.spring.http.OnlyOnceProblems;
import io.onlyonce.store.AsyncIdempotencyStore;
import io.onlyonce.store.IdempotencyStore;
import java.util.Arrays;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.ApplicationContext;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.reactive.function.server.RequestPredicates;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.reactive.DispatcherHandler;
import org.springframework.web.reactive.config.WebFluxConfigurer;
import org.springframework.web.reactive.result.method.annotation.ArgumentResolverConfigurer;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * {@code @Idempotent} in a reactive (WebFlux) web application: the web filter for annotated
 * controllers, the handler filters for functional routes, and the engine's non-blocking path.
 *
 * <p>Stores: the Redis and in-memory stores answer without blocking (they implement
 * {@link AsyncIdempotencyStore}); any other store (JDBC) is called on Reactor's bounded elastic
 * scheduler, never on the event loop. Either way the calls go through the idempotency store's
 * circuit breaker, shared with the blocking path, and keep the store's own budget.
 */
@AutoConfiguration(after = OnlyOnceAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "onlyonce.enabled", matchIfMissing = true)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass({DispatcherHandler.class, Mono.class})
public class OnlyOnceReactiveAutoConfiguration {

    private static final String DEFAULT_PRINCIPAL_RESOLVER = "onlyOnceReactivePrincipalResolver";

    @Bean(DEFAULT_PRINCIPAL_RESOLVER)
    @ConditionalOnMissingBean
    ReactivePrincipalResolver onlyOnceReactivePrincipalResolver() {
        return ReactivePrincipalResolver.fromSecurityContext();
    }

    /**
     * Warns at start-up when {@code onlyonce.principal-required} would refuse every request to the
     * {@code @Idempotent} handlers and routes: no Spring Security and no {@link ReactivePrincipalResolver}
     * of the application's.
     */
    @Bean
    @ConditionalOnMissingBean(name = "onlyOncePrincipalRequiredCheck")
    SmartInitializingSingleton onlyOncePrincipalRequiredCheck(OnlyOnceProperties properties, ApplicationContext context,
            ObjectProvider<OnlyOnceHandlerFilters> routes) {
        return () -> {
            boolean own = Arrays.stream(context.getBeanNamesForType(ReactivePrincipalResolver.class))
                    .anyMatch(name -> !name.equals(DEFAULT_PRINCIPAL_RESOLVER));
            OnlyOnceHandlerFilters filters = routes.getIfAvailable();
            int protectedRoutes = filters == null ? 0 : filters.filtersMade();
            PrincipalRequiredCheck.warnIfAnonymous(context, properties.principalRequired(), own, "ReactivePrincipalResolver",
                    protectedRoutes == 0 ? List.of() : List.of(protectedRoutes + " functional route"
                            + (protectedRoutes == 1 ? "" : "s")));
        };
    }

    /** The reactive adapter, on an engine of its own whose claims and completions do not block. */
    @Bean
    @ConditionalOnMissingBean
    ReactiveIdempotency onlyOnceReactiveIdempotency(ObjectProvider<IdempotencyStore> stores, OnlyOnceProperties properties,
            CircuitBreakerRegistry breakers, ObjectProvider<IdempotencyListener> listeners, OnlyOnceStatistics statistics,
            ObservedDurations durations, ObjectProvider<OnlyOnceProblems> problems, ReactivePrincipalResolver principals,
            TokenService tokens, ObjectProvider<ServerCodecConfigurer> codecs) {
        IdempotencyStore store = stores.getObject();
        AsyncIdempotencyStore async = AsyncIdempotencyStore.of(store, task -> Schedulers.boundedElastic().schedule(task));
        if (properties.circuitBreaker().enabled()) {
            async = new CircuitBreakerAsyncIdempotencyStore(async,
                    breakers.circuitBreaker(OnlyOnceAutoConfiguration.IDEMPOTENCY_BREAKER));
        }
        IdempotencyEngine engine = IdempotencyEngine.builder(OnlyOnceAutoConfiguration.guardedIdempotency(store, properties, breakers))
                .async(async)
                .listener(OnlyOnceAutoConfiguration.listener(listeners.orderedStream().toList()))
                .build();
        return new ReactiveIdempotency(engine, async, tokens, properties.token().header(), principals, statistics, durations,
                problems.getIfAvailable(() -> new OnlyOnceProblems(properties.problemTypeBase())),
                properties.principalRequired(), properties.key().header(), properties.key().maxBodySize().toBytes(),
                codecs.getIfAvailable(ServerCodecConfigurer::create));
    }

    @Bean
    @ConditionalOnMissingBean
    OnlyOnceWebFilter onlyOnceWebFilter(ReactiveIdempotency idempotency, MethodSettings.Factory settings,
            ObjectProvider<RequestMappingHandlerMapping> mappings, ObjectProvider<OnlyOnceHandlerStartFilter> starts) {
        return new OnlyOnceWebFilter(idempotency, settings, mappings, starts);
    }

    /** Marks where an {@code @Idempotent} handler begins: a request cancelled before it releases its key. */
    @Bean
    @ConditionalOnMissingBean
    OnlyOnceHandlerStartFilter onlyOnceHandlerStartFilter() {
        return new OnlyOnceHandlerStartFilter();
    }

    @Bean
    @ConditionalOnMissingBean
    OnlyOnceHandlerFilters onlyOnceHandlerFilters(ReactiveIdempotency idempotency, MethodSettings.Factory settings) {
        return new OnlyOnceHandlerFilters(idempotency, settings);
    }

    /** {@code POST /idempotency/tokens} ({@code onlyonce.token.path}): issues one-time tokens, as on the servlet side. */
    @Bean
    @ConditionalOnMissingBean(name = "onlyOnceTokenRoute")
    @ConditionalOnBooleanProperty(name = "onlyonce.token.endpoint-enabled", matchIfMissing = true)
    @ConditionalOnBooleanProperty(name = "onlyonce.token.enabled", matchIfMissing = true)
    @Conditional(TokenSigning.Signed.class)
    RouterFunction<ServerResponse> onlyOnceTokenRoute(TokenService tokens, TokenLimits limits,
            ReactivePrincipalResolver principals, ReactiveIdempotency idempotency, OnlyOnceProperties properties) {
        return RouterFunctions.route(RequestPredicates.POST(properties.token().path()), new ReactiveTokenEndpoint(tokens,
                limits, principals, idempotency, properties.principalRequired(), properties.key().unavailableRetryAfter()));
    }

    /**
     * {@link ReactiveAtomicIdempotency} arguments, with {@code onlyonce.store=redis}: effects that
     * are Redis scripts, run in one script call with their record and token.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.onlyonce.redis.RedisAtomicExecutor")
    @ConditionalOnBean(type = "io.onlyonce.spring.resilience.CircuitBreakerAtomicExecutor")
    static class Atomic {

        @Bean
        @ConditionalOnMissingBean(name = "onlyOnceAtomicWebFluxConfigurer")
        WebFluxConfigurer onlyOnceAtomicWebFluxConfigurer(CircuitBreakerAtomicExecutor executor, TokenService tokens,
                OnlyOnceStatistics statistics, ObservedDurations durations) {
            ReactiveAtomicIdempotencyArgumentResolver resolver =
                    new ReactiveAtomicIdempotencyArgumentResolver(executor, tokens, statistics, durations);
            return new WebFluxConfigurer() {
                @Override
                public void configureArgumentResolvers(ArgumentResolverConfigurer configurer) {
                    configurer.addCustomResolver(resolver);
                }
            };
        }
    }

    /** Lets a WebFlux controller's {@code @Idempotent} call through the method advice: the web filter protects it. */
    @Bean
    @ConditionalOnMissingBean
    WebInvocations onlyOnceReactiveHandlerMethods() {
        return new ReactiveHandlerMethods();
    }
}
