package io.onlyonce.verify.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class LossyProxyTest {

    private HttpServer server;
    private LossyProxy proxy;
    private final AtomicInteger requests = new AtomicInteger();
    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .build();

    @BeforeEach
    void startServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", Ports.free()), 50);
        server.createContext("/api/orders", exchange -> {
            exchange.getRequestBody().readAllBytes();
            int n = requests.incrementAndGet();
            byte[] body = ("{\"orderNo\":\"o-" + n + "\"}").getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(201, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void cleanUp() {
        if (proxy != null) {
            proxy.close();
        }
        server.stop(0);
    }

    @Test
    void theServerAnswersAndTheClientNeverSeesIt() throws Exception {
        int port = Ports.free();
        proxy = LossyProxy.start(port, server.getAddress().getPort());
        assertThat(proxy.port()).isEqualTo(port);

        assertThatThrownBy(() -> client.send(post(port), HttpResponse.BodyHandlers.ofString()))
                .isInstanceOf(IOException.class);

        assertThat(requests.get()).isEqualTo(1);
        assertThat(proxy.dropped()).isEqualTo(1);

        // the same request straight to the server is answered
        HttpResponse<String> direct = client.send(post(server.getAddress().getPort()), HttpResponse.BodyHandlers.ofString());
        assertThat(direct.statusCode()).isEqualTo(201);
        assertThat(direct.body()).isEqualTo("{\"orderNo\":\"o-2\"}");
    }

    private static HttpRequest post(int port) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/orders"))
                .timeout(Duration.ofSeconds(5))
                .header("Idempotency-Key", "intent-1")
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"productId\":1,\"quantity\":1}"))
                .build();
    }
}
