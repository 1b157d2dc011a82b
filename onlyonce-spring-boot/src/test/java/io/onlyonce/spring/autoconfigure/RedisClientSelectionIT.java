package io.onlyonce.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.redis.RedisIdempotencyStore;
import io.onlyonce.redis.RedisStoreConnection;
import io.onlyonce.redis.RedisWindowStore;
import io.onlyonce.redis.springdata.SpringDataRedisStoreConnection;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.testing.PrivateRedis;
import io.onlyonce.window.WindowStore;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.SpringApplication;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.spring.data.connection.RedissonConnectionFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Which way the starter reaches Redis, per client: the direct Lettuce connection when there is a
 * {@link LettuceConnectionFactory}, the application's {@link RedisConnectionFactory} for Jedis and
 * Redisson, a start-up failure naming both when neither can be used; and on each, a key written in
 * the real Redis under {@code onlyonce.redis.key-prefix}, and the store's budget kept while Redis is
 * down at start-up.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedisClientSelectionIT {

    private final String prefix = "oo-test-sel-" + UUID.randomUUID().toString().substring(0, 8) + ":";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(TestSettings.ONLYONCE)
            .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
            .withPropertyValues(TestSettings.SECRET, "onlyonce.store=redis",
                    "onlyonce.redis.key-prefix=" + prefix, "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=6379");

    @Test
    void lettuceKeepsTheDirectConnection() {
        runner.run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(LettuceConnectionFactory.class)
                    .hasSingleBean(OnlyOnceRedisConfiguration.DirectLettuce.class)
                    .doesNotHaveBean(OnlyOnceRedisConfiguration.ThroughConnectionFactory.class);
            assertKeyRoundTrips(context);
        });
    }

    /** The first request after a deploy finds the connection made: it is begun once the application is ready. */
    @Test
    void theConnectionIsMadeOnceTheApplicationIsReadyBeforeAnyCall() {
        runner.run(context -> {
            RedisStoreConnection connection = context.getBean(RedisStoreConnection.class);
            assertThat(connection.isConnected()).as("nothing connects while the context starts").isFalse();
            context.publishEvent(new ApplicationReadyEvent(new SpringApplication(), new String[0],
                    context.getSourceApplicationContext(ConfigurableApplicationContext.class), Duration.ZERO));
            long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!connection.isConnected() && System.nanoTime() < until) {
                Thread.sleep(20);
            }
            assertThat(connection.isConnected()).as("connected without a store call").isTrue();
        });
    }

    @Test
    void jedisGoesThroughItsConnectionFactory() {
        runner.withPropertyValues("spring.data.redis.client-type=jedis")
                .run(context -> assertThroughConnectionFactory(context, JedisConnectionFactory.class));
    }

    @Test
    void jedisIsUsedWhereSpringBootSeesNoLettuce() {
        // Boot's conditions do not see Lettuce, so it makes a JedisConnectionFactory; this filter
        // hides classes from the conditions only: lettuce-core itself must stay on the classpath,
        // the Redis store classes need it (docs/stores.md)
        runner.withClassLoader(new FilteredClassLoader("io.lettuce")).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(JedisConnectionFactory.class)
                    .hasSingleBean(OnlyOnceRedisConfiguration.ThroughConnectionFactory.class);
            assertKeyRoundTrips(context);
        });
    }

    @Test
    void redissonGoesThroughItsConnectionFactory() {
        runner.withUserConfiguration(RedissonApp.class).withPropertyValues("test.redisson.port=6379")
                .run(context -> assertThroughConnectionFactory(context, RedissonConnectionFactory.class));
    }

    @Test
    void withNeitherPathTheStartUpFailureNamesBothOptions() {
        runner.withPropertyValues("spring.data.redis.client-type=jedis")
                .withClassLoader(new FilteredClassLoader(SpringDataRedisStoreConnection.class))
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure())
                            .hasStackTraceContaining("No OnlyOnce IdempotencyStore for onlyonce.store=redis")
                            .hasStackTraceContaining("LettuceConnectionFactory")
                            .hasStackTraceContaining("io.onlyonce:onlyonce-redis-spring-data");
                });
    }

    @Test
    void jedisStartsWhileRedisIsDownAndKeepsTheBudget() throws Exception {
        int port = PrivateRedis.freePort();
        runner.withPropertyValues("spring.data.redis.client-type=jedis", "spring.data.redis.port=" + port,
                        "spring.data.redis.timeout=60s", "onlyonce.redis.command-timeout=300ms")
                .run(context -> assertStartsDownAndKeepsTheBudget(context, port));
    }

    @Test
    void redissonStartsWhileRedisIsDownAndKeepsTheBudget() throws Exception {
        int port = PrivateRedis.freePort();
        runner.withPropertyValues("onlyonce.redis.command-timeout=300ms", "test.redisson.port=" + port)
                .withUserConfiguration(RedissonApp.class)
                .run(context -> assertStartsDownAndKeepsTheBudget(context, port));
    }

    /**
     * What redisson-spring-boot-starter declares: a RedissonClient (lazy, so that it starts while
     * Redis is down; its own timeout 60 s) and its RedissonConnectionFactory.
     */
    @Configuration(proxyBeanMethods = false)
    static class RedissonApp {

        @Bean(destroyMethod = "shutdown")
        RedissonClient redisson(Environment environment) {
            Config config = new Config();
            config.setLazyInitialization(true);
            config.useSingleServer().setAddress("redis://127.0.0.1:" + environment.getRequiredProperty("test.redisson.port"))
                    .setConnectionMinimumIdleSize(1).setTimeout(60_000);
            return Redisson.create(config);
        }

        @Bean
        RedissonConnectionFactory redissonConnectionFactory(RedissonClient redisson) {
            return new RedissonConnectionFactory(redisson);
        }
    }

    private void assertThroughConnectionFactory(AssertableApplicationContext context, Class<?> factoryType) {
        assertThat(context).hasNotFailed().hasSingleBean(factoryType)
                .doesNotHaveBean(LettuceConnectionFactory.class)
                .hasSingleBean(OnlyOnceRedisConfiguration.ThroughConnectionFactory.class)
                .doesNotHaveBean(OnlyOnceRedisConfiguration.DirectLettuce.class);
        assertKeyRoundTrips(context);
    }

    /** A claim through the store bean writes its key under the prefix in the real Redis; a window is counted there too. */
    private void assertKeyRoundTrips(AssertableApplicationContext context) {
        IdempotencyStore store = context.getBean(IdempotencyStore.class);
        assertThat(store).isInstanceOf(RedisIdempotencyStore.class);
        assertThat(context.getBean(WindowStore.class)).isInstanceOf(RedisWindowStore.class);
        IdempotencyKey key = new IdempotencyKey("alice", "k-" + UUID.randomUUID());
        assertThat(store.claim(key, Fingerprint.of("a"), Duration.ofSeconds(30))).isInstanceOf(ClaimResult.Claimed.class);
        RedisClient client = RedisClient.create("redis://127.0.0.1:6379");
        try (StatefulRedisConnection<String, String> plain = client.connect()) {
            String redisKey = prefix + "i:alice:" + key.name();
            assertThat(plain.sync().get(redisKey)).startsWith("R");
            assertThat(plain.sync().pttl(redisKey)).isBetween(1L, 30_000L);
            plain.sync().del(redisKey);
        } finally {
            client.shutdown();
        }
        assertThat(store.find(key)).isEmpty();
    }

    private void assertStartsDownAndKeepsTheBudget(AssertableApplicationContext context, int port) throws Exception {
        assertThat(context).hasNotFailed().hasSingleBean(OnlyOnceRedisConfiguration.ThroughConnectionFactory.class);
        assertThat(context.getBean(RedisStoreConnection.class).isConnected()).isFalse();
        IdempotencyStore store = context.getBean(IdempotencyStore.class);
        IdempotencyKey key = new IdempotencyKey("alice", "later");
        long start = System.nanoTime();
        assertThatThrownBy(() -> store.claim(key, Fingerprint.of("a"), Duration.ofSeconds(30)))
                .isInstanceOf(StoreUnavailableException.class);
        // the budget is 300 ms, the client's own timeout 60 s
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        try (PrivateRedis server = PrivateRedis.start(port)) {
            long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            ClaimResult claimed = null;
            while (claimed == null && System.nanoTime() < until) {
                try {
                    claimed = store.claim(key, Fingerprint.of("a"), Duration.ofSeconds(30));
                } catch (StoreUnavailableException notYet) {
                    Thread.sleep(200);
                }
            }
            assertThat(claimed).isInstanceOf(ClaimResult.Claimed.class);
        }
    }

    @Test
    void anEvictingServerIsLoggedThroughJedis(CapturedOutput output) throws Exception {
        try (PrivateRedis server = PrivateRedis.start()) {
            RedisClient client = RedisClient.create(server.url());
            try (StatefulRedisConnection<String, String> plain = client.connect()) {
                plain.sync().configSet("maxmemory-policy", "allkeys-lru");
            } finally {
                client.shutdown();
            }
            runner.withPropertyValues("spring.data.redis.client-type=jedis", "spring.data.redis.port=" + server.port())
                    .run(context -> {
                        context.getBean(IdempotencyStore.class).find(new IdempotencyKey("alice", "any"));
                        long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                        while (!output.getOut().contains("maxmemory-policy allkeys-lru") && System.nanoTime() < until) {
                            Thread.sleep(100);
                        }
                        assertThat(output.getOut()).contains("OnlyOnce: Redis runs maxmemory-policy allkeys-lru");
                    });
        }
    }
}
