package io.onlyonce.spring.autoconfigure;

import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.onlyonce.redis.RedisAtomicExecutor;
import io.onlyonce.redis.RedisEvictionPolicy;
import io.onlyonce.redis.RedisIdempotencyStore;
import io.onlyonce.redis.RedisStoreConfig;
import io.onlyonce.redis.RedisStoreConnection;
import io.onlyonce.redis.RedisTokenStore;
import io.onlyonce.redis.RedisWindowStore;
import io.onlyonce.redis.springdata.SpringDataRedisStoreConnection;
import io.onlyonce.spring.resilience.CircuitBreakerAtomicExecutor;
import io.onlyonce.spring.resilience.StoreProbes;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.token.TokenStore;
import io.onlyonce.window.WindowStore;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * {@code onlyonce.store=redis}: the stores on the application's own Redis client. With a
 * {@link LettuceConnectionFactory} (Spring Boot's default, from {@code spring.data.redis.*}:
 * standalone, Sentinel or Cluster), over one extra Lettuce connection with a binary codec, made on
 * first use: the fastest path. Otherwise, with {@code onlyonce-redis-spring-data} on the classpath,
 * through the application's one {@link RedisConnectionFactory} (Jedis, Redisson). Nothing here
 * connects while the application starts: the connection is begun once it is ready, without
 * waiting for it, and every store call has a budget of its own
 * ({@code onlyonce.redis.command-timeout}), whatever {@code spring.data.redis.timeout}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({RedisIdempotencyStore.class, RedisConnectionFactory.class})
@ConditionalOnProperty(name = "onlyonce.store", havingValue = "redis")
@ConditionalOnBean(RedisConnectionFactory.class)
public class OnlyOnceRedisConfiguration {

    private static final Logger log = LoggerFactory.getLogger(OnlyOnceRedisConfiguration.class);
    /** How long the warm-up's ping waits for the connection and its answer (nobody waits on it). */
    private static final Duration WARM_UP = Duration.ofSeconds(10);

    /** The application's Lettuce client: the stores use it directly. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(LettuceConnectionFactory.class)
    @ConditionalOnBean(LettuceConnectionFactory.class)
    static class DirectLettuce {

        /**
         * One extra connection of the factory's own client, made on the first store call rather than at
         * start-up, so that the application starts while Redis is down; a call waits for it at most
         * {@code onlyonce.redis.command-timeout}, and a failed attempt is made again by a later call.
         * The client is asked for only then, since the factory may create it late. When the connection
         * is made, the server's {@code maxmemory-policy} is checked once, and a policy that can evict
         * OnlyOnce's keys, which would let a request run twice, is logged as a warning. Not closed
         * here: the factory shuts its client down (closing this connection) when it stops, which comes
         * before bean destruction.
         */
        @Bean(destroyMethod = "")
        @ConditionalOnMissingBean(name = "onlyOnceRedisConnection")
        RedisStoreConnection onlyOnceRedisConnection(LettuceConnectionFactory factory) {
            return RedisStoreConnection.onFirstUse(factory::getRequiredNativeClient,
                    connection -> RedisEvictionPolicy.check(connection).ifPresent(OnlyOnceRedisConfiguration::warn));
        }
    }

    /**
     * Another client (Jedis, Redisson's {@code RedissonConnectionFactory}): the stores run through the
     * application's {@link RedisConnectionFactory}, each call on a thread of a bounded pool so that it
     * keeps its budget although the client blocks. Nothing connects before the first call, after which
     * the server's {@code maxmemory-policy} is checked once and a policy that can evict is logged.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(SpringDataRedisStoreConnection.class)
    @ConditionalOnMissingBean(LettuceConnectionFactory.class)
    @ConditionalOnSingleCandidate(RedisConnectionFactory.class)
    static class ThroughConnectionFactory {

        @Bean
        @ConditionalOnMissingBean(name = "onlyOnceRedisConnection")
        RedisStoreConnection onlyOnceRedisConnection(RedisConnectionFactory factory) {
            return SpringDataRedisStoreConnection.of(factory, SpringDataRedisStoreConnection.DEFAULT_THREADS,
                    OnlyOnceRedisConfiguration::warn);
        }
    }

    private static void warn(String evictionWarning) {
        log.warn("OnlyOnce: {}", evictionWarning);
    }

    @Bean
    @ConditionalOnMissingBean
    RedisStoreConfig onlyOnceRedisStoreConfig(OnlyOnceProperties properties) {
        OnlyOnceProperties.Redis redis = properties.redis();
        return new RedisStoreConfig(redis.keyPrefix(), redis.tokenShards(), redis.commandTimeout());
    }

    /**
     * Begins the connection once the application is ready, without waiting for it: the first
     * request then finds it made instead of spending its budget on connecting (on a busy host, a
     * connection that takes longer than the budget would answer the first requests after a deploy
     * 503). A Redis that is down changes nothing: the application has started, and a later call
     * connects as before.
     */
    @Bean
    @ConditionalOnMissingBean(name = "onlyOnceRedisWarmUp")
    @ConditionalOnBean(RedisStoreConnection.class)
    ApplicationListener<ApplicationReadyEvent> onlyOnceRedisWarmUp(RedisStoreConnection onlyOnceRedisConnection) {
        return ready -> onlyOnceRedisConnection.pingAsync(WARM_UP);
    }

    /** Asks Redis whether it answers (a script that only returns 1), within the budget of one store call. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(RedisStoreConnection.class)
    StoreProbes.Probe onlyOnceStoreProbe(RedisStoreConnection onlyOnceRedisConnection, RedisStoreConfig config) {
        return () -> onlyOnceRedisConnection.ping(config.commandTimeout());
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(RedisStoreConnection.class)
    IdempotencyStore onlyOnceIdempotencyStore(RedisStoreConnection onlyOnceRedisConnection, RedisStoreConfig config) {
        return RedisIdempotencyStore.of(onlyOnceRedisConnection, config);
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(RedisStoreConnection.class)
    TokenStore onlyOnceTokenStore(RedisStoreConnection onlyOnceRedisConnection, RedisStoreConfig config) {
        return RedisTokenStore.of(onlyOnceRedisConnection, config);
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(RedisStoreConnection.class)
    WindowStore onlyOnceWindowStore(RedisStoreConnection onlyOnceRedisConnection, RedisStoreConfig config) {
        return RedisWindowStore.of(onlyOnceRedisConnection, config);
    }

    /**
     * Effects that are Redis scripts, run in one script call with their record, token and window;
     * on the stores' connection and settings, so the stores see what a call did.
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(RedisStoreConnection.class)
    RedisAtomicExecutor onlyOnceRedisAtomicExecutor(RedisStoreConnection onlyOnceRedisConnection, RedisStoreConfig config) {
        return RedisAtomicExecutor.of(onlyOnceRedisConnection, config);
    }

    /** The same, through the idempotency store's circuit breaker and the request's store budget. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(RedisAtomicExecutor.class)
    CircuitBreakerAtomicExecutor onlyOnceGuardedAtomicExecutor(RedisAtomicExecutor onlyOnceRedisAtomicExecutor,
            OnlyOnceProperties properties, CircuitBreakerRegistry breakers) {
        return new CircuitBreakerAtomicExecutor(onlyOnceRedisAtomicExecutor, properties.circuitBreaker().enabled()
                ? breakers.circuitBreaker(OnlyOnceAutoConfiguration.IDEMPOTENCY_BREAKER)
                : null);
    }
}
