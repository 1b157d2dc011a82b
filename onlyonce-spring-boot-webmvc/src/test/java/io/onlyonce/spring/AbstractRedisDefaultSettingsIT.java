package io.onlyonce.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.spring.testapp.OrderController;
import io.onlyonce.spring.testapp.TestApplication;
import io.onlyonce.testing.PrivateRedis;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Spring Boot's default Redis client settings: no {@code spring.data.redis.timeout}, so Lettuce
 * would wait 60 s for an answer, and it reconnects, queueing commands while disconnected. Redis is a
 * private {@code redis-server} on a port of the test class's own (never the shared 6379), which a
 * test starts late or kills. A store call's budget is {@code onlyonce.redis.command-timeout}, 2 s
 * by default; the bound the tests assert, 10 s, only proves "not Lettuce's 60 s".
 */
@SpringBootTest(classes = TestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "onlyonce.store=redis",
            "onlyonce.circuit-breaker.wait-duration-in-open-state=1s",
            "management.endpoint.health.show-details=always"
        })
@DirtiesContext
abstract class AbstractRedisDefaultSettingsIT {

    /** Far below Lettuce's 60 s command timeout, far above the 2 s budget. */
    protected static final long WITHIN_BUDGET_MILLIS = 10_000;

    protected static final String ORDER = "{\"item\":\"phone\",\"quantity\":1,\"businessId\":\"b-1\"}";

    private static int redisPort;
    private static @Nullable PrivateRedis redis;

    @DynamicPropertySource
    static void redisOnAPortOfItsOwn(DynamicPropertyRegistry registry) throws Exception {
        redisPort = PrivateRedis.freePort();
        registry.add("onlyonce.redis.key-prefix", () -> "oo-defaults:");
        registry.add("spring.data.redis.host", () -> "127.0.0.1");
        registry.add("spring.data.redis.port", () -> redisPort);
    }

    /** Starts the private server on the port the application was configured with. */
    protected static void startRedis() throws Exception {
        redis = PrivateRedis.start(redisPort);
    }

    /** Kills the private server. */
    protected static void killRedis() throws Exception {
        if (redis != null) {
            redis.close();
            redis = null;
        }
    }

    @AfterAll
    static void stopRedis() throws Exception {
        killRedis();
    }

    @LocalServerPort
    int port;

    @Autowired
    protected OrderController orders;

    protected Http http;

    @BeforeEach
    void setUpHttp() {
        http = new Http(port);
        orders.reset();
    }

    protected HttpResponse<String> order(String key) {
        return http.send(http.post("/orders", "alice", ORDER).header("Idempotency-Key", key));
    }

    protected HttpResponse<String> order() {
        return order(UUID.randomUUID().toString());
    }

    /** {@code /actuator/health/onlyonce}. */
    protected HttpResponse<String> health() {
        return http.send(http.get("/actuator/health/onlyonce"));
    }

    /** An answer and how long it took. */
    protected record Timed(HttpResponse<String> response, long millis) {
    }

    /** One order with a key of its own, timed. */
    protected Timed timedOrder() {
        long start = System.nanoTime();
        HttpResponse<String> response = order();
        return new Timed(response, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    }

    /** {@code count} orders at once, each with a key of its own. */
    protected List<Timed> parallelOrders(int count) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(count);
        try {
            List<Future<Timed>> futures = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                futures.add(pool.submit(this::timedOrder));
            }
            List<Timed> answers = new ArrayList<>();
            for (Future<Timed> future : futures) {
                answers.add(future.get(60, TimeUnit.SECONDS));
            }
            return answers;
        } finally {
            pool.shutdownNow();
        }
    }

    /** The indicator is DOWN, says which store is unreachable, and names no server, client or exception. */
    protected void assertHealthDown() {
        HttpResponse<String> health = health();
        assertThat(health.statusCode()).as(health.body()).isEqualTo(503);
        assertThat(health.body()).contains("\"status\":\"DOWN\"").contains("\"idempotencyStore\":\"unreachable\"")
                .doesNotContainIgnoringCase("exception").doesNotContainIgnoringCase("redis")
                .doesNotContainIgnoringCase("lettuce").doesNotContain("127.0.0.1").doesNotContain(Integer.toString(redisPort));
    }

    /** Waits until the indicator is UP: the stores answer again, without a restart. */
    protected void awaitHealthUp() {
        Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            HttpResponse<String> health = health();
            assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
            assertThat(health.body()).contains("\"status\":\"UP\"").contains("\"idempotencyStore\":\"reachable\"")
                    .contains("\"tokenStore\":\"reachable\"");
        });
    }

    /** Once Redis answers, a request is protected again: it runs once, and its retry is a replay. */
    protected void assertProtectedAgain() {
        String key = UUID.randomUUID().toString();
        int before = orders.executions("orders");
        Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .untilAsserted(() -> assertThat(order(key).statusCode()).isEqualTo(201));
        HttpResponse<String> retry = order(key);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(orders.executions("orders")).isEqualTo(before + 1);
    }

    /**
     * What was logged while requests failed: one WARN that the idempotency store is unavailable (the
     * breaker opening), no stack trace, nothing about keys completed without their response, and
     * only a few WARN lines in all (the client's own reconnect notice among them).
     */
    protected static void assertOutageLog(String log) {
        assertThat(log).doesNotContain("keeping its key completed without the response")
                .doesNotContain("StoreUnavailableException").doesNotContain("Caused by")
                .doesNotContainPattern("(?m)^\\s+at [a-z]");
        assertThat(log.lines().filter(line -> line.contains("OnlyOnce idempotency store unavailable, circuit breaker OPEN")))
                .hasSize(1);
        assertThat(log.lines().filter(line -> line.contains(" WARN ")).toList()).hasSizeLessThanOrEqualTo(3);
    }

    /**
     * With Redis not started yet: the health indicator is DOWN, and an order is answered within the
     * budget.
     */
    protected Timed orderWhileRedisIsDown() {
        assertHealthDown();
        Timed answer = timedOrder();
        assertThat(answer.millis()).as("answered after %d ms", answer.millis()).isLessThan(WITHIN_BUDGET_MILLIS);
        return answer;
    }

    /** Starts Redis: the indicator turns UP and requests are protected again, without a restart. */
    protected void assertRecoversOnceRedisIsUp() throws Exception {
        startRedis();
        awaitHealthUp();
        assertProtectedAgain();
    }

    /** What a number of orders answered while Redis was gone, and what was logged meanwhile. */
    protected record Outage(List<Timed> answers, String log) {
    }

    /** Redis up, one order, Redis killed, then {@code count} orders at once. */
    protected Outage ordersAfterRedisDies(int count, CapturedOutput output) throws Exception {
        startRedis();
        awaitHealthUp();
        assertThat(order().statusCode()).isEqualTo(201);
        killRedis();
        int mark = output.getAll().length();
        List<Timed> answers = parallelOrders(count);
        return new Outage(answers, output.getAll().substring(mark));
    }

    /** Every answer came with {@code status}, within the budget rather than Lettuce's timeout. */
    protected static void assertAllWithinBudget(List<Timed> answers, int status) {
        assertThat(answers).allSatisfy(answer -> {
            assertThat(answer.response().statusCode()).as(answer.response().body()).isEqualTo(status);
            assertThat(answer.millis()).as("answered after %d ms", answer.millis()).isLessThan(WITHIN_BUDGET_MILLIS);
        });
    }
}
