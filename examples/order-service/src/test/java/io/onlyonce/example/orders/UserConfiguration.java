package io.onlyonce.example.orders;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * One configuration the order service runs in for a test class: its database (PostgreSQL through
 * JdbcClient, or MariaDB through MyBatis), and where OnlyOnce keeps its records (Redis, configured
 * only through {@code spring.data.redis.*}; or the JDBC store, joined to the business transaction
 * on a pool of four with autocommit off, or not, on a pool twice the request threads).
 *
 * @param database the database of its own
 * @param redisPrefix the key prefix of the Redis store, or null for the JDBC store
 * @param redisPort the port of the Redis store
 * @param joined whether the JDBC store joins the business transaction
 */
record UserConfiguration(ScratchDatabase database, @Nullable String redisPrefix, int redisPort, boolean joined) {

    /** The port of the shared Redis. */
    static final int SHARED_REDIS = 6379;

    static UserConfiguration postgresWithRedis() {
        return postgresWithRedisOn(SHARED_REDIS);
    }

    /** As {@link #postgresWithRedis()}, with Redis down: the store's port is closed. */
    static UserConfiguration postgresWithRedisDown() {
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            return postgresWithRedisOn(socket.getLocalPort());
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static UserConfiguration postgresWithRedisOn(int port) {
        return new UserConfiguration(ScratchDatabase.postgres(),
                "oo-orders-" + UUID.randomUUID().toString().substring(0, 8) + ":", port, false);
    }

    static UserConfiguration postgresWithJdbc(boolean joined) {
        return new UserConfiguration(ScratchDatabase.postgres(), null, 0, joined);
    }

    static UserConfiguration mariadbWithJdbc(boolean joined) {
        return new UserConfiguration(ScratchDatabase.mariadb(), null, 0, joined);
    }

    void register(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", database::url);
        registry.add("spring.datasource.username", database::user);
        registry.add("spring.datasource.password", () -> "");
        registry.add("spring.sql.init.platform", database::platform);
        registry.add("orders.persistence", () -> database.platform().equals("postgresql") ? "jdbc-client" : "mybatis");
        if (redisPrefix != null) {
            registry.add("onlyonce.store", () -> "redis");
            registry.add("onlyonce.redis.key-prefix", () -> redisPrefix);
            registry.add("spring.data.redis.host", () -> "127.0.0.1");
            registry.add("spring.data.redis.port", () -> redisPort);
            if (redisPort == SHARED_REDIS) {
                // HTTP semantics, not outages: the first lazy connect and a 50-way burst on a loaded
                // build machine stay within the store's budget (the budget itself is tested by
                // onlyonce-spring-boot's RedisOutageDefaultSettings*IT, an outage by PostgresRedisDownIT)
                registry.add("onlyonce.redis.command-timeout", () -> "30s");
                registry.add("onlyonce.circuit-breaker.slow-call-duration-threshold", () -> "30s");
            }
            return;
        }
        registry.add("onlyonce.store", () -> "jdbc");
        registry.add("onlyonce.jdbc.join-transaction", () -> joined);
        if (joined) {
            registry.add("spring.datasource.hikari.maximum-pool-size", () -> 4);
            registry.add("spring.datasource.hikari.auto-commit", () -> false);
            registry.add("spring.datasource.hikari.connection-timeout", () -> 10_000);
        } else {
            // not joined, each call holds the transaction's connection and borrows a second one for
            // the store (start-up warns of it): the pool covers twice the request threads, as the
            // warning asks, or a burst of 50 starves it until Hikari's connection timeout
            registry.add("server.tomcat.threads.max", () -> 8);
            registry.add("spring.datasource.hikari.maximum-pool-size", () -> 20);
            registry.add("spring.datasource.hikari.connection-timeout", () -> 10_000);
        }
    }

    /** The scope of each live OnlyOnce record for {@code refundNo}, such as {@code method <class>#<method> alice}. */
    List<String> scopes(StringRedisTemplate redis, String refundNo) {
        if (redisPrefix != null) {
            // <prefix>i:<scope>:<key>; these scopes hold no character the key layout escapes
            List<String> scopes = new ArrayList<>();
            for (String name : redis.keys(redisPrefix + "i:*:" + refundNo)) {
                scopes.add(name.substring((redisPrefix + "i:").length(), name.length() - refundNo.length() - 1));
            }
            return scopes;
        }
        return database.strings("SELECT scope FROM onlyonce_idempotency WHERE idem_key = '" + refundNo + "'");
    }

    /** The status of each live OnlyOnce record for {@code refundNo}: P (in progress) or C (completed). */
    List<String> records(StringRedisTemplate redis, String refundNo) {
        List<String> statuses = new ArrayList<>();
        if (redisPrefix != null) {
            // <prefix>i:<scope>:<key>, whose first byte says R(unning), or D/N when done
            for (String name : redis.keys(redisPrefix + "i:*:" + refundNo)) {
                String value = redis.opsForValue().get(name);
                if (value != null) {
                    statuses.add(value.startsWith("R") ? "P" : "C");
                }
            }
            return statuses;
        }
        String where = " FROM onlyonce_idempotency WHERE idem_key = '" + refundNo + "' AND status = ";
        for (long i = database.count("SELECT count(*)" + where + "'C'"); i > 0; i--) {
            statuses.add("C");
        }
        for (long i = database.count("SELECT count(*)" + where + "'P'"); i > 0; i--) {
            statuses.add("P");
        }
        return statuses;
    }
}
