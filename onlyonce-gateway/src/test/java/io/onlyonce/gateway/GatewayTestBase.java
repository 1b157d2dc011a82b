package io.onlyonce.gateway;

import io.onlyonce.gateway.support.StubDownstream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * What the gateway tests share: one stub service behind the gateway (for the whole test JVM), an
 * HTTP/1.1 client and the gateway's port.
 */
abstract class GatewayTestBase {

    static final StubDownstream STUB;
    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    /** How long a test waits for an answer: the gateway answers within its budget, so a request past this hangs. */
    static final Duration ANSWER_WITHIN = Duration.ofSeconds(30);

    static {
        try {
            STUB = StubDownstream.start();
        } catch (Exception e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @LocalServerPort
    int port;

    /** The routes to the stub, window keys on {@code redisUrl} under a new prefix starting with {@code prefix}. */
    static void gatewayProperties(DynamicPropertyRegistry registry, Supplier<Object> redisUrl, String prefix) {
        registry.add("stub.url", STUB::url);
        String ownPrefix = prefix + UUID.randomUUID().toString().substring(0, 8) + ":";
        registry.add("test.prefix", () -> ownPrefix);
        registry.add("onlyonce.gateway.redis-url", redisUrl);
    }

    @BeforeEach
    void clearStub() {
        STUB.clear();
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return HTTP.send(request.timeout(ANSWER_WITHIN).build(), HttpResponse.BodyHandlers.ofString());
    }
}
