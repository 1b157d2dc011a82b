package io.onlyonce.spring.reactive;

import static io.onlyonce.spring.reactive.ReactiveIdempotentHttpTest.assertProblem;
import static io.onlyonce.spring.reactive.ReactiveIdempotentHttpTest.request;
import static io.onlyonce.spring.reactive.ReactiveIdempotentHttpTest.send;
import static io.onlyonce.spring.reactive.ReactiveIdempotentHttpTest.text;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.onlyonce.fixtures.RedisSales;
import io.onlyonce.spring.autoconfigure.OnlyOnceAutoConfiguration;
import io.onlyonce.spring.reactive.app.ReactiveTestApplication;
import io.onlyonce.testing.PrivateRedis;
import java.net.http.HttpResponse;
import java.util.UUID;
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
 * {@link ReactiveAtomicIdempotency} when Redis stops answering: a private {@code redis-server} of
 * this class (never the shared 6379), paused with SIGSTOP. A purchase is refused with 503 and
 * {@code Retry-After} within the store call's budget ({@code onlyonce.redis.command-timeout}, 1 s
 * here), takes no unit once Redis runs again, and its retry then takes one; while the idempotency
 * store's circuit is open a purchase is refused at once, without a call.
 */
@DirtiesContext
@SpringBootTest(classes = {ReactiveTestApplication.class, ReactiveAtomicPurchaseController.class},
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"spring.main.web-application-type=reactive", "onlyonce.messaging.enabled=false",
            "onlyonce.store=redis", "onlyonce.redis.command-timeout=1s",
            // an open circuit stays open until the test closes it (no probe, no trial call)
            "onlyonce.circuit-breaker.probe-interval=10m", "onlyonce.circuit-breaker.wait-duration-in-open-state=10m"})
class ReactiveAtomicOutageIT {

    private static final long BUDGET_MILLIS = 1_000;
    /** Generous on a loaded machine; waiting Lettuce's own 60 s would be far above. */
    private static final long WITHIN_BUDGET_MILLIS = BUDGET_MILLIS + 2_000;

    private static @Nullable PrivateRedis redis;

    @DynamicPropertySource
    static void privateRedis(DynamicPropertyRegistry registry) throws Exception {
        PrivateRedis started = PrivateRedis.start();
        redis = started;
        registry.add("onlyonce.redis.key-prefix", () -> "oo-reactive-atomic-outage:");
        registry.add("spring.data.redis.host", () -> "127.0.0.1");
        registry.add("spring.data.redis.port", started::port);
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
    CircuitBreakerRegistry breakers;

    @Test
    void aPausedRedisIs503WithinTheBudgetAndTheRetryTakesTheUnitOnce() throws Exception {
        PrivateRedis server = java.util.Objects.requireNonNull(redis);
        try (RedisSales sales = new RedisSales(server.url(), "oo-reactive-atomic-outage:")) {
            ReactiveAtomicPurchaseController.prefix = sales.keys();
            String sale = sales.sale(10);
            HttpResponse<byte[]> warm = buy(sale, UUID.randomUUID().toString());
            assertThat(warm.statusCode()).as(text(warm)).isEqualTo(201);

            String key = UUID.randomUUID().toString();
            server.pause();
            long start = System.nanoTime();
            HttpResponse<byte[]> paused;
            try {
                paused = buy(sale, key);
            } finally {
                server.resume();
            }
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertProblem(paused, 503, "idempotency-store-unavailable");
            assertThat(paused.headers().firstValue("Retry-After")).isPresent();
            assertThat(millis).as("answered in %d ms", millis).isLessThan(WITHIN_BUDGET_MILLIS);

            // the call Redis ran once resumed was past its deadline: it took nothing
            assertThat(sales.left(sale)).isEqualTo("9");
            HttpResponse<byte[]> retry = buy(sale, key);
            assertThat(retry.statusCode()).as(text(retry)).isEqualTo(201);
            assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
            assertThat(sales.left(sale)).isEqualTo("8");
            assertThat(sales.buyers(sale)).containsExactly("alice", "alice");
        }
    }

    @Test
    void anOpenCircuitIs503AtOnceAndRunsNothing() {
        try (RedisSales sales = new RedisSales(java.util.Objects.requireNonNull(redis).url(), "oo-reactive-atomic-outage:")) {
            ReactiveAtomicPurchaseController.prefix = sales.keys();
            String sale = sales.sale(10);
            // the server's and the client's first request (their connections, their classes) is not what is timed
            assertThat(buy(sale, UUID.randomUUID().toString()).statusCode()).isEqualTo(201);
            String key = UUID.randomUUID().toString();
            CircuitBreaker breaker = breakers.circuitBreaker(OnlyOnceAutoConfiguration.IDEMPOTENCY_BREAKER);
            breaker.transitionToOpenState();
            try {
                long start = System.nanoTime();
                HttpResponse<byte[]> open = buy(sale, key);
                long millis = (System.nanoTime() - start) / 1_000_000;
                assertProblem(open, 503, "idempotency-store-unavailable");
                assertThat(millis).as("answered in %d ms", millis).isLessThan(BUDGET_MILLIS);
                assertThat(sales.left(sale)).isEqualTo("9");
            } finally {
                breaker.reset();
            }
            HttpResponse<byte[]> closed = buy(sale, key);
            assertThat(closed.statusCode()).as(text(closed)).isEqualTo(201);
            assertThat(sales.left(sale)).isEqualTo("8");
        }
    }

    private HttpResponse<byte[]> buy(String sale, String key) {
        return send(request(port, "/atomic/" + sale + "/purchases", "alice", key, "{\"quantity\":1}"));
    }
}
