package io.onlyonce.redis.springdata;

import java.time.Duration;
import java.util.List;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.spring.data.connection.RedissonConnectionFactory;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** The Redis clients that reach the stores through a Spring Data {@link RedisConnectionFactory}. */
enum Client {
    LETTUCE, JEDIS, REDISSON;

    /** A started factory of this client on {@code host:port}; its own timeouts are {@code timeout}. */
    Factory connect(String host, int port, Duration timeout) {
        return switch (this) {
            case LETTUCE -> {
                LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port),
                        LettuceClientConfiguration.builder().commandTimeout(timeout).build());
                factory.afterPropertiesSet();
                factory.start();
                yield new Factory(factory, factory::destroy);
            }
            case JEDIS -> {
                JedisConnectionFactory factory = new JedisConnectionFactory(new RedisStandaloneConfiguration(host, port),
                        JedisClientConfiguration.builder().connectTimeout(timeout).readTimeout(timeout).usePooling().build());
                factory.afterPropertiesSet();
                factory.start();
                yield new Factory(factory, factory::destroy);
            }
            case REDISSON -> {
                Config config = new Config();
                // lazy, as an application that must start while Redis is down configures it
                config.setLazyInitialization(true);
                config.useSingleServer().setAddress("redis://" + host + ":" + port)
                        .setConnectionMinimumIdleSize(1).setConnectionPoolSize(16)
                        .setTimeout((int) timeout.toMillis()).setConnectTimeout((int) timeout.toMillis());
                RedissonClient client = Redisson.create(config);
                yield new Factory(new RedissonConnectionFactory(client), client::shutdown);
            }
        };
    }

    /** A started factory of this client on the test Cluster ({@code ONLYONCE_REDIS_CLUSTER_NODE}, 127.0.0.1:7101 by default). */
    Factory connectToTestCluster() {
        String node = TestServer.clusterNode();
        int timeout = 3_000;
        return switch (this) {
            case LETTUCE -> {
                LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisClusterConfiguration(List.of(node)),
                        LettuceClientConfiguration.builder().commandTimeout(Duration.ofMillis(timeout)).build());
                factory.afterPropertiesSet();
                factory.start();
                yield new Factory(factory, factory::destroy);
            }
            case JEDIS -> {
                JedisConnectionFactory factory = new JedisConnectionFactory(new RedisClusterConfiguration(List.of(node)),
                        JedisClientConfiguration.builder().connectTimeout(Duration.ofMillis(timeout))
                                .readTimeout(Duration.ofMillis(timeout)).usePooling().build());
                factory.afterPropertiesSet();
                factory.start();
                yield new Factory(factory, factory::destroy);
            }
            case REDISSON -> {
                Config config = new Config();
                config.useClusterServers().addNodeAddress("redis://" + node).setTimeout(timeout).setConnectTimeout(timeout);
                RedissonClient client = Redisson.create(config);
                yield new Factory(new RedissonConnectionFactory(client), client::shutdown);
            }
        };
    }

    /** A factory of the test server on {@code ONLYONCE_REDIS_HOST}:{@code ONLYONCE_REDIS_PORT}, 127.0.0.1:6379 by default. */
    Factory connectToTestServer() {
        return connect(TestServer.host(), TestServer.port(), Duration.ofSeconds(3));
    }

    /** A factory and how to shut its client down. */
    record Factory(RedisConnectionFactory factory, Runnable shutdown) implements AutoCloseable {
        @Override
        public void close() {
            shutdown.run();
        }
    }
}
