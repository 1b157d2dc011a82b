package io.onlyonce.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.onlyonce.spring.testapp.OrderController;
import io.onlyonce.spring.testapp.TestApplication;
import io.onlyonce.testing.MutableClock;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.json.JsonMapper;

/**
 * Two instances of one application on one shared store, whose clocks are ten minutes apart (as
 * two machines without NTP can be). Every lease, window and token life is decided on the store's
 * clock, so the instance that runs ahead neither takes over a running request, nor lets a
 * duplicate through a window, nor refuses the other's tokens.
 */
class TwoInstancesWithDifferentClocksIT {

    static final String ORDER = "{\"item\":\"phone\",\"quantity\":1,\"businessId\":\"b-1\"}";
    static final String PG = "jdbc:postgresql://127.0.0.1:5432/";
    static final String DATABASE = "oo_two_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    static final List<ConfigurableApplicationContext> STARTED = new ArrayList<>();

    @AfterAll
    static void stop() throws Exception {
        STARTED.forEach(ConfigurableApplicationContext::close);
        try (Connection c = DriverManager.getConnection(PG + "postgres", "postgres", ""); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + DATABASE + " WITH (FORCE)");
        }
    }

    record Instance(ConfigurableApplicationContext context, Http http) {
        OrderController orders() {
            return context.getBean(OrderController.class);
        }

        Instant clock() {
            return context.getBean(MutableClock.class).instant();
        }
    }

    static Instance start(String store, String offset, String prefix) throws Exception {
        List<String> properties = new ArrayList<>(List.of(
                "server.port=0", "test.clock-offset=" + offset, "onlyonce.store=" + store,
                "onlyonce.dedup.enabled=true", "onlyonce.dedup.rules[0].pattern=/items/**",
                "onlyonce.dedup.rules[0].window=5s", "onlyonce.circuit-breaker.enabled=false"));
        if (store.equals("redis")) {
            properties.addAll(List.of("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=6379",
                    "onlyonce.redis.key-prefix=" + prefix));
        } else {
            properties.addAll(List.of("spring.datasource.url=" + PG + DATABASE, "spring.datasource.username=postgres",
                    "spring.datasource.password=", "onlyonce.jdbc.initialize-schema=always",
                    // the message layer is on this module's classpath, but these instances do not use it
                    "onlyonce.messaging.enabled=false"));
        }
        ConfigurableApplicationContext context = new SpringApplicationBuilder(TestApplication.class)
                .properties(properties.toArray(String[]::new)).run();
        STARTED.add(context);
        int port = ((WebServerApplicationContext) context).getWebServer().getPort();
        return new Instance(context, new Http(port));
    }

    @ParameterizedTest
    @ValueSource(strings = {"redis", "jdbc"})
    void theInstanceWhoseClockRunsAheadNeitherTakesOverNorLetsDuplicatesThrough(String store) throws Exception {
        if (store.equals("jdbc")) {
            try (Connection c = DriverManager.getConnection(PG + "postgres", "postgres", ""); Statement s = c.createStatement()) {
                s.execute("CREATE DATABASE " + DATABASE);
            }
        }
        String prefix = "oo-two-" + UUID.randomUUID().toString().substring(0, 8) + ":";
        Instance onTime = start(store, "0s", prefix);
        Instance ahead = start(store, "10m", prefix);
        assertThat(Duration.between(onTime.clock(), ahead.clock())).isGreaterThanOrEqualTo(Duration.ofMinutes(10));

        // a request running on one instance is in progress for the other, whose clock is 10 minutes ahead
        String key = UUID.randomUUID().toString();
        onTime.orders().close();
        CompletableFuture<HttpResponse<String>> running = CompletableFuture.supplyAsync(
                () -> onTime.http().send(onTime.http().post("/orders/takeover", "alice", ORDER).header("Idempotency-Key", key)));
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> onTime.orders().executions("takeover") == 1);
            HttpResponse<String> duplicate = ahead.http().send(ahead.http().post("/orders/takeover", "alice", ORDER)
                    .header("Idempotency-Key", key));
            assertThat(duplicate.statusCode()).as(duplicate.body()).isEqualTo(409);
            assertThat(duplicate.headers().firstValue("Retry-After")).hasValueSatisfying(
                    v -> assertThat(Long.parseLong(v)).isBetween(1L, 2L));
        } finally {
            onTime.orders().open();
        }
        HttpResponse<String> first = running.get(30, TimeUnit.SECONDS);
        HttpResponse<String> replay = ahead.http().send(ahead.http().post("/orders/takeover", "alice", ORDER)
                .header("Idempotency-Key", key));
        assertThat(replay.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(replay.body()).isEqualTo(first.body());
        assertThat(ahead.orders().executions("takeover")).isZero();

        // one window for both instances
        String item = "{\"item\":\"" + UUID.randomUUID() + "\"}";
        assertThat(onTime.http().send(onTime.http().post("/items", "alice", item)).statusCode()).isEqualTo(201);
        HttpResponse<String> windowDuplicate = ahead.http().send(ahead.http().post("/items", "alice", item));
        assertThat(windowDuplicate.statusCode()).isEqualTo(429);
        assertThat(windowDuplicate.headers().firstValue("Retry-After")).hasValueSatisfying(
                v -> assertThat(Long.parseLong(v)).isBetween(1L, 5L));

        // a token issued by one instance is good once on the other
        HttpResponse<String> issued = onTime.http().send(onTime.http().post("/idempotency/tokens?scope=seckill", "alice", ""));
        String token = JsonMapper.builder().build().readTree(issued.body()).get("token").asString();
        assertThat(ahead.http().send(ahead.http().post("/seckill", "alice", ORDER).header("Idempotency-Token", token))
                .statusCode()).isEqualTo(201);
        assertThat(onTime.http().send(onTime.http().post("/seckill", "alice", ORDER).header("Idempotency-Token", token))
                .statusCode()).isEqualTo(409);
    }
}
