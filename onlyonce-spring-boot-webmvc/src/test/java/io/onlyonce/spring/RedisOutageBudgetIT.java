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
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A paused and a stopped Redis as a user meets them, with Spring Boot's default client settings
 * (Lettuce would wait 60 s, and queue commands while disconnected) and OnlyOnce's defaults (a
 * store call's own timeout of 2 s, probes once a second) but for a request budget of 1 s, shared by
 * the request's store calls (here two: the de-dup window and the idempotency record). Redis is a private {@code redis-server} of this class
 * (never the shared 6379), paused with SIGSTOP, resumed, killed and started again on its port.
 */
@SpringBootTest(classes = TestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "onlyonce.store=redis",
            "onlyonce.redis.request-budget=1s",
            "onlyonce.dedup.enabled=true",
            "onlyonce.dedup.rules[0].pattern=/orders",
            "onlyonce.dedup.rules[0].window=1s",
            "management.endpoint.health.probes.enabled=true",
            "management.endpoint.health.group.readiness.include=readinessState,onlyonce",
            "management.endpoint.health.group.readiness.show-details=always"
        })
@DirtiesContext
class RedisOutageBudgetIT {

    /**
     * The request budget, half a store call's own timeout (2 s by default), and the generous bound
     * a refusal must come within on a loaded machine: each call waiting its own timeout would take
     * 4 s here.
     */
    private static final long BUDGET_MILLIS = 1_000;
    private static final long WITHIN_BUDGET_MILLIS = BUDGET_MILLIS + 2_000;
    /** A refusal that needs no wait (a stopped server, an open breaker): generous against the promised 0.3 s. */
    private static final long AT_ONCE_MILLIS = 1_000;
    /** Enough calls at once to fill the breakers' minimum number of calls. */
    private static final int BURST = 12;

    private static final String ORDER = "{\"item\":\"phone\",\"quantity\":1,\"businessId\":\"b-1\"}";

    private static int redisPort;
    private static @Nullable PrivateRedis redis;

    @DynamicPropertySource
    static void privateRedis(DynamicPropertyRegistry registry) throws Exception {
        redisPort = PrivateRedis.freePort();
        redis = PrivateRedis.start(redisPort);
        registry.add("onlyonce.redis.key-prefix", () -> "oo-budget:");
        registry.add("spring.data.redis.host", () -> "127.0.0.1");
        registry.add("spring.data.redis.port", () -> redisPort);
    }

    @AfterAll
    static void stopRedis() throws Exception {
        if (redis != null) {
            redis.close();
        }
    }

    @LocalServerPort
    int port;

    @Autowired
    OrderController orders;

    @Test
    void aPausedThenAStoppedRedisIsAnsweredWithinTheBudgetReadinessFollowsAndRecoveryTakesSeconds() throws Exception {
        Http http = new Http(port);
        orders.reset();
        // the first call makes the connection: on a loaded machine that may outlast one budget
        Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .untilAsserted(() -> assertReady(http, true));
        HttpResponse<String> first = order(http).response();
        assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
        // the server's threads and the client's connections for a burst, so that timings measure the stores
        assertThat(burst(http)).allSatisfy(answer -> assertThat(answer.response().statusCode()).isEqualTo(201));

        // paused: the connection stays up and nothing answers
        redis().pause();
        Timed paused = order(http);
        assertUnavailable(paused);
        assertThat(paused.millis()).as("one budget for the window and the record, not one each: %d ms", paused.millis())
                .isLessThan(WITHIN_BUDGET_MILLIS);
        // enough failures at once to open the breakers (timed one by one above and below: a burst on a
        // loaded machine measures the machine)
        assertThat(burst(http)).allSatisfy(RedisOutageBudgetIT::assertUnavailable);
        assertReady(http, false);
        Timed open = order(http);
        assertUnavailable(open);
        assertThat(open.millis()).as("breaker open: %d ms", open.millis()).isLessThan(AT_ONCE_MILLIS);
        assertThat(orders.executions("orders")).as("nothing ran while Redis was paused").isEqualTo(1 + BURST);

        redis().resume();
        assertRecovers(http);

        // stopped: connection refused
        redis().close();
        redis = null;
        Timed stopped = order(http);
        assertUnavailable(stopped);
        assertThat(stopped.millis()).as("a stopped server is not waited for: %d ms", stopped.millis())
                .isLessThan(AT_ONCE_MILLIS);
        // enough failures at once to open the breakers (timed one by one above and below: a burst on a
        // loaded machine measures the machine)
        assertThat(burst(http)).allSatisfy(RedisOutageBudgetIT::assertUnavailable);
        assertReady(http, false);
        HttpResponse<String> token = http.send(http.post("/idempotency/tokens?scope=seckill", "alice", ""));
        assertThat(token.statusCode()).as("the token endpoint's limits and store: %s", token.body()).isEqualTo(503);

        redis = PrivateRedis.start(redisPort);
        assertRecovers(http);
    }

    /**
     * Ready again within 5 s of the server's return, without a request, and protected again: an
     * order passes the window and runs, a second one at once is the window's 429, and the retry of
     * a keyed request (on a route without a window) replays.
     */
    private void assertRecovers(Http http) {
        Awaitility.await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(100))
                .untilAsserted(() -> assertReady(http, true));
        String key = UUID.randomUUID().toString();
        assertThat(order(http, key).response().statusCode()).isEqualTo(201);
        assertThat(order(http, key).response().statusCode()).isEqualTo(429);
        int before = orders.executions("by-business-id");
        String byBusinessId = ORDER.replace("b-1", key);
        assertThat(http.send(http.post("/orders/by-business-id", "alice", byBusinessId)).statusCode()).isEqualTo(201);
        HttpResponse<String> retry = http.send(http.post("/orders/by-business-id", "alice", byBusinessId));
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(orders.executions("by-business-id")).isEqualTo(before + 1);
    }

    private static void assertReady(Http http, boolean ready) {
        HttpResponse<String> readiness = http.send(http.get("/actuator/health/readiness"));
        if (ready) {
            assertThat(readiness.statusCode()).as(readiness.body()).isEqualTo(200);
            assertThat(readiness.body()).contains("\"idempotencyStore\":\"reachable\"");
        } else {
            assertThat(readiness.statusCode()).as(readiness.body()).isEqualTo(503);
            assertThat(readiness.body()).contains("\"status\":\"DOWN\"").contains("\"idempotencyStore\":\"unreachable\"")
                    .contains("\"tokenStore\":\"not checked\"");
        }
    }

    private static void assertUnavailable(Timed answer) {
        HttpResponse<String> response = answer.response();
        assertThat(response.statusCode()).as(response.body()).isEqualTo(503);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(response.body()).contains("\"type\":\"urn:onlyonce:problem:idempotency-store-unavailable\"")
                .doesNotContainIgnoringCase("redis").doesNotContain("Exception");
        assertThat(response.headers().firstValue("Retry-After")).isPresent();
    }

    private record Timed(HttpResponse<String> response, long millis) {
    }

    private static Timed order(Http http) {
        return order(http, UUID.randomUUID().toString());
    }

    private static Timed order(Http http, String key) {
        long start = System.nanoTime();
        // a body of its own per key, so that the de-dup window does not answer a new order 429
        HttpResponse<String> response = http.send(http.post("/orders", "alice", ORDER.replace("b-1", key))
                .header("Idempotency-Key", key));
        return new Timed(response, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    }

    private static List<Timed> burst(Http http) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(BURST);
        try {
            List<Future<Timed>> sent = new ArrayList<>();
            for (int i = 0; i < BURST; i++) {
                sent.add(pool.submit(() -> order(http)));
            }
            List<Timed> answers = new ArrayList<>();
            for (Future<Timed> answer : sent) {
                answers.add(answer.get(60, TimeUnit.SECONDS));
            }
            return answers;
        } finally {
            pool.shutdownNow();
        }
    }

    private static PrivateRedis redis() {
        PrivateRedis running = redis;
        assertThat(running).isNotNull();
        return running;
    }
}
