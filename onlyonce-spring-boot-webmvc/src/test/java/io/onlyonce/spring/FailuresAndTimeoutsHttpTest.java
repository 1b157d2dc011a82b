package io.onlyonce.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.onlyonce.spring.testapp.OrderController;
import io.onlyonce.spring.testapp.TestApplication;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.async.DeferredResult;

/**
 * A failed or timed-out call is never stored as if it had answered, and never runs twice while it
 * may still be running, in an application whose global exception handler answers every exception
 * with 200 and an error code (as result-wrapper shops do) and whose asynchronous requests time out
 * after half a second.
 */
@SpringBootTest(classes = TestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "spring.mvc.async.request-timeout=500ms")
@Import({RealConfigurationsHttpTest.ShopConventions.class, FailuresAndTimeoutsHttpTest.Slow.class})
class FailuresAndTimeoutsHttpTest {

    static final String ORDER = "{\"item\":\"phone\",\"quantity\":1,\"businessId\":\"b-1\"}";

    /**
     * Work that outlives the request's async timeout until the gate opens, and work that fails.
     * Proxied (its methods are {@code @Idempotent}): its state is reached through methods only.
     */
    @TestConfiguration(proxyBeanMethods = false)
    @RestController
    static class Slow {

        final Map<String, AtomicInteger> started = new ConcurrentHashMap<>();
        final Map<String, AtomicInteger> finished = new ConcurrentHashMap<>();
        volatile CountDownLatch gate = new CountDownLatch(1);

        public int started(String name) {
            return started.getOrDefault(name, new AtomicInteger()).get();
        }

        public int finished(String name) {
            return finished.getOrDefault(name, new AtomicInteger()).get();
        }

        public void reset() {
            started.clear();
            finished.clear();
            gate = new CountDownLatch(1);
        }

        public void open() {
            gate.countDown();
        }

        private Map<String, Object> work(String name, CountDownLatch wait) {
            int n = started.computeIfAbsent(name, k -> new AtomicInteger()).incrementAndGet();
            awaitIgnoringInterrupts(wait);
            finished.computeIfAbsent(name, k -> new AtomicInteger()).incrementAndGet();
            return Map.of("run", n);
        }

        /** As work that does not stop when its thread is interrupted (a JDBC call, a remote call). */
        private static void awaitIgnoringInterrupts(CountDownLatch latch) {
            boolean interrupted = false;
            while (true) {
                try {
                    if (latch.await(10, TimeUnit.SECONDS)) {
                        break;
                    }
                    throw new IllegalStateException("the gate was never opened");
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }

        @PostMapping("/slow/future")
        @Idempotent
        public CompletableFuture<Map<String, Object>> future() {
            CountDownLatch wait = gate;
            return CompletableFuture.supplyAsync(() -> work("future", wait));
        }

        @PostMapping("/slow/callable")
        @Idempotent
        public Callable<Map<String, Object>> callable() {
            CountDownLatch wait = gate;
            return () -> work("callable", wait);
        }

        @PostMapping("/slow/deferred")
        @Idempotent
        public DeferredResult<Map<String, Object>> deferred() {
            CountDownLatch wait = gate;
            DeferredResult<Map<String, Object>> result = new DeferredResult<>();
            CompletableFuture.runAsync(() -> result.setResult(work("deferred", wait)));
            return result;
        }

        @PostMapping("/slow/future-fails")
        @Idempotent
        public CompletableFuture<Map<String, Object>> futureFails() {
            int n = started.computeIfAbsent("future-fails", k -> new AtomicInteger()).incrementAndGet();
            return CompletableFuture.supplyAsync(() -> {
                if (n == 1) {
                    throw new IllegalStateException("the payment service timed out");
                }
                return Map.of("run", n);
            });
        }

        @PostMapping("/slow/callable-fails")
        @Idempotent
        public Callable<Map<String, Object>> callableFails() {
            int n = started.computeIfAbsent("callable-fails", k -> new AtomicInteger()).incrementAndGet();
            return () -> {
                if (n == 1) {
                    throw new IllegalStateException("the payment service timed out");
                }
                return Map.of("run", n);
            };
        }
    }

    @LocalServerPort
    int port;

    @Autowired
    Slow slow;

    @Autowired
    OrderController orders;

    Http http;

    @BeforeEach
    void setUp() {
        http = new Http(port);
        slow.reset();
        orders.reset();
    }

    @AfterEach
    void openTheGate() {
        slow.open();
    }

    HttpResponse<String> post(String path, String key) {
        return http.send(http.post(path, "alice", "").header("Idempotency-Key", key));
    }

    static JsonDoc json(HttpResponse<String> response) {
        return JsonDoc.parse(response.body());
    }

    static String problemType(HttpResponse<String> response) {
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        return json(response).get("type").asString();
    }

    private void workOutlivingTheTimeoutRunsOnce(String name) {
        String key = UUID.randomUUID().toString();
        HttpResponse<String> first = post("/slow/" + name, key);
        assertThat(json(first).get("code").asInt()).as("the timeout, as the application's handler answers it: %s", first.body())
                .isEqualTo(500);

        HttpResponse<String> whileRunning = post("/slow/" + name, key);
        assertThat(whileRunning.statusCode()).as(whileRunning.body()).isEqualTo(409);
        assertThat(problemType(whileRunning)).isEqualTo("urn:onlyonce:problem:idempotency-request-in-progress");

        slow.open();
        await().atMost(Duration.ofSeconds(10)).until(() -> slow.finished(name) == 1);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            HttpResponse<String> afterwards = post("/slow/" + name, key);
            assertThat(afterwards.statusCode()).as(afterwards.body()).isEqualTo(422);
            assertThat(problemType(afterwards)).isEqualTo("urn:onlyonce:problem:idempotency-response-not-kept");
        });
        assertThat(slow.started(name)).as("the work ran once").isEqualTo(1);
    }

    @Test
    void aFutureThatOutlivesTheAsyncTimeoutRunsOnceAndItsKeyIsKeptWhenItEnds() {
        workOutlivingTheTimeoutRunsOnce("future");
    }

    @Test
    void aCallableThatOutlivesTheAsyncTimeoutRunsOnceAndItsKeyIsKeptWhenItEnds() {
        workOutlivingTheTimeoutRunsOnce("callable");
    }

    @Test
    void aDeferredResultThatTimesOutHoldsItsKeyRatherThanRunningAgain() {
        String key = UUID.randomUUID().toString();
        HttpResponse<String> first = post("/slow/deferred", key);
        assertThat(json(first).get("code").asInt()).isEqualTo(500);

        slow.open();
        await().atMost(Duration.ofSeconds(10)).until(() -> slow.finished("deferred") == 1);
        HttpResponse<String> retry = post("/slow/deferred", key);
        assertThat(retry.statusCode()).as("held until the lease ends: %s", retry.body()).isEqualTo(409);
        assertThat(problemType(retry)).isEqualTo("urn:onlyonce:problem:idempotency-request-in-progress");
        assertThat(slow.started("deferred")).isEqualTo(1);
    }

    @Test
    void aFailedFutureAnsweredWith200IsNotStoredAndTheRetryRuns() {
        String key = UUID.randomUUID().toString();
        HttpResponse<String> first = post("/slow/future-fails", key);
        HttpResponse<String> retry = post("/slow/future-fails", key);
        HttpResponse<String> again = post("/slow/future-fails", key);

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(json(first).get("code").asInt()).isEqualTo(500);
        assertThat(retry.statusCode()).isEqualTo(200);
        assertThat(json(retry).get("data").get("run").asInt()).as("the retry ran: %s", retry.body()).isEqualTo(2);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(again.body()).isEqualTo(retry.body());
        assertThat(again.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(slow.started("future-fails")).isEqualTo(2);
    }

    @Test
    void aFailedCallableAnsweredWith200IsNotStoredAndTheRetryRuns() {
        String key = UUID.randomUUID().toString();
        HttpResponse<String> first = post("/slow/callable-fails", key);
        HttpResponse<String> retry = post("/slow/callable-fails", key);

        assertThat(json(first).get("code").asInt()).isEqualTo(500);
        assertThat(json(retry).get("data").get("run").asInt()).as("the retry ran: %s", retry.body()).isEqualTo(2);
        assertThat(slow.started("callable-fails")).isEqualTo(2);
    }

    @Test
    void aHandlerThatThrowsIsNotStoredThoughTheApplicationAnswers200() {
        String key = UUID.randomUUID().toString();
        HttpResponse<String> first = http.send(http.post("/orders/7/fail", "alice", "").header("Idempotency-Key", key));
        HttpResponse<String> retry = http.send(http.post("/orders/7/fail", "alice", "").header("Idempotency-Key", key));

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(json(first).get("code").asInt()).isEqualTo(500);
        assertThat(retry.statusCode()).isEqualTo(200);
        assertThat(json(retry).get("data").get("item").asString()).as(retry.body()).isEqualTo("retried");
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(orders.executions("fail")).isEqualTo(2);
    }

    @Test
    void aRetryableTokenIsRestoredWhenTheHandlerThrowsThoughTheApplicationAnswers200() {
        HttpResponse<String> issued = http.send(http.post("/idempotency/tokens?scope=seckill", "alice", ""));
        String token = json(issued).get("data").get("token").asString();
        HttpResponse<String> first = http.send(http.post("/seckill/flaky", "alice", ORDER).header("Idempotency-Token", token));
        HttpResponse<String> retry = http.send(http.post("/seckill/flaky", "alice", ORDER).header("Idempotency-Token", token));

        assertThat(json(first).get("code").asInt()).isEqualTo(500);
        assertThat(json(retry).get("code").asInt()).as(retry.body()).isZero();
        assertThat(orders.executions("flaky")).isEqualTo(2);
    }
}
