package io.onlyonce.spring.autoconfigure;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.engine.IdempotencyConfig;
import io.onlyonce.engine.IdempotencyEngine;
import io.onlyonce.engine.IdempotencyListener;
import io.onlyonce.memory.InMemoryIdempotencyStore;
import io.onlyonce.memory.InMemoryTokenStore;
import io.onlyonce.memory.InMemoryWindowStore;
import io.onlyonce.spring.Idempotent;
import io.onlyonce.spring.OnlyOnceConfigurationException;
import io.onlyonce.spring.method.CallerPrincipal;
import io.onlyonce.spring.method.IdempotentAdvisingPostProcessor;
import io.onlyonce.spring.method.IdempotentInvocationInterceptor;
import io.onlyonce.spring.method.MethodSettings;
import io.onlyonce.spring.method.ObservedDurations;
import io.onlyonce.spring.method.ResultCodec;
import io.onlyonce.spring.method.TransactionJoin;
import io.onlyonce.spring.method.WebInvocations;
import io.onlyonce.spring.metrics.MicrometerOutcomeRecorder;
import io.onlyonce.spring.metrics.OnlyOnceStatistics;
import io.onlyonce.spring.metrics.OutcomeRecorder;
import io.onlyonce.spring.resilience.CircuitBreakerIdempotencyStore;
import io.onlyonce.spring.resilience.CircuitBreakerTokenStore;
import io.onlyonce.spring.resilience.CircuitBreakerWindowStore;
import io.onlyonce.spring.resilience.StoreProbes;
import io.onlyonce.spring.resilience.StoreStateLog;
import io.onlyonce.spring.method.IdempotentMethodValidator;
import io.onlyonce.spring.http.TokenLimits;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.token.TokenConfig;
import io.onlyonce.token.TokenService;
import io.onlyonce.token.TokenStore;
import io.onlyonce.window.WindowStore;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;

/**
 * The engine, the stores (memory by default; Redis and JDBC in their own configurations), the
 * circuit breakers and the token service. Every bean backs off when the application defines its
 * own. The web stacks and the message layer are auto-configurations of their own modules. When the chosen store cannot be built
 * (for example {@code onlyonce.store=redis} without Lettuce), start-up fails with a message that
 * says what is missing, rather than falling back to a store of this instance only.
 */
@AutoConfiguration(afterName = {
    "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
    "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
    "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
    // Spring Boot 3's names of the same
    "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration",
    "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
    "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration"
})
@ConditionalOnBooleanProperty(name = "onlyonce.enabled", matchIfMissing = true)
@EnableConfigurationProperties(OnlyOnceProperties.class)
@Import({OnlyOnceRedisConfiguration.class, OnlyOnceJdbcConfiguration.class})
public class OnlyOnceAutoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(OnlyOnceAutoConfiguration.class);

    /** Names of the circuit breakers, one per store. */
    public static final String IDEMPOTENCY_BREAKER = "onlyonce-idempotency";
    public static final String TOKEN_BREAKER = "onlyonce-token";
    public static final String WINDOW_BREAKER = "onlyonce-window";

    /** The in-memory stores: the default, for one instance. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(name = "onlyonce.store", havingValue = "memory", matchIfMissing = true)
    static class MemoryStores {

        @Bean
        @ConditionalOnMissingBean
        IdempotencyStore onlyOnceIdempotencyStore(OnlyOnceProperties properties, ObjectProvider<Clock> clock) {
            return new InMemoryIdempotencyStore(clock(clock), properties.memory().maximumSize());
        }

        @Bean
        @ConditionalOnMissingBean
        TokenStore onlyOnceTokenStore(OnlyOnceProperties properties, ObjectProvider<Clock> clock) {
            return new InMemoryTokenStore(clock(clock), properties.memory().maximumSize());
        }

        @Bean
        @ConditionalOnMissingBean
        WindowStore onlyOnceWindowStore(OnlyOnceProperties properties, ObjectProvider<Clock> clock) {
            return new InMemoryWindowStore(clock(clock), properties.memory().maximumSize());
        }
    }

    static Clock clock(ObjectProvider<Clock> clock) {
        return clock.getIfAvailable(Clock::systemUTC);
    }

    /** The store bean of {@code type}, or a start-up failure that says why the configured store is missing. */
    public static <T> T requireStore(ObjectProvider<T> provider, Class<T> type, OnlyOnceProperties properties) {
        T store = provider.getIfAvailable();
        if (store != null) {
            return store;
        }
        String configured = properties.store().name().toLowerCase(java.util.Locale.ROOT);
        String action = switch (properties.store()) {
            case REDIS -> "Add io.onlyonce:onlyonce-redis and spring-boot-starter-data-redis (Lettuce, its default"
                    + " client) to the dependencies, so that a LettuceConnectionFactory bean exists; or, with Jedis or"
                    + " Redisson (a JedisConnectionFactory or RedissonConnectionFactory bean), add"
                    + " io.onlyonce:onlyonce-redis-spring-data as well, so that the stores use that RedisConnectionFactory";
            case JDBC -> "Add io.onlyonce:onlyonce-jdbc and spring-boot-starter-jdbc to the dependencies, and define"
                    + " a single DataSource (spring.datasource.url)";
            case MEMORY -> "Declare a bean of that type";
        };
        throw new OnlyOnceConfigurationException("No OnlyOnce " + type.getSimpleName() + " for onlyonce.store="
                + configured + ".", action + ", or declare your own " + type.getSimpleName() + " bean.");
    }

    /**
     * The store breakers: failures ({@link StoreUnavailableException}) and slow calls both count, so a
     * store that answers slowly opens its breaker as one that fails does. Every change of state is
     * logged once ({@link StoreStateLog}).
     */
    @Bean
    @ConditionalOnMissingBean
    CircuitBreakerRegistry onlyOnceCircuitBreakerRegistry(OnlyOnceProperties properties) {
        OnlyOnceProperties.CircuitBreaker settings = properties.circuitBreaker();
        // on the JDBC store a call may wait by design (a duplicate of a running request waits for its
        // transaction when the store joins transactions): there only failures count
        boolean countSlowCalls = properties.store() != OnlyOnceProperties.StoreType.JDBC;
        CircuitBreakerConfig config = CircuitBreakerConfig.custom()
                .failureRateThreshold(settings.failureRateThreshold())
                .slowCallDurationThreshold(settings.slowCallDurationThreshold())
                .slowCallRateThreshold(countSlowCalls ? settings.slowCallRateThreshold() : 100)
                .minimumNumberOfCalls(settings.minimumNumberOfCalls())
                .slidingWindowSize(settings.slidingWindowSize())
                .waitDurationInOpenState(settings.waitDurationInOpenState())
                .permittedNumberOfCallsInHalfOpenState(settings.permittedNumberOfCallsInHalfOpenState())
                .recordExceptions(StoreUnavailableException.class)
                .build();
        CircuitBreakerRegistry registry = CircuitBreakerRegistry.of(config);
        StoreStateLog.attachTo(registry);
        return registry;
    }

    /**
     * The probes of the configured store ({@code onlyonce.circuit-breaker.probe-interval}): they close
     * the store's breakers about one interval after it answers again. Without a probe for the store
     * (the in-memory one, a store of the application's own), the breakers wait their open-state wait.
     */
    @Bean(initMethod = "start", destroyMethod = "close")
    @ConditionalOnMissingBean
    StoreProbes onlyOnceStoreProbes(ObjectProvider<StoreProbes.Probe> probes, OnlyOnceProperties properties,
            CircuitBreakerRegistry breakers) {
        StoreProbes.Probe probe = probes.getIfUnique();
        List<CircuitBreaker> probed = probe == null || !properties.circuitBreaker().enabled() ? List.of()
                : List.of(breakers.circuitBreaker(IDEMPOTENCY_BREAKER), breakers.circuitBreaker(TOKEN_BREAKER),
                        breakers.circuitBreaker(WINDOW_BREAKER));
        return new StoreProbes(probe == null ? () -> false : probe, probed, properties.circuitBreaker().probeInterval());
    }

    @Bean
    @ConditionalOnMissingBean
    OnlyOnceStatistics onlyOnceStatistics(ObjectProvider<MicrometerOutcomeRecorder> micrometer) {
        List<OutcomeRecorder> delegates = new ArrayList<>(micrometer.orderedStream().toList());
        return new OnlyOnceStatistics(delegates);
    }

    @Bean
    @ConditionalOnMissingBean
    IdempotencyEngine onlyOnceEngine(ObjectProvider<IdempotencyStore> stores, OnlyOnceProperties properties,
            CircuitBreakerRegistry breakers, ObjectProvider<IdempotencyListener> listeners) {
        IdempotencyStore guarded = guardedIdempotency(requireStore(stores, IdempotencyStore.class, properties),
                properties, breakers);
        return IdempotencyEngine.builder(guarded)
                .listener(listener(listeners.orderedStream().toList()))
                .build();
    }

    @Bean
    @ConditionalOnMissingBean
    IdempotencyConfig onlyOnceDefaultConfig(OnlyOnceProperties properties) {
        OnlyOnceProperties.Key key = properties.key();
        return IdempotencyConfig.custom()
                .retention(PropertyChecks.atLeastOneMillisecond(key.retention(), "onlyonce.key.retention"))
                .lease(PropertyChecks.atLeastOneMillisecond(key.lease(), "onlyonce.key.lease"))
                .storeFailurePolicy(key.storeFailurePolicy())
                .unavailableRetryAfter(PropertyChecks.atLeastOneMillisecond(key.unavailableRetryAfter(),
                        "onlyonce.key.unavailable-retry-after"))
                .build();
    }

    @Bean
    @ConditionalOnMissingBean
    TokenService onlyOnceTokenService(ObjectProvider<TokenStore> stores, OnlyOnceProperties properties,
            CircuitBreakerRegistry breakers, ObjectProvider<Clock> clock) {
        TokenStore store = requireStore(stores, TokenStore.class, properties);
        List<byte[]> secrets = new ArrayList<>();
        for (String secret : properties.token().secrets()) {
            secrets.add(secret.getBytes(StandardCharsets.UTF_8));
        }
        boolean randomSecret = false;
        if (secrets.isEmpty()) {
            // a shared store without secrets: the validator refuses every TOKEN method, and the
            // token endpoint is not registered; the random secret then signs nothing
            byte[] random = new byte[32];
            new SecureRandom().nextBytes(random);
            secrets.add(random);
            if (properties.token().enabled() && properties.store().isShared()) {
                log.info("OnlyOnce one-time tokens are off: onlyonce.store={} is shared by every instance and"
                        + " onlyonce.token.secrets is not set, so the token endpoint is not registered. To use"
                        + " @Idempotent(strategy = TOKEN), set onlyonce.token.secrets (at least 32 bytes, the same on"
                        + " every instance).", properties.store().name().toLowerCase(java.util.Locale.ROOT));
            } else if (properties.token().enabled()) {
                // said when the first token is issued: an application that uses no tokens is not told
                randomSecret = true;
            }
        }
        TokenStore guarded = properties.circuitBreaker().enabled()
                ? new CircuitBreakerTokenStore(store, breakers.circuitBreaker(TOKEN_BREAKER))
                : store;
        if (randomSecret) {
            guarded = new RandomSecretWarning(guarded);
        }
        return new TokenService(guarded, new TokenConfig(properties.token().ttl(), secrets), clock(clock));
    }

    @Bean
    @ConditionalOnMissingBean
    TokenLimits onlyOnceTokenLimits(ObjectProvider<WindowStore> windowStores, OnlyOnceProperties properties,
            CircuitBreakerRegistry breakers) {
        OnlyOnceProperties.TokenRateLimit limit = properties.token().rateLimit();
        WindowStore windows = windowStores.getIfAvailable();
        if (windows == null) {
            log.warn("no WindowStore bean: the token endpoint's per-principal limits (onlyonce.token.rate-limit) are off");
            return new TokenLimits(new io.onlyonce.window.WindowStore() {
                @Override
                public io.onlyonce.window.WindowHit hit(io.onlyonce.Fingerprint key, java.time.Duration window) {
                    throw new StoreUnavailableException("token limits", new IllegalStateException("no WindowStore"));
                }

                @Override
                public void release(io.onlyonce.Fingerprint key) {
                    // nothing was counted
                }
            }, 0, limit.window(), 0, properties.token().ttl());
        }
        return new TokenLimits(guardedWindows(windows, properties, breakers), limit.maxRequests(), limit.window(),
                limit.maxLive(), properties.token().ttl());
    }

    @Bean
    @ConditionalOnMissingBean
    MethodSettings.Factory onlyOnceMethodSettings(IdempotencyConfig defaults, OnlyOnceProperties properties) {
        // a token request's answer outlives the token: a duplicate sent after the token expired is still
        // told "duplicate submission" (with the first answer), not "expired, get a new token"
        return new MethodSettings.Factory(defaults, properties.token().ttl().multipliedBy(2),
                PropertyChecks.headerNames(properties.key().replayExcludedHeaders(), "onlyonce.key.replay-excluded-headers"),
                properties.key().maxBodySize().toBytes());
    }

    /**
     * The advice of every {@code @Idempotent} method: web handlers go to the servlet side when there
     * is one, every other bean's methods (services, message listeners) are handled here.
     */
    @Bean
    @ConditionalOnMissingBean
    IdempotentInvocationInterceptor onlyOnceInvocationInterceptor(IdempotencyEngine engine,
            MethodSettings.Factory settings, OnlyOnceStatistics statistics, ObjectProvider<ResultCodec> json,
            ObjectProvider<WebInvocations> web, ObjectProvider<CallerPrincipal> principal,
            ObjectProvider<TransactionJoin> join, ObservedDurations durations,
            org.springframework.beans.factory.BeanFactory beans) {
        return new IdempotentInvocationInterceptor(engine, settings, statistics,
                json.getIfAvailable(() -> ResultCodec.lazy(beans)), web.getIfAvailable(),
                principal.getIfAvailable(CallerPrincipal::fromSecurityContext), join.getIfAvailable(() -> TransactionJoin.NEVER),
                durations);
    }

    /** How long each protected method and endpoint takes, for the Retry-After of a request in progress. */
    @Bean
    @ConditionalOnMissingBean
    ObservedDurations onlyOnceObservedDurations() {
        return new ObservedDurations();
    }

    /**
     * Applies the advice to every {@code @Idempotent} method, as the innermost advice of its bean
     * (inside a transaction on the same method, whatever the transaction advisor's order).
     */
    @Bean(IdempotentMethodValidator.ADVISOR_BEAN_NAME)
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean(name = IdempotentMethodValidator.ADVISOR_BEAN_NAME)
    static IdempotentAdvisingPostProcessor onlyOnceAdvisor(ObjectProvider<IdempotentInvocationInterceptor> interceptor) {
        return new IdempotentAdvisingPostProcessor(interceptor);
    }

    /**
     * Fails start-up where {@code @Idempotent} cannot apply; registered in every kind of
     * application, so that one without Spring MVC does not run its methods silently unprotected.
     */
    @Bean
    @ConditionalOnMissingBean
    static IdempotentMethodValidator onlyOnceMethodValidator(Environment environment) {
        return new IdempotentMethodValidator(TokenSigning.unsigned(environment));
    }

    /** Every listener bean (Micrometer's and the application's), as one. */
    public static IdempotencyListener listener(List<IdempotencyListener> listeners) {
        if (listeners.isEmpty()) {
            return IdempotencyListener.NONE;
        }
        if (listeners.size() == 1) {
            return listeners.get(0);
        }
        List<IdempotencyListener> all = List.copyOf(listeners);
        return new IdempotencyListener() {
            @Override
            public void onOutcome(io.onlyonce.IdempotencyKey key, io.onlyonce.engine.Outcome outcome) {
                all.forEach(l -> l.onOutcome(key, outcome));
            }

            @Override
            public void onStoreCall(String operation, java.time.Duration elapsed) {
                all.forEach(l -> l.onStoreCall(operation, elapsed));
            }

            @Override
            public void onStoreError(String operation, StoreUnavailableException error) {
                all.forEach(l -> l.onStoreError(operation, error));
            }
        };
    }

    /** The idempotency store, guarded by its circuit breaker. */
    public static IdempotencyStore guardedIdempotency(IdempotencyStore store, OnlyOnceProperties properties,
            CircuitBreakerRegistry breakers) {
        return properties.circuitBreaker().enabled()
                ? new CircuitBreakerIdempotencyStore(store, breakers.circuitBreaker(IDEMPOTENCY_BREAKER))
                : store;
    }

    /** The token store, guarded by its circuit breaker. */
    static TokenStore guardedTokens(TokenStore store, OnlyOnceProperties properties, CircuitBreakerRegistry breakers) {
        return properties.circuitBreaker().enabled()
                ? new CircuitBreakerTokenStore(store, breakers.circuitBreaker(TOKEN_BREAKER))
                : store;
    }

    /**
     * The window store behind the de-dup filter and the token endpoint's limits, guarded by its
     * circuit breaker: also for an application's own limits on the same store.
     */
    public static WindowStore guardedWindows(WindowStore store, OnlyOnceProperties properties, CircuitBreakerRegistry breakers) {
        return properties.circuitBreaker().enabled()
                ? new CircuitBreakerWindowStore(store, breakers.circuitBreaker(WINDOW_BREAKER))
                : store;
    }
}
