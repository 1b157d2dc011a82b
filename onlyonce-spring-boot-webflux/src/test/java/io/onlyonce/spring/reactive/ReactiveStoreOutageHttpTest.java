package io.onlyonce.spring.reactive;

import static io.onlyonce.spring.reactive.ReactiveIdempotentHttpTest.request;
import static io.onlyonce.spring.reactive.ReactiveIdempotentHttpTest.send;
import static io.onlyonce.spring.reactive.ReactiveIdempotentHttpTest.text;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.spring.autoconfigure.OnlyOnceAutoConfiguration;
import io.onlyonce.spring.reactive.app.ReactiveTestApplication;
import java.net.http.HttpResponse;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * PERMISSIVE on WebFlux: a store that cannot be reached lets requests run unprotected, and the
 * store's circuit breaker (shared with the blocking path) opens, after which the store is not called.
 */
@SpringBootTest(classes = ReactiveTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"spring.main.web-application-type=reactive", "onlyonce.store=memory",
            "onlyonce.key.store-failure-policy=permissive",
            "onlyonce.circuit-breaker.minimum-number-of-calls=4", "onlyonce.circuit-breaker.sliding-window-size=4",
            "onlyonce.circuit-breaker.wait-duration-in-open-state=10m"})
class ReactiveStoreOutageHttpTest {

    @LocalServerPort
    int port;
    @Autowired
    ReactiveTestApplication.Executions executions;
    @Autowired
    ReactiveTestApplication.SwitchableStore store;
    @Autowired
    CircuitBreakerRegistry breakers;

    @AfterEach
    void up() {
        store.down(false);
        breakers.circuitBreaker(OnlyOnceAutoConfiguration.IDEMPOTENCY_BREAKER).reset();
    }

    @Test
    void anUnreachableStoreRunsRequestsUnprotectedAndOpensTheBreaker() {
        store.down(true);
        String key = UUID.randomUUID().toString();
        for (int i = 1; i <= 4; i++) {
            HttpResponse<byte[]> response = post(key);
            assertThat(response.statusCode()).as(text(response)).isEqualTo(201);
            assertThat(text(response)).startsWith("{\"run\":" + i + ",");
        }
        assertThat(executions.of("orders")).isEqualTo(4);
        CircuitBreaker breaker = breakers.circuitBreaker(OnlyOnceAutoConfiguration.IDEMPOTENCY_BREAKER);
        assertThat(breaker.getState()).isEqualTo(CircuitBreaker.State.OPEN);

        int calls = store.asyncCalls();
        store.down(false);
        assertThat(post(key).statusCode()).isEqualTo(201);
        assertThat(store.asyncCalls()).as("an open breaker does not call the store").isEqualTo(calls);
        assertThat(store.find(new IdempotencyKey("POST /orders alice", key))).as("nothing was recorded").isEmpty();
        assertThat(executions.of("orders")).isEqualTo(5);
    }

    private HttpResponse<byte[]> post(String key) {
        return send(request(port, "/orders", "alice", key, "{\"item\":\"book\"}"));
    }
}
