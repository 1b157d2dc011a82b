package io.onlyonce.example.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.web.context.reactive.ReactiveWebApplicationContext;
import org.springframework.context.ApplicationContext;
import org.springframework.util.ClassUtils;

/** The service as its clients see it, over real HTTP; subclasses pick the store. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
abstract class AbstractWebfluxServiceTest {

    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(30)).build();
    static final String PAYMENT = "{\"orderId\":\"o-1\",\"amount\":19.90}";

    @LocalServerPort
    int port;
    @Autowired
    Ledger ledger;
    @Autowired
    ApplicationContext context;

    @Test
    void theApplicationIsReactiveWithoutTomcat() {
        assertThat(new SpringApplication(WebfluxServiceApplication.class).getWebApplicationType())
                .isEqualTo(WebApplicationType.REACTIVE);
        assertThat(context).isInstanceOf(ReactiveWebApplicationContext.class);
        assertThat(ClassUtils.isPresent("org.apache.catalina.startup.Tomcat", null)).isFalse();
        assertThat(ClassUtils.isPresent("org.springframework.web.servlet.DispatcherServlet", null)).isFalse();
    }

    @Test
    void fiftyParallelIdenticalPaymentsRunOnce() {
        long before = ledger.payments();
        String key = newKey();
        List<CompletableFuture<HttpResponse<byte[]>>> sent = IntStream.range(0, 50)
                .mapToObj(i -> CLIENT.sendAsync(post("/payments", "alice", key, PAYMENT).build(),
                        HttpResponse.BodyHandlers.ofByteArray()))
                .toList();
        List<HttpResponse<byte[]>> responses = sent.stream().map(CompletableFuture::join).toList();
        assertThat(ledger.payments() - before).as("executions").isEqualTo(1);
        HttpResponse<byte[]> first = responses.stream().filter(r -> r.statusCode() == 201
                && r.headers().firstValue("Idempotent-Replayed").isEmpty()).findFirst().orElseThrow();
        assertThat(text(first)).isEqualTo("{\"id\":" + ledger.payments() + ",\"user\":\"alice\",\"orderId\":\"o-1\",\"amount\":19.90}");
        for (HttpResponse<byte[]> response : responses) {
            if (response.statusCode() == 409) {
                assertThat(text(response)).contains("\"type\":\"urn:onlyonce:problem:idempotency-request-in-progress\"");
                assertThat(response.headers().firstValue("Retry-After")).isPresent();
            } else {
                assertThat(response.statusCode()).isEqualTo(201);
                assertThat(response.body()).isEqualTo(first.body());
                assertThat(response.headers().firstValue("Location")).isEqualTo(first.headers().firstValue("Location"));
            }
        }
        HttpResponse<byte[]> replay = send(post("/payments", "alice", key, PAYMENT));
        assertThat(replay.body()).isEqualTo(first.body());
        assertThat(replay.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertStored("POST /payments alice", key);
    }

    @Test
    void aDifferentBodyUnderTheSameKeyIs422() {
        String key = newKey();
        assertThat(send(post("/payments", "alice", key, PAYMENT)).statusCode()).isEqualTo(201);
        long after = ledger.payments();
        HttpResponse<byte[]> reused = send(post("/payments", "alice", key, "{\"orderId\":\"o-1\",\"amount\":99.00}"));
        assertThat(reused.statusCode()).isEqualTo(422);
        assertThat(reused.headers().firstValue("Content-Type")).contains("application/problem+json");
        assertThat(text(reused)).contains("\"type\":\"urn:onlyonce:problem:idempotency-key-reused\"");
        assertThat(ledger.payments()).isEqualTo(after);
    }

    @Test
    void noKeyIs400() {
        long before = ledger.payments();
        HttpResponse<byte[]> missing = send(post("/payments", "alice", null, PAYMENT));
        assertThat(missing.statusCode()).isEqualTo(400);
        assertThat(text(missing)).contains("\"type\":\"urn:onlyonce:problem:idempotency-key-missing\"");
        assertThat(ledger.payments()).isEqualTo(before);
    }

    @Test
    void twoUsersWithOneKeyRunTwice() {
        long before = ledger.payments();
        String key = newKey();
        HttpResponse<byte[]> alice = send(post("/payments", "alice", key, PAYMENT));
        HttpResponse<byte[]> bob = send(post("/payments", "bob", key, PAYMENT));
        assertThat(ledger.payments() - before).isEqualTo(2);
        assertThat(text(alice)).contains("\"user\":\"alice\"");
        assertThat(text(bob)).contains("\"user\":\"bob\"");
        assertThat(bob.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertStored("POST /payments alice", key);
        assertStored("POST /payments bob", key);
    }

    @Test
    void theFunctionalRefundRouteRunsOnce() {
        long before = ledger.refunds();
        String key = newKey();
        HttpResponse<byte[]> first = send(post("/refunds", "alice", key, "{\"paymentId\":1,\"amount\":5.00}"));
        HttpResponse<byte[]> again = send(post("/refunds", "alice", key, "{\"paymentId\":1,\"amount\":5.00}"));
        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(again.statusCode()).isEqualTo(201);
        assertThat(again.body()).isEqualTo(first.body());
        assertThat(again.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(ledger.refunds() - before).isEqualTo(1);
        assertThat(send(post("/refunds", "alice", key, "{\"paymentId\":2,\"amount\":5.00}")).statusCode()).isEqualTo(422);
        assertStored("POST /refunds alice", key);
    }

    /** Asserts that the store holds the record of {@code key} in {@code scope}. */
    abstract void assertStored(String scope, String key);

    HttpRequest.Builder post(String path, String user, String key, String json) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json")
                .header("Authorization", "Basic " + Base64.getEncoder()
                        .encodeToString((user + ":" + user + "-pw").getBytes(StandardCharsets.UTF_8)))
                .POST(HttpRequest.BodyPublishers.ofString(json));
        return key == null ? builder : builder.header("Idempotency-Key", key);
    }

    static HttpResponse<byte[]> send(HttpRequest.Builder request) {
        try {
            return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static String text(HttpResponse<byte[]> response) {
        return new String(response.body(), StandardCharsets.UTF_8);
    }

    static String newKey() {
        return UUID.randomUUID().toString();
    }
}
