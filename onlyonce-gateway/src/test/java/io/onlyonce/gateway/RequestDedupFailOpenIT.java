package io.onlyonce.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.testing.PrivateRedis;
import io.onlyonce.gateway.support.TestGatewayApplication;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Redis faults on a private {@code redis-server} of this class (never the shared one): paused with
 * SIGSTOP, the gateway answers within its budget and lets requests through; killed, likewise. Every
 * such request is counted {@code fail_open}.
 */
@SpringBootTest(classes = TestGatewayApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"onlyonce.gateway.timeout=200ms", "onlyonce.gateway.circuit-breaker.minimum-number-of-calls=100"})
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RequestDedupFailOpenIT extends GatewayTestBase {

    static final PrivateRedis REDIS;

    static {
        try {
            REDIS = PrivateRedis.start();
        } catch (Exception e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        gatewayProperties(registry, REDIS::url, "oo-gw-failopen-");
    }

    @AfterAll
    static void stop() throws Exception {
        REDIS.close();
    }

    @Test
    @Order(1)
    void aHealthyRedisRefusesTheDuplicate() throws Exception {
        // the first request of a cold JVM may outlast the 200 ms budget (and pass unchecked)
        send("{\"warm-up\":true}");
        STUB.clear();
        String body = "{\"n\":\"" + UUID.randomUUID() + "\"}";
        assertThat(send(body).statusCode()).isEqualTo(201);
        assertThat(send(body).statusCode()).isEqualTo(429);
        assertThat(STUB.received()).hasSize(1);
    }

    @Test
    @Order(2)
    void aPausedRedisLetsRequestsThroughWithinTheBudget() throws Exception {
        REDIS.pause();
        try {
            String body = "{\"n\":\"" + UUID.randomUUID() + "\"}";
            assertThat(send(body).statusCode()).isEqualTo(201);
            assertThat(send(body).statusCode()).isEqualTo(201);
            assertThat(STUB.received()).hasSize(2);
        } finally {
            REDIS.resume();
        }
        assertThat(failOpenCount()).isGreaterThanOrEqualTo(2);
    }

    @Test
    @Order(3)
    void aDeadRedisLetsRequestsThrough() throws Exception {
        double before = failOpenCount();
        REDIS.close();
        String body = "{\"n\":\"" + UUID.randomUUID() + "\"}";
        for (int i = 0; i < 3; i++) {
            assertThat(send(body).statusCode()).isEqualTo(201);
        }
        assertThat(STUB.received()).hasSize(3);
        assertThat(failOpenCount()).isEqualTo(before + 3);
    }

    private double failOpenCount() throws Exception {
        HttpResponse<String> metric = send(HttpRequest.newBuilder(
                uri("/actuator/metrics/onlyonce.gateway.requests?tag=route:echo&tag=outcome:fail_open")));
        if (metric.statusCode() == 404) {
            return 0;
        }
        String body = metric.body();
        int at = body.indexOf("\"value\":") + 8;
        return Double.parseDouble(body.substring(at, body.indexOf('}', at)));
    }

    private HttpResponse<String> send(String json) throws Exception {
        // the client's own timeout is far above the gateway's 200 ms budget: it only keeps a hung test from hanging
        return send(HttpRequest.newBuilder(uri("/api/echo/fail-open"))
                .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)));
    }
}
