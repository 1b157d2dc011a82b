package io.onlyonce.example.seckill.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.example.seckill.SeckillApplication;
import io.onlyonce.example.seckill.support.Api;
import io.onlyonce.example.seckill.support.Concurrently;
import io.onlyonce.example.seckill.support.ExternalDatabases;
import io.onlyonce.example.seckill.support.Redis;
import io.onlyonce.example.seckill.support.TestSecrets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The reference service as deployed on Redis (profiles {@code postgres,redis}, the settings of
 * {@code application-redis.yml}: 2 s per Redis call and per request) while its Redis is paused
 * (SIGSTOP) and then stopped (killed): every write endpoint (an order with its key, a flash-sale
 * token, a flash-sale purchase) is a 503 problem within the request's budget, at once once the
 * breakers are open; readiness is DOWN meanwhile and UP again within seconds of Redis' return. The
 * Redis is a {@code redis-server} of this class on a free port, never the shared one.
 */
@SpringBootTest(classes = SeckillApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"seckill.order.sweeper-enabled=false", "seckill.limits.enabled=true", "onlyonce.dedup.enabled=true"})
@ActiveProfiles({"postgres", "redis"})
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
class RedisOutageIT {

    /** application-redis.yml's budget, plus what a loaded machine adds: each call waiting its own 2 s would exceed it. */
    private static final long WITHIN_BUDGET_MILLIS = 2_000 + 1_500;
    /** Generous against the promised 0.3 s. */
    private static final long AT_ONCE_MILLIS = 1_000;
    private static final int BURST = 12;
    private static final long PRODUCT = 970_001;

    static final String DATABASE = ExternalDatabases.newName();
    static Redis.Private redis;

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry registry) {
        redis = Redis.Private.startFor(registry);
        TestSecrets.register(registry);
        ExternalDatabases.usePostgres(registry, DATABASE);
    }

    @AfterAll
    static void drop() throws Exception {
        redis.resumeAndClose();
        ExternalDatabases.dropPostgres(DATABASE);
    }

    @LocalServerPort
    int port;

    @Autowired
    JdbcClient jdbc;

    private record Timed(String what, Api.Response response, long millis) {
    }

    @Test
    void everyWriteIsA503WithinTheBudgetWhileRedisIsPausedOrStoppedAndReadinessFollowsRedis() throws Exception {
        jdbc.sql("INSERT INTO products (id, name, price, stock) VALUES (?, ?, ?, ?)")
                .params(PRODUCT, "Outage test product", new java.math.BigDecimal("5.00"), 10_000).update();
        Api api = new Api(port);
        Api.Session buyer = api.login("outage-buyer");
        Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .untilAsserted(() -> assertReady(api, true));
        assertThat(api.order(buyer, Api.businessId(buyer), PRODUCT, 1).status()).isEqualTo(201);
        assertThat(api.seckill(buyer, 1, api.token(buyer, 1)).status()).isEqualTo(202);
        // the purchase below brings a token issued while Redis answered
        Api.Session late = api.login("outage-late");
        String token = api.token(late, 1);

        redis.signal("STOP");
        for (Timed write : writes(api, late, token)) {
            assertUnavailable(write, WITHIN_BUDGET_MILLIS);
        }
        // enough failures at once to open the breakers (a burst on a loaded machine measures the machine)
        burst(api, buyer).forEach(order -> assertUnavailable(order, Long.MAX_VALUE));
        assertReady(api, false);
        for (Timed write : writes(api, late, token)) {
            assertUnavailable(write, AT_ONCE_MILLIS);
        }
        redis.signal("CONT");
        assertRecovers(api, "outage-resumed");

        redis.kill();
        for (Timed write : writes(api, late, token)) {
            assertUnavailable(write, AT_ONCE_MILLIS);
        }
        burst(api, buyer).forEach(order -> assertUnavailable(order, Long.MAX_VALUE));
        assertReady(api, false);
        assertThat(ordersOf(late, PRODUCT) + ordersOf(buyer, PRODUCT)).as("no order while Redis was out").isEqualTo(1);
        assertThat(jdbc.sql("SELECT COUNT(*) FROM orders WHERE user_id = ? AND activity_id = 1").param(late.userId())
                .query(Long.class).single()).as("nor a flash-sale purchase").isZero();

        redis = redis.startAgain();
        assertRecovers(api, "outage-restarted");
    }

    /** The three writes: an order with its key, a flash-sale token, a flash-sale purchase. */
    private static List<Timed> writes(Api api, Api.Session session, String token) {
        return List.of(
                timed("order", () -> api.order(session, Api.businessId(session), PRODUCT, 1)),
                timed("token", () -> api.post("/api/seckill/activities/1/tokens", session, null)),
                timed("purchase", () -> api.seckill(session, 1, token)));
    }

    private static Timed timed(String what, Supplier<Api.Response> write) {
        long start = System.nanoTime();
        Api.Response response = write.get();
        return new Timed(what, response, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    }

    private static void assertUnavailable(Timed write, long withinMillis) {
        assertThat(write.response().status()).as("%s: %s", write.what(), write.response()).isEqualTo(503);
        assertThat(write.response().header("Content-Type")).startsWith("application/problem+json");
        assertThat(write.response().problem()).as(write.what()).isEqualTo("idempotency-store-unavailable");
        assertThat(write.response().header("Retry-After")).as(write.what()).isNotNull();
        assertThat(write.response().body()).doesNotContain("Exception").doesNotContainIgnoringCase("redis");
        assertThat(write.millis()).as("%s answered after %d ms", write.what(), write.millis()).isLessThan(withinMillis);
    }

    private static void assertReady(Api api, boolean ready) {
        Api.Response readiness = api.get("/actuator/health/readiness", null);
        assertThat(readiness.status()).as(readiness.toString()).isEqualTo(ready ? 200 : 503);
        assertThat(readiness.text("status")).isEqualTo(ready ? "UP" : "DOWN");
        assertThat(api.get("/actuator/health/liveness", null).status()).as("alive throughout").isEqualTo(200);
    }

    /**
     * Ready again within 5 s of Redis' return, and an order with a key runs once, its retry replayed
     * (by a buyer of its own: the requests sent while Redis was paused count toward the others' rate
     * once it resumes).
     */
    private void assertRecovers(Api api, String name) {
        Awaitility.await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(100))
                .untilAsserted(() -> assertReady(api, true));
        Api.Session buyer = api.login(name);
        String key = Api.businessId(buyer);
        Api.Response first = api.order(buyer, key, PRODUCT, 1);
        assertThat(first.status()).as(first.toString()).isEqualTo(201);
        Awaitility.await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(300)).untilAsserted(() -> {
            Api.Response retry = api.order(buyer, key, PRODUCT, 1);
            assertThat(retry.status()).as(retry.toString()).isEqualTo(201);
            assertThat(retry.header("Idempotent-Replayed")).isEqualTo("true");
        });
        assertThat(jdbc.sql("SELECT COUNT(*) FROM orders WHERE business_id = ?").param(key).query(Long.class).single())
                .isEqualTo(1);
    }

    private long ordersOf(Api.Session session, long product) {
        return jdbc.sql("SELECT COUNT(*) FROM orders WHERE user_id = ? AND product_id = ?").params(session.userId(), product)
                .query(Long.class).single();
    }

    private static List<Timed> burst(Api api, Api.Session buyer) throws Exception {
        return Concurrently.times(BURST, () -> timed("order", () -> api.order(buyer, Api.businessId(buyer), PRODUCT, 1)));
    }
}
