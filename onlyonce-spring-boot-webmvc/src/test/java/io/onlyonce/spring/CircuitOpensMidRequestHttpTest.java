package io.onlyonce.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.onlyonce.spring.autoconfigure.OnlyOnceAutoConfiguration;
import io.onlyonce.spring.testapp.TestApplication;
import java.net.http.HttpResponse;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * The store's circuit opens while a protected request runs (other calls were slow on a busy
 * machine, say): the request's answer is still recorded, so its retry is replayed, never run again.
 */
@SpringBootTest(classes = {TestApplication.class, CircuitOpensMidRequestHttpTest.Handler.class},
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "onlyonce.store=memory")
class CircuitOpensMidRequestHttpTest {

    @LocalServerPort
    int port;

    @Autowired
    CircuitBreakerRegistry breakers;

    @Autowired
    Handler handler;

    @Test
    void theAnswerOfARequestThatRanIsRecordedThroughAnOpenCircuit() {
        Http http = new Http(port);
        String key = UUID.randomUUID().toString();
        String body = "{\"item\":\"" + key + "\"}";

        HttpResponse<String> first = http.send(http.post("/opens-the-circuit", "alice", body).header("Idempotency-Key", key));
        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(breakers.circuitBreaker(OnlyOnceAutoConfiguration.IDEMPOTENCY_BREAKER).getState().name()).isEqualTo("OPEN");

        breakers.circuitBreaker(OnlyOnceAutoConfiguration.IDEMPOTENCY_BREAKER).transitionToClosedState();
        HttpResponse<String> retry = http.send(http.post("/opens-the-circuit", "alice", body).header("Idempotency-Key", key));

        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(handler.executions.get()).as("one execution").isEqualTo(1);
    }

    @TestConfiguration(proxyBeanMethods = false)
    static class Handler {

        final AtomicInteger executions = new AtomicInteger();

        @Bean
        Controller circuitOpeningController(CircuitBreakerRegistry breakers) {
            return new Controller(this, breakers);
        }
    }

    @RestController
    static class Controller {

        private final Handler handler;
        private final CircuitBreakerRegistry breakers;

        Controller(Handler handler, CircuitBreakerRegistry breakers) {
            this.handler = handler;
            this.breakers = breakers;
        }

        @PostMapping("/opens-the-circuit")
        @Idempotent
        ResponseEntity<String> order(@RequestBody String body) {
            breakers.circuitBreaker(OnlyOnceAutoConfiguration.IDEMPOTENCY_BREAKER).transitionToOpenState();
            return ResponseEntity.status(201).body("{\"order\":" + handler.executions.incrementAndGet() + "}");
        }
    }
}
