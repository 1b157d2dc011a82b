package io.onlyonce.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.IdempotencyKey;
import io.onlyonce.spring.testapp.OrderController;
import io.onlyonce.spring.testapp.TestApplication;
import io.onlyonce.store.IdempotencyRecord;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.store.RecordStatus;
import java.net.http.HttpResponse;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * Without Boot's error page, an error sent through {@code sendError} has no ERROR dispatch to be
 * recorded in. The method ran and answered a deterministic 4xx: its key is kept without the
 * response when the request ends (never left in progress, never run again), and a retry is told so.
 */
@SpringBootTest(classes = TestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        // Spring Boot 4's name and 3's: the suite runs on both lines
        properties = "spring.autoconfigure.exclude=org.springframework.boot.webmvc.autoconfigure.error.ErrorMvcAutoConfiguration,"
                + "org.springframework.boot.autoconfigure.web.servlet.error.ErrorMvcAutoConfiguration")
class NoErrorPageHttpTest {

    @LocalServerPort
    int port;

    @Autowired
    OrderController orders;

    @Autowired
    IdempotencyStore store;

    @Test
    void aSentErrorWithoutAnErrorPageKeepsTheKeyWithoutTheResponse() {
        Http http = new Http(port);
        orders.reset();
        String key = UUID.randomUUID().toString();
        String invalid = "{\"item\":\"phone\",\"quantity\":0,\"businessId\":\"b-1\"}";
        HttpResponse<String> first = http.send(http.post("/orders", "alice", invalid).header("Idempotency-Key", key));
        assertThat(first.statusCode()).isEqualTo(422);
        IdempotencyRecord record = store.find(new IdempotencyKey("POST /orders alice", key)).orElseThrow();
        assertThat(record.status()).isEqualTo(RecordStatus.COMPLETED);
        assertThat(record.hasResponse()).isFalse();
        HttpResponse<String> retry = http.send(http.post("/orders", "alice", invalid).header("Idempotency-Key", key));
        assertThat(retry.statusCode()).as("not 409 in progress").isEqualTo(422);
        assertThat(retry.body()).contains("urn:onlyonce:problem:idempotency-response-not-kept");
        assertThat(orders.executions("orders")).isEqualTo(1);
    }
}
