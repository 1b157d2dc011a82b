package io.onlyonce.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.onlyonce.IdempotencyKey;
import io.onlyonce.memory.InMemoryIdempotencyStore;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.IdempotencyRecord;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.TestPropertySource;

/** The HTTP suite on the in-memory store, plus what does not depend on the store: i18n, metrics, Actuator. */
@TestPropertySource(properties = "onlyonce.store=memory")
class MemoryIdempotentHttpTest extends AbstractIdempotentHttpTest {

    @org.springframework.beans.factory.annotation.Autowired
    io.onlyonce.spring.metrics.OnlyOnceStatistics statistics;

    @Test
    void aBodyLongerThanTheFingerprintLimitIsRefusedRatherThanFingerprintedByItsPrefix() {
        String item = "x".repeat(1024 * 1024 + 10);
        String key = newKey();
        HttpResponse<String> large = order("alice", key, "{\"item\":\"" + item + "\",\"quantity\":1,\"businessId\":\"b\"}");
        assertThat(large.statusCode()).isEqualTo(413);
        assertThat(large.body()).contains("idempotency-request-too-large");
        assertThat(orders.executions("orders")).isZero();
        assertThat(order("alice", key, ORDER).statusCode()).as("nothing was stored under the key").isEqualTo(201);
    }

    @Override
    protected void elapse(Duration duration) {
        clock.advance(duration);
    }

    @Test
    void aTokenThatExpiredUnusedIsToldExpiredInBothLanguagesAndAUsedOneStaysADuplicateAfterItsExpiry() {
        String unused = token("alice", "seckill");
        String unusedToo = token("alice", "seckill");
        String used = token("alice", "seckill");
        assertThat(submit("/seckill", "alice", used).statusCode()).isEqualTo(201);
        long businessBefore = statistics.byLayer().getOrDefault("business", java.util.Map.of())
                .getOrDefault("token_expired", 0L);
        clock.advance(Duration.ofMinutes(10).plusSeconds(1));

        HttpResponse<String> expired = submit("/seckill", "alice", unused);
        assertProblem(expired, 400, "idempotency-token-expired");
        assertThat(expired.body()).contains("Request a new token");
        HttpResponse<String> zh = http.send(http.post("/seckill", "alice", ORDER)
                .header("Idempotency-Token", unusedToo).header("Accept-Language", "zh-CN"));
        assertProblem(zh, 400, "idempotency-token-expired");
        assertThat(zh.body()).contains("令牌已过期");
        assertThat(orders.executions("seckill")).isEqualTo(1);
        assertThat(statistics.byLayer().get("business").get("token_expired")).isEqualTo(businessBefore + 2);

        // the used token passed its expiry too, but a request ran with it: still a duplicate submission
        assertProblem(submit("/seckill", "alice", used), 409, "duplicate-submission");
        assertThat(orders.executions("seckill")).isEqualTo(1);
    }

    /**
     * A holder that has held its key for 10 s of a 30 s lease, where the endpoint usually answers in
     * milliseconds, is overdue (stuck, or its client went away): the 409 says when the lease ends, not
     * "retry in a second" for the next 20 s.
     */
    @Test
    void anOverdueHolderIsAnsweredWithTheTimeItsLeaseHasLeft() {
        String done = newKey();
        assertThat(order("alice", done, ORDER).statusCode()).isEqualTo(201);
        IdempotencyRecord first = record("POST /orders", "alice", done).orElseThrow();
        String key = newKey();
        assertThat(store.claim(new IdempotencyKey("POST /orders alice", key), first.fingerprint(), Duration.ofSeconds(30)))
                .isInstanceOf(ClaimResult.Claimed.class);
        clock.advance(Duration.ofSeconds(10));

        HttpResponse<String> duplicate = order("alice", key, ORDER);
        assertProblem(duplicate, 409, "idempotency-request-in-progress");
        assertThat(duplicate.headers().firstValue("Retry-After")).hasValue("20");
        assertThat(orders.executions("orders")).isEqualTo(1);
    }

    @Test
    void theMemoryStoreIsInUse() {
        assertThat(store).isInstanceOf(InMemoryIdempotencyStore.class);
    }

    @Test
    void reusedKeyAndInProgressProblemsSpeakChinese() throws Exception {
        String key = newKey();
        order("alice", key, ORDER);
        HttpResponse<String> reused = http.send(http.post("/orders", "alice", "{\"item\":\"laptop\",\"quantity\":1,\"businessId\":\"b\"}")
                .header("Idempotency-Key", key).header("Accept-Language", "zh-CN"));
        assertProblem(reused, 422, "idempotency-key-reused");
        assertThat(json(reused).get("title").asString()).isEqualTo("幂等键被重复使用");

        String slowKey = newKey();
        orders.close();
        Thread first = new Thread(() -> send("/orders/slow", "alice", slowKey, ORDER));
        first.start();
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> orders.executions("slow") == 1);
            HttpResponse<String> running = http.send(http.post("/orders/slow", "alice", ORDER)
                    .header("Idempotency-Key", slowKey).header("Accept-Language", "zh-CN"));
            assertProblem(running, 409, "idempotency-request-in-progress");
            assertThat(json(running).get("title").asString()).isEqualTo("请求处理中");
            HttpResponse<String> english = http.send(http.post("/orders/slow", "alice", ORDER)
                    .header("Idempotency-Key", slowKey).header("Accept-Language", "en"));
            assertThat(json(english).get("title").asString()).isEqualTo("Request in progress");
        } finally {
            orders.open();
            first.join();
        }
    }

    @Test
    void storeCallsAreTimed() {
        order("alice", newKey(), ORDER);
        assertThat(meters.find("onlyonce.store.calls").tag("operation", "claim").timer())
                .isNotNull().satisfies(t -> assertThat(t.count()).isPositive());
        assertThat(meters.find("onlyonce.store.calls").tag("operation", "complete").timer()).isNotNull();
    }

    @Test
    void actuatorEndpointShowsConfigurationAndCountsButNoSecrets() {
        order("alice", newKey(), ORDER);
        http.send(http.post("/orders", "alice", ORDER));
        HttpResponse<String> response = http.send(http.get("/actuator/onlyonce"));
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).doesNotContain("test-secret-that-must-never-be-shown");
        JsonDoc report = json(response);
        JsonDoc configuration = report.get("configuration");
        assertThat(configuration.get("store").asString()).isEqualTo("memory");
        assertThat(configuration.get("key").get("header").asString()).isEqualTo("Idempotency-Key");
        assertThat(configuration.get("key").get("storeFailurePolicy").asString()).isEqualTo("STRICT");
        assertThat(configuration.get("token").get("configuredSecrets").asInt()).isEqualTo(1);
        assertThat(report.get("byLayer").get("business").get("executed").asLong()).isPositive();
        assertThat(report.get("byLayer").get("business").get("missing_key").asLong()).isPositive();
        assertThat(report.get("byEndpoint").get("POST /orders").get("executed").asLong()).isPositive();
        assertThat(report.get("circuitBreakers").get("onlyonce-idempotency").asString()).isEqualTo("CLOSED");
    }
}
