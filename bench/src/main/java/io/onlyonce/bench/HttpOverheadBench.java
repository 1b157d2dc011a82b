package io.onlyonce.bench;

import io.onlyonce.spring.Idempotent;
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
 * The application {@code bench/http-overhead.sh} loads with wrk from outside its JVM: one Spring
 * Boot MVC service, two identical trivial {@code POST} endpoints, one with {@code @Idempotent}
 * (the chosen store; a fresh {@code Idempotency-Key} per request is claim, run, capture, complete;
 * a repeated key is a replay). Prints {@code listening <port> <pid>} once it serves.
 *
 * <pre>java ... io.onlyonce.bench.HttpOverheadBench [--store=redis|memory] [--port=0] [--prefix=oo-bench-http:]</pre>
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
        String prefix = options.getOrDefault("prefix", "oo-bench-http-" + UUID.randomUUID().toString().substring(0, 8) + ":");
        SpringApplication app = new SpringApplication(HttpOverheadBench.class);
        app.setDefaultProperties(Map.of(
                "server.port", options.getOrDefault("port", "0"),
                "logging.level.root", "WARN",
                "onlyonce.store", store,
                "onlyonce.principal-required", "false",
                "onlyonce.redis.key-prefix", prefix,
                "spring.data.redis.url", Harness.env("ONLYONCE_REDIS_URI", "redis://127.0.0.1:6379")));
        ConfigurableApplicationContext context = app.run();
        int port = ((WebServerApplicationContext) context).getWebServer().getPort();
        System.out.println("listening " + port + " " + ProcessHandle.current().pid());
        System.out.flush();
    }
}
