package io.onlyonce.spring.autoconfigure;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.codec.ByteArrayCodec;
import io.onlyonce.redis.RedisEvictionPolicy;
import io.onlyonce.redis.RedisIdempotencyStore;
import io.onlyonce.redis.RedisStoreConfig;
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
 * binary codec.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({RedisIdempotencyStore.class, LettuceConnectionFactory.class})
@ConditionalOnProperty(name = "onlyonce.store", havingValue = "redis")
@ConditionalOnBean(LettuceConnectionFactory.class)
class OnlyOnceRedisConfiguration {

    private static final Logger log = LoggerFactory.getLogger(OnlyOnceRedisConfiguration.class);

    /**
     * One extra connection of the factory's own client. Not closed here: the factory shuts its
     * client down (closing this connection) when it stops, which comes before bean destruction.
     * Warns at start-up when the server's {@code maxmemory-policy} can evict OnlyOnce's keys, which
     * would let a request run twice.
     */
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean(name = "onlyOnceRedisConnection")
    StatefulConnection<byte[], byte[]> onlyOnceRedisConnection(LettuceConnectionFactory factory) {
        AbstractRedisClient client = factory.getRequiredNativeClient();
        StatefulConnection<byte[], byte[]> connection = client instanceof RedisClusterClient cluster
                ? cluster.connect(ByteArrayCodec.INSTANCE)
                : ((RedisClient) client).connect(ByteArrayCodec.INSTANCE);
        RedisEvictionPolicy.check(connection).ifPresent(warning -> log.warn("OnlyOnce: {}", warning));
        return connection;
    }

    @Bean
    @ConditionalOnMissingBean
    RedisStoreConfig onlyOnceRedisStoreConfig(OnlyOnceProperties properties) {
        return new RedisStoreConfig(properties.redis().keyPrefix(), properties.redis().tokenShards());
    }

    @Bean
    @ConditionalOnMissingBean
    IdempotencyStore onlyOnceIdempotencyStore(StatefulConnection<byte[], byte[]> onlyOnceRedisConnection, RedisStoreConfig config) {
        return RedisIdempotencyStore.of(onlyOnceRedisConnection, config);
    }

    @Bean
    @ConditionalOnMissingBean
    TokenStore onlyOnceTokenStore(StatefulConnection<byte[], byte[]> onlyOnceRedisConnection, RedisStoreConfig config) {
        return RedisTokenStore.of(onlyOnceRedisConnection, config);
    }

    @Bean
    @ConditionalOnMissingBean
    WindowStore onlyOnceWindowStore(StatefulConnection<byte[], byte[]> onlyOnceRedisConnection, RedisStoreConfig config) {
        return RedisWindowStore.of(onlyOnceRedisConnection, config);
    }
}
