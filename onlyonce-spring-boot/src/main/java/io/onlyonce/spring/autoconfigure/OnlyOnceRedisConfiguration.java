package io.onlyonce.spring.autoconfigure;

import io.onlyonce.redis.RedisEvictionPolicy;
import io.onlyonce.redis.RedisIdempotencyStore;
import io.onlyonce.redis.RedisStoreConfig;
import io.onlyonce.redis.RedisStoreConnection;
import io.onlyonce.redis.RedisTokenStore;
import io.onlyonce.redis.RedisWindowStore;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.token.TokenStore;
import io.onlyonce.window.WindowStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * {@code onlyonce.store=redis}: the stores on the application's own Lettuce client (from
 * {@code spring.data.redis.*}: standalone, Sentinel or Cluster), over one extra connection with a
 * binary codec, made on first use. Nothing here connects at start-up, and every store call has a
 * budget of its own ({@code onlyonce.redis.command-timeout}), whatever {@code spring.data.redis.timeout}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({RedisIdempotencyStore.class, LettuceConnectionFactory.class})
@ConditionalOnProperty(name = "onlyonce.store", havingValue = "redis")
@ConditionalOnBean(LettuceConnectionFactory.class)
class OnlyOnceRedisConfiguration {

    private static final Logger log = LoggerFactory.getLogger(OnlyOnceRedisConfiguration.class);

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
                connection -> RedisEvictionPolicy.check(connection).ifPresent(warning -> log.warn("OnlyOnce: {}", warning)));
    }

    @Bean
    @ConditionalOnMissingBean
    RedisStoreConfig onlyOnceRedisStoreConfig(OnlyOnceProperties properties) {
        OnlyOnceProperties.Redis redis = properties.redis();
        return new RedisStoreConfig(redis.keyPrefix(), redis.tokenShards(), redis.commandTimeout());
    }

    @Bean
    @ConditionalOnMissingBean
    IdempotencyStore onlyOnceIdempotencyStore(RedisStoreConnection onlyOnceRedisConnection, RedisStoreConfig config) {
        return RedisIdempotencyStore.of(onlyOnceRedisConnection, config);
    }

    @Bean
    @ConditionalOnMissingBean
    TokenStore onlyOnceTokenStore(RedisStoreConnection onlyOnceRedisConnection, RedisStoreConfig config) {
        return RedisTokenStore.of(onlyOnceRedisConnection, config);
    }

    @Bean
    @ConditionalOnMissingBean
    WindowStore onlyOnceWindowStore(RedisStoreConnection onlyOnceRedisConnection, RedisStoreConfig config) {
        return RedisWindowStore.of(onlyOnceRedisConnection, config);
    }
}
