package io.onlyonce.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.onlyonce.redis.RedisIdempotencyStore;
import io.onlyonce.redis.RedisStoreConfig;
import io.onlyonce.redis.RedisStoreConnection;
import io.onlyonce.redis.springdata.SpringDataRedisStoreConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.spring.data.connection.RedissonConnectionFactory;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import redis.clients.jedis.Jedis;

/**
 * Claim + complete cycles per second of the Redis idempotency store on each client, next to the
 * direct Lettuce connection measured in the same run: Lettuce direct (the baseline), Lettuce through
 * Spring Data's {@code LettuceConnectionFactory}, Jedis through {@code JedisConnectionFactory}
 * (pool as large as the clients), Redisson through {@code RedissonConnectionFactory}. Each round
 * runs the four in turn; the table shows every round's ratios.
 *
 * <pre>bench/run.sh RedisClientsBench [--seconds=10] [--warmup=3] [--clients=50] [--rounds=2]</pre>
 */
public final class RedisClientsBench {

    private RedisClientsBench() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = Harness.args(args);
        int seconds = Harness.option(options, "seconds", 10);
        int warmup = Harness.option(options, "warmup", 3);
        int clients = Harness.option(options, "clients", 50);
        int rounds = Harness.option(options, "rounds", 2);
        RedisURI uri = RedisURI.create(Harness.env("ONLYONCE_REDIS_URI", "redis://127.0.0.1:6379"));
        String host = uri.getHost();
        int port = uri.getPort();
        String[] names = {"Lettuce direct", "Lettuce via RedisConnectionFactory", "Jedis via RedisConnectionFactory",
            "Redisson via RedisConnectionFactory"};
        List<double[]> results = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            double[] rates = new double[names.length];
            for (int i = 0; i < names.length; i++) {
                String prefix = "oo-bench-" + UUID.randomUUID().toString().substring(0, 8) + ":";
                RedisStoreConfig config = new RedisStoreConfig(prefix, 256);
                rates[i] = switch (i) {
                    case 0 -> {
                        RedisClient client = RedisClient.create(uri);
                        try (RedisStoreConnection connection = RedisStoreConnection.onFirstUse(() -> client)) {
                            yield StoreThroughputBench.run(RedisIdempotencyStore.of(connection, config), clients, warmup, seconds);
                        } finally {
                            client.shutdown();
                        }
                    }
                    case 1 -> {
                        LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port));
                        factory.afterPropertiesSet();
                        factory.start();
                        yield throughFactory(factory, factory::destroy, config, clients, warmup, seconds);
                    }
                    case 2 -> {
                        GenericObjectPoolConfig<Jedis> pool = new GenericObjectPoolConfig<>();
                        pool.setMaxTotal(clients);
                        pool.setMaxIdle(clients);
                        JedisConnectionFactory factory = new JedisConnectionFactory(new RedisStandaloneConfiguration(host, port),
                                JedisClientConfiguration.builder().usePooling().poolConfig(pool).build());
                        factory.afterPropertiesSet();
                        factory.start();
                        yield throughFactory(factory, factory::destroy, config, clients, warmup, seconds);
                    }
                    default -> {
                        Config redissonConfig = new Config();
                        redissonConfig.useSingleServer().setAddress("redis://" + host + ":" + port);
                        RedissonClient client = Redisson.create(redissonConfig);
                        yield throughFactory(new RedissonConnectionFactory(client), client::shutdown, config, clients, warmup, seconds);
                    }
                };
                unlink(host, port, prefix);
                System.out.printf("round %d  %-38s %,10.0f cycles/s%n", round + 1, names[i], rates[i]);
            }
            results.add(rates);
        }
        System.out.println();
        System.out.printf("%-38s %16s %s%n", "client", "cycles/s (last)", "vs Lettuce direct, each round");
        for (int i = 0; i < names.length; i++) {
            StringBuilder ratios = new StringBuilder();
            for (double[] rates : results) {
                ratios.append(String.format("%6.2f", rates[i] / rates[0]));
            }
            System.out.printf("%-38s %16s %s%n", names[i], String.format("%,.0f", results.get(results.size() - 1)[i]), ratios);
        }
        System.out.println("(" + clients + " client threads, " + seconds + " s per run after " + warmup + " s of warm-up, "
                + Duration.ofSeconds((long) rounds * names.length * (seconds + warmup)).toSeconds() + " s in all)");
    }

    /** The cycle rate of the store over {@code factory}; {@code shutdown} stops the factory's client afterwards. */
    private static double throughFactory(RedisConnectionFactory factory, Runnable shutdown, RedisStoreConfig config,
            int clients, int warmup, int seconds) throws InterruptedException {
        try (RedisStoreConnection connection = SpringDataRedisStoreConnection.of(factory)) {
            return StoreThroughputBench.run(RedisIdempotencyStore.of(connection, config), clients, warmup, seconds);
        } finally {
            shutdown.run();
        }
    }

    private static void unlink(String host, int port, String prefix) throws Exception {
        Harness.exec(List.of("sh", "-c", "redis-cli -h " + host + " -p " + port + " --scan --pattern '" + prefix + "*'"
                + " | xargs -r -n 500 redis-cli -h " + host + " -p " + port + " UNLINK > /dev/null"));
    }
}
