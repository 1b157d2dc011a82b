package io.onlyonce.bench;

import io.onlyonce.spring.Idempotent;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * HTTP throughput of a trivial endpoint with {@code @Idempotent} (Redis store, a fresh key per
 * request: claim, run, complete) against the same endpoint without it, in one run and one JVM, over
 * real HTTP. Rounds alternate plain / protected to spread machine noise over both; the ratio is
 * protected / plain.
 *
 * <pre>bench/run.sh HttpOverheadBench [--store=redis|memory] [--clients=50] [--seconds=10] [--rounds=2]</pre>
 */
@SpringBootApplication
public class HttpOverheadBench {

    /**
     * The request body.
     *
     * @param item what to order
     * @param quantity how many
     */
    public record Order(String item, int quantity) {
    }

    @RestController
    static class Endpoints {

        @PostMapping("/plain")
        @ResponseStatus(HttpStatus.CREATED)
        public Map<String, Object> plain(@RequestBody Order order) {
            return Map.of("item", order.item(), "quantity", order.quantity(), "status", "CREATED");
        }

        @PostMapping("/protected")
        @ResponseStatus(HttpStatus.CREATED)
        @Idempotent
        public Map<String, Object> protectedOrder(@RequestBody Order order) {
            return Map.of("item", order.item(), "quantity", order.quantity(), "status", "CREATED");
        }
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = Harness.args(args);
        String store = options.getOrDefault("store", "redis");
        int clients = Integer.parseInt(options.getOrDefault("clients", "50"));
        int seconds = Integer.parseInt(options.getOrDefault("seconds", "10"));
        int rounds = Integer.parseInt(options.getOrDefault("rounds", "2"));
        String prefix = "oo-bench-http-" + UUID.randomUUID().toString().substring(0, 8) + ":";
        SpringApplication app = new SpringApplication(HttpOverheadBench.class);
        app.setDefaultProperties(Map.of(
                "server.port", "0",
                "logging.level.root", "WARN",
                "onlyonce.store", store,
                "onlyonce.principal-required", "false",
                "onlyonce.redis.key-prefix", prefix,
                "spring.data.redis.url", Harness.env("ONLYONCE_REDIS_URI", "redis://127.0.0.1:6379"),
                "server.tomcat.threads.max", Integer.toString(Math.max(200, clients * 2))));
        try (ConfigurableApplicationContext context = app.run()) {
            int port = ((WebServerApplicationContext) context).getWebServer().getPort();
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            String body = "{\"item\":\"phone\",\"quantity\":1}";
            System.out.printf("OnlyOnce HTTP overhead: store %s, %d clients, %d s per round, %d rounds, %d cores%n",
                    store, clients, seconds, rounds, Runtime.getRuntime().availableProcessors());
            double plain = 0;
            double guarded = 0;
            for (int round = 0; round < rounds; round++) {
                plain += load(client, port, "/plain", body, clients, seconds, false);
                guarded += load(client, port, "/protected", body, clients, seconds, true);
            }
            plain /= rounds;
            guarded /= rounds;
            System.out.printf("%n%-40s %12s %8s%n", "endpoint", "requests/s", "ratio");
            System.out.printf("%-40s %,12.0f %8s%n", "POST /plain (baseline)", plain, "1.00");
            System.out.printf("%-40s %,12.0f %8.2f%n", "POST /protected (@Idempotent, " + store + ")", guarded, guarded / plain);
            Harness.exec(java.util.List.of("sh", "-c", "redis-cli --scan --pattern '" + prefix
                    + "*' | xargs -r -n 500 redis-cli unlink > /dev/null"));
        }
    }

    private static double load(HttpClient client, int port, String path, String body, int clients, int seconds,
            boolean withKey) throws InterruptedException {
        URI uri = URI.create("http://127.0.0.1:" + port + path);
        return Harness.throughput(clients, 2, seconds, (c, sequence) -> {
            HttpRequest.Builder request = HttpRequest.newBuilder(uri)
                    .timeout(Duration.ofSeconds(30))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body));
            if (withKey) {
                request.header("Idempotency-Key", "k-" + c + "-" + sequence + "-" + System.nanoTime());
            }
            HttpResponse<Void> response = client.send(request.build(), HttpResponse.BodyHandlers.discarding());
            if (response.statusCode() != 201) {
                throw new IllegalStateException(path + " answered " + response.statusCode());
            }
        });
    }
}
