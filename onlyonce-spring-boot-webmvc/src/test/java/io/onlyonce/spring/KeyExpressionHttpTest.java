package io.onlyonce.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.onlyonce.InvalidIdempotencyKeyException;
import io.onlyonce.MissingIdempotencyKeyException;
import io.onlyonce.spring.testapp.TestApplication;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.expression.EvaluationException;
import org.springframework.stereotype.Service;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * A key expression that passed the start-up check but cannot be evaluated for one call (a null in
 * the middle of its property chain) refuses that call as a missing key: 400 problem details over
 * HTTP, {@link InvalidIdempotencyKeyException} for a service method. The method does not run and
 * nothing is stored.
 */
@SpringBootTest(classes = TestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "onlyonce.store=memory")
@Import({KeyExpressionHttpTest.PurchaseController.class, KeyExpressionHttpTest.PurchaseService.class})
class KeyExpressionHttpTest {


    /**
     * A purchase as a client sends it.
     *
     * @param item what to buy
     * @param customer who buys; may be left out
     */
    public record Purchase(String item, Customer customer) {
    }

    /**
     * A customer.
     *
     * @param id the customer's number
     */
    public record Customer(String id) {
    }

    @RestController
    static class PurchaseController {
        private final AtomicInteger runs = new AtomicInteger();
        private final PurchaseService service;

        PurchaseController(PurchaseService service) {
            this.service = service;
        }

        /** No {@code @Idempotent} of its own: the service method's key is the request's. */
        @PostMapping("/service-purchases")
        public String purchaseThroughTheService(@RequestBody Purchase purchase) {
            return service.purchase(purchase);
        }

        public int runs() {
            return runs.get();
        }

        @PostMapping("/purchases")
        @Idempotent(key = "#purchase.customer.id + ':' + #purchase.item")
        public String purchase(@RequestBody Purchase purchase) {
            runs.incrementAndGet();
            return "bought";
        }
    }

    @Service
    static class PurchaseService {
        private final AtomicInteger runs = new AtomicInteger();

        public int runs() {
            return runs.get();
        }

        @Idempotent(key = "#purchase.customer.id")
        public String purchase(Purchase purchase) {
            runs.incrementAndGet();
            return "bought";
        }
    }

    @LocalServerPort
    int port;

    @Autowired
    PurchaseController controller;

    @Autowired
    PurchaseService service;

    @Test
    void aNullInTheMiddleOfTheKeyIsAMissingKeyProblemAndTheHandlerDoesNotRun() {
        Http http = new Http(port);
        int before = controller.runs();
        HttpResponse<String> response = http.send(http.post("/purchases", "alice", "{\"item\":\"phone\"}"));

        assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        JsonDoc problem = JsonDoc.parse(response.body());
        assertThat(problem.get("type").asString()).isEqualTo("urn:onlyonce:problem:idempotency-key-missing");
        assertThat(problem.get("title").asString()).isEqualTo("Idempotency key missing");
        assertThat(problem.get("status").asInt()).isEqualTo(400);
        assertThat(problem.get("detail").asString()).isEqualTo("This operation requires an idempotency key."
                + " Send the same key again with every retry of this request.");
        assertThat(problem.get("instance").asString()).isEqualTo("/purchases");
        assertThat(problem.properties()).extracting(java.util.Map.Entry::getKey)
                .containsExactlyInAnyOrder("type", "title", "status", "detail", "instance");
        assertThat(controller.runs()).as("the handler did not run").isEqualTo(before);
    }

    @Test
    void theProblemSpeaksTheRequestsLanguage() {
        Http http = new Http(port);
        HttpResponse<String> response = http.send(http.post("/purchases", "alice", "{\"item\":\"phone\"}")
                .header("Accept-Language", "zh-CN"));

        assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
        assertThat(JsonDoc.parse(response.body()).get("title").asString()).isEqualTo("缺少幂等键");
    }

    @Test
    void theSameRequestWithTheWholeKeyRunsOnceAndIsReplayed() {
        Http http = new Http(port);
        int before = controller.runs();
        String body = "{\"item\":\"phone\",\"customer\":{\"id\":\"c-" + System.nanoTime() + "\"}}";

        assertThat(http.send(http.post("/purchases", "alice", body)).body()).isEqualTo("bought");
        assertThat(http.send(http.post("/purchases", "alice", body)).body()).isEqualTo("bought");
        assertThat(controller.runs()).isEqualTo(before + 1);
    }

    @Test
    void aServiceMethodWithoutItsKeyCalledFromAHandlerIsTheSameMissingKeyProblem() {
        Http http = new Http(port);
        int before = service.runs();
        HttpResponse<String> response = http.send(http.post("/service-purchases", "alice", "{\"item\":\"phone\"}"));

        assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
        JsonDoc problem = JsonDoc.parse(response.body());
        assertThat(problem.get("type").asString()).isEqualTo("urn:onlyonce:problem:idempotency-key-missing");
        assertThat(problem.get("detail").asString()).isEqualTo("This operation requires an idempotency key."
                + " Send the same key again with every retry of this request.");
        assertThat(service.runs()).as("the service method did not run").isEqualTo(before);
    }

    @Test
    void aServiceMethodWhoseKeyCannotBeEvaluatedThrowsAnInvalidKeyAndDoesNotRun() {
        int before = service.runs();

        assertThatThrownBy(() -> service.purchase(new Purchase("phone", null)))
                .isInstanceOf(MissingIdempotencyKeyException.class)
                .isInstanceOf(InvalidIdempotencyKeyException.class)
                .hasMessageStartingWith("the key expression '#purchase.customer.id' of "
                        + PurchaseService.class.getName() + "#purchase could not be evaluated: ")
                .hasCauseInstanceOf(EvaluationException.class);
        assertThat(service.runs()).isEqualTo(before);
    }
}
