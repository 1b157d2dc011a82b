package io.onlyonce.example.seckill.fastpath;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.onlyonce.example.seckill.SeckillApplication;
import io.onlyonce.example.seckill.support.Api;
import io.onlyonce.example.seckill.support.ExternalDatabases;
import io.onlyonce.example.seckill.support.Redis;
import io.onlyonce.example.seckill.support.TestSecrets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A fast-path purchase is one Redis script call: request window, one-time token, the purchase's
 * record, the buyer's mark, the stock, the queue and the stored 202, counted by Redis itself
 * ({@code INFO commandstats} of a Redis server of this class alone, the service's background work
 * slowed down). A purchase whose answer was lost is answered the same reservation byte for byte, and
 * one user's purchases with many tokens at once take one unit.
 */
@SpringBootTest(classes = SeckillApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"seckill.order.sweeper-enabled=false", "seckill.limits.enabled=false",
            // nothing else talks to Redis while purchases are counted: no consumers, no reconciler round
            "seckill.fast-path.consumers=0", "seckill.fast-path.reconcile-interval=1h"})
@ActiveProfiles({"postgres", "redis"})
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
class FastPathOneScriptIT {

    static final String DATABASE = ExternalDatabases.newName();
    /** The fast path's keys on this class's own Redis: the default prefix. */
    static final String FAST = "seckill:fast:";
    static final AtomicLong ACTIVITIES = new AtomicLong(500);
    static final Redis.Private redis = Redis.Private.start();
    static RedisClient client;
    static StatefulRedisConnection<String, String> connection;

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.host", () -> "127.0.0.1");
        registry.add("spring.data.redis.port", redis::port);
        TestSecrets.register(registry);
        ExternalDatabases.usePostgres(registry, DATABASE);
    }

    @BeforeAll
    static void connect() {
        client = RedisClient.create("redis://127.0.0.1:" + redis.port());
        connection = client.connect();
    }

    @AfterAll
    static void drop() throws Exception {
        connection.close();
        client.shutdown();
        redis.close();
        ExternalDatabases.dropPostgres(DATABASE);
    }

    @LocalServerPort
    int port;

    @Autowired
    JdbcClient jdbc;

    Api api;

    @BeforeEach
    void api() {
        api = new Api(port);
    }

    long sale(int stock) {
        return FastPathHttpIT.runningSale(jdbc, ACTIVITIES.incrementAndGet(), stock);
    }

    /** Calls per command since the server started, from {@code INFO commandstats}. */
    Map<String, Long> commands() {
        Map<String, Long> calls = new HashMap<>();
        for (String line : connection.sync().info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_")) {
                String name = line.substring("cmdstat_".length(), line.indexOf(':'));
                String count = line.substring(line.indexOf("calls=") + 6);
                calls.put(name, Long.parseLong(count.substring(0, count.indexOf(','))));
            }
        }
        return calls;
    }

    static Map<String, Long> delta(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> delta = new HashMap<>();
        after.forEach((name, calls) -> {
            long d = calls - before.getOrDefault(name, 0L);
            if (d > 0 && !name.equals("info")) {
                delta.put(name, d);
            }
        });
        return delta;
    }

    String stock(long sale) {
        return connection.sync().hget(FAST + "{a" + sale + "}:stock", "1");
    }

    @Test
    void aPurchaseIsOneScriptCallThatDoesEveryCheck() {
        long sale = sale(1_000);
        Api.Session warm = api.login("one-warm-" + sale);
        // the first purchase of a sale loads it into Redis
        assertThat(api.seckill(warm, sale, api.token(warm, sale)).status()).isEqualTo(202);
        int purchases = 20;
        List<Api.Session> buyers = new ArrayList<>();
        List<String> tokens = new ArrayList<>();
        for (int i = 0; i < purchases; i++) {
            Api.Session buyer = api.login("one-" + sale + "-" + i);
            buyers.add(buyer);
            tokens.add(api.token(buyer, sale));
        }

        Map<String, Long> before = commands();
        for (int i = 0; i < purchases; i++) {
            Api.Response accepted = api.seckill(buyers.get(i), sale, tokens.get(i));
            assertThat(accepted.status()).as(accepted.toString()).isEqualTo(202);
        }
        Map<String, Long> sent = delta(before, commands());

        // the scripts' own redis.call()s are counted under their names (get, hget, hincrby, xadd...):
        // what the service sent is EVALSHA (EVAL once, when the server did not know the script yet),
        // one per purchase and at most one reading of Redis's clock (every 10 s, for the calls' deadlines)
        long scripts = sent.getOrDefault("evalsha", 0L) + sent.getOrDefault("eval", 0L);
        assertThat(scripts).as("script calls for %d purchases: %s", purchases, sent).isBetween((long) purchases,
                purchases + 1L);
        assertThat(sent.keySet()).as("commands sent besides scripts: %s", sent)
                .isSubsetOf(Set.of("evalsha", "eval", "script", "time", "get", "hget", "hincrby", "hset", "xadd", "incr",
                        "pttl", "set", "hdel", "hexists", "exists", "pexpire", "psetex", "incrby"));
        // what only a script runs, and never a second call: one stream entry per purchase
        assertThat(sent.get("xadd")).isEqualTo(purchases);
        assertThat(stock(sale)).isEqualTo(String.valueOf(1_000 - 1 - purchases));
    }

    @Test
    void aPurchaseWhoseAnswerWasLostIsAnsweredTheSameReservationByteForByte() throws Exception {
        long sale = sale(10);
        Api.Session buyer = api.login("one-lost-" + sale);
        String token = api.token(buyer, sale);
        Api.Response first = api.seckill(buyer, sale, token);
        assertThat(first.status()).as(first.toString()).isEqualTo(202);

        // the client never saw it and buys again, after the request window, with a new token
        Thread.sleep(1_100);
        Api.Response again = api.seckill(buyer, sale, api.token(buyer, sale));
        assertThat(again.status()).as(again.toString()).isEqualTo(202);
        assertThat(again.body()).isEqualTo(first.body());
        assertThat(again.header("Location")).isEqualTo(first.header("Location"));
        assertThat(again.header("Content-Type")).isEqualTo(first.header("Content-Type"));

        // or resends the same token: told what the first purchase answered
        Thread.sleep(1_100);
        Api.Response resent = api.seckill(buyer, sale, token);
        assertThat(resent.status()).as(resent.toString()).isEqualTo(409);
        assertThat(resent.problem()).isEqualTo("duplicate-submission");
        assertThat(resent.json().get("firstStatus").asInt()).isEqualTo(202);
        assertThat(resent.json().get("firstResult").get("reservationId").asText()).isEqualTo(first.text("reservationId"));
        assertThat(stock(sale)).isEqualTo("9");
    }

    @Test
    void oneUsersPurchasesWithManyTokensAtOnceTakeOneUnit() throws Exception {
        long sale = sale(10);
        Api.Session warm = api.login("one-many-warm-" + sale);
        assertThat(api.seckill(warm, sale, api.token(warm, sale)).status()).isEqualTo(202);
        Api.Session buyer = api.login("one-many-" + sale);
        int attempts = 5;
        List<String> tokens = new ArrayList<>();
        for (int i = 0; i < attempts; i++) {
            // the request window covers the token endpoint too
            Thread.sleep(i == 0 ? 0 : 1_050);
            tokens.add(api.token(buyer, sale));
        }
        Thread.sleep(1_050);
        ExecutorService threads = Executors.newFixedThreadPool(attempts);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Api.Response>> answers = new ArrayList<>();
        try {
            for (String token : tokens) {
                answers.add(threads.submit(() -> {
                    start.await();
                    return api.seckill(buyer, sale, token);
                }));
            }
            start.countDown();
            Set<String> reservations = new java.util.HashSet<>();
            int accepted = 0;
            for (Future<Api.Response> answer : answers) {
                Api.Response response = answer.get();
                if (response.status() == 202) {
                    accepted++;
                    reservations.add(response.text("reservationId"));
                } else {
                    // the request window: the same user on the same sale within 1 s
                    assertThat(response.status()).as(response.toString()).isEqualTo(429);
                    assertThat(response.problem()).isEqualTo("duplicate-request");
                    assertThat(response.header("Retry-After")).isEqualTo("1");
                }
            }
            assertThat(accepted).isPositive();
            assertThat(reservations).hasSize(1);
        } finally {
            threads.shutdownNow();
        }
        assertThat(stock(sale)).isEqualTo("8");
        assertThat(connection.sync().hgetall(FAST + "{a" + sale + "}:buyers")).hasSize(2);
        assertThat(connection.sync().xlen(FAST + "{a" + sale + "}:queue")).isEqualTo(2);
    }

    @Test
    void aBuyerWhoAcceptsNoJsonIs406BeforeAnythingIsTaken() {
        long sale = sale(10);
        Api.Session buyer = api.login("one-html-" + sale);
        String token = api.token(buyer, sale);
        Api.Response html = api.send(api.request("POST", "/api/seckill/activities/" + sale + "/orders", buyer,
                "{\"quantity\":1}", "Idempotency-Token", token, "Accept", "text/html"));
        assertThat(html.status()).as(html.toString()).isEqualTo(406);
        assertThat(stock(sale)).isNull();
        assertThat(connection.sync().hgetall(FAST + "{a" + sale + "}:buyers")).isEmpty();

        // the token was not used: the corrected request buys with it
        Api.Response json = api.seckill(buyer, sale, token);
        assertThat(json.status()).as(json.toString()).isEqualTo(202);
        assertThat(stock(sale)).isEqualTo("9");
    }

    @Test
    void theOpenApiDocumentShowsThePurchasesTokenAnd202() {
        Api.Response docs = api.get("/v3/api-docs", null);
        assertThat(docs.status()).isEqualTo(200);
        tools.jackson.databind.JsonNode purchase = docs.json().path("paths")
                .path("/api/seckill/activities/{activityId}/orders").path("post");
        List<String> parameters = new ArrayList<>();
        purchase.path("parameters").forEach(p -> parameters.add(p.path("in").asString() + ":" + p.path("name").asString()));
        assertThat(parameters).contains("header:Idempotency-Token").noneMatch(p -> p.contains("atomic"));
        assertThat(purchase.path("responses").propertyNames()).contains("202", "400", "409", "429", "503").doesNotContain("201");
    }
}
