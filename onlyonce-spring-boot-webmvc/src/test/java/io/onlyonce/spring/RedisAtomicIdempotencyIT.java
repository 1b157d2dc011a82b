package io.onlyonce.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.IdempotencyKey;
import io.onlyonce.fixtures.RedisSales;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.IdempotencyRecord;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.spring.testapp.AtomicPurchaseController;
import io.onlyonce.spring.testapp.TestApplication;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * {@code @Idempotent} handlers whose effect is a Redis script ({@code AtomicIdempotency}), on the
 * shared Redis under a key prefix of their own: the record and the effect are one script call, so
 * parallel identical requests take one unit and every one of them is answered the first answer's
 * bytes (none waits on a record in progress); the annotation's refusals (400, 422, a used token's 409
 * with the first answer) hold, and a declined effect stores nothing.
 */
@SpringBootTest(classes = TestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
class RedisAtomicIdempotencyIT {

    static final String PREFIX = "oo-atomic-it-" + UUID.randomUUID().toString().substring(0, 8) + ":";
    static RedisSales sales;

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        RedisIdempotentHttpIT.sharedRedis(registry, PREFIX);
    }

    @BeforeAll
    static void connect() {
        sales = new RedisSales("redis://127.0.0.1:6379", PREFIX);
        AtomicPurchaseController.prefix = sales.keys();
    }

    @AfterAll
    static void deleteKeys() {
        sales.close();
    }

    @LocalServerPort
    int port;

    Http http;

    @BeforeEach
    void http() {
        http = new Http(port);
    }

    HttpResponse<String> buy(String sale, String user, String key, String body) {
        return http.send(http.post("/atomic/" + sale + "/purchases", user, body).header("Idempotency-Key", key));
    }

    @Test
    void parallelIdenticalRequestsTakeOneUnitAndAreAllAnsweredTheFirstAnswer() throws Exception {
        String sale = sales.sale(10);
        String key = UUID.randomUUID().toString();
        int requests = 20;
        ExecutorService threads = Executors.newFixedThreadPool(requests);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<HttpResponse<String>>> answers = new ArrayList<>();
        try {
            for (int i = 0; i < requests; i++) {
                answers.add(threads.submit(() -> {
                    start.await();
                    return buy(sale, "alice", key, "{\"quantity\":1}");
                }));
            }
            start.countDown();
            Set<String> bodies = new HashSet<>();
            int first = 0;
            for (Future<HttpResponse<String>> answer : answers) {
                HttpResponse<String> response = answer.get();
                assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
                assertThat(response.headers().firstValue("X-Units-Left")).hasValue("9");
                bodies.add(response.body());
                if (response.headers().firstValue("Idempotent-Replayed").isEmpty()) {
                    first++;
                }
            }
            assertThat(bodies).containsExactly("{\"left\":9,\"buyer\":\"alice\"}");
            assertThat(first).as("answers that are not replays").isEqualTo(1);
        } finally {
            threads.shutdownNow();
        }
        assertThat(sales.left(sale)).isEqualTo("9");
        assertThat(sales.buyers(sale)).containsExactly("alice");
    }

    @org.springframework.beans.factory.annotation.Autowired
    IdempotencyStore store;

    /**
     * The one Retry-After rule of every path: a holder that just started is retried after a second,
     * one 10 s into a 30 s lease (overdue) when its lease ends (19 once Redis's PTTL passed a second).
     */
    @Test
    void aRecordInProgressIs409WithTheRetryAfterOfTheTwoStepPath() {
        String sale = sales.sale(10);
        String done = UUID.randomUUID().toString();
        assertThat(buy(sale, "alice", done, "{\"quantity\":1}").statusCode()).isEqualTo(201);
        IdempotencyRecord first = store.find(new IdempotencyKey("POST /atomic/{sale}/purchases alice", done)).orElseThrow();

        assertThat(retryAfterOfAHolder(sale, first, Duration.ofSeconds(30))).as("not the rest of the 30 s lease").isEqualTo(1);
        assertThat(retryAfterOfAHolder(sale, first, Duration.ofSeconds(20))).isBetween(19L, 20L);
        assertThat(sales.left(sale)).isEqualTo("9");
    }

    /** The Retry-After of the 409 that {@code first}'s request gets under a key claimed now with {@code lease}. */
    private long retryAfterOfAHolder(String sale, IdempotencyRecord first, Duration lease) {
        String key = UUID.randomUUID().toString();
        assertThat(store.claim(new IdempotencyKey("POST /atomic/{sale}/purchases alice", key), first.fingerprint(), lease))
                .isInstanceOf(ClaimResult.Claimed.class);
        HttpResponse<String> refused = buy(sale, "alice", key, "{\"quantity\":1}");
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(409);
        assertThat(refused.body()).contains("idempotency-request-in-progress");
        return Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow());
    }

    @Test
    void theAnnotationsRefusalsHoldAndChangeNothing() {
        String sale = sales.sale(10);
        String key = UUID.randomUUID().toString();
        assertThat(buy(sale, "alice", key, "{\"quantity\":1}").statusCode()).isEqualTo(201);

        HttpResponse<String> reused = buy(sale, "alice", key, "{\"quantity\":2}");
        assertThat(reused.statusCode()).as(reused.body()).isEqualTo(422);
        assertThat(reused.body()).contains("idempotency-key-reused");

        // produces = JSON on the mapping: a client that accepts no JSON is 406 before anything runs
        HttpResponse<String> html = http.send(http.post("/atomic/" + sale + "/purchases", "alice", "{}")
                .header("Idempotency-Key", UUID.randomUUID().toString()).header("Accept", "text/html"));
        assertThat(html.statusCode()).as(html.body()).isEqualTo(406);
        assertThat(sales.left(sale)).isEqualTo("9");

        HttpResponse<String> missing = http.send(http.post("/atomic/" + sale + "/purchases", "alice", "{}"));
        assertThat(missing.statusCode()).as(missing.body()).isEqualTo(400);
        assertThat(missing.body()).contains("idempotency-key-missing");

        // another user under the same key is another record: their own unit
        HttpResponse<String> bob = buy(sale, "bob", key, "{\"quantity\":1}");
        assertThat(bob.statusCode()).isEqualTo(201);
        assertThat(bob.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(sales.left(sale)).isEqualTo("8");
        assertThat(sales.buyers(sale)).containsExactly("alice", "bob");
    }

    @Test
    void aDeclinedEffectIsTheHandlersAnswerAndStoresNothing() {
        String sale = sales.sale(0);
        String key = UUID.randomUUID().toString();
        HttpResponse<String> soldOut = buy(sale, "alice", key, "{}");
        assertThat(soldOut.statusCode()).isEqualTo(409);
        assertThat(soldOut.body()).isEqualTo("{\"declined\":\"SOLD_OUT\"}");

        sales.stock(sale, 1);
        HttpResponse<String> restocked = buy(sale, "alice", key, "{}");
        assertThat(restocked.statusCode()).as("the decline kept no record").isEqualTo(201);
        assertThat(sales.left(sale)).isEqualTo("0");
    }

    @Test
    void aTokenIsUsedByTheScriptAndAResentOneIsToldTheFirstAnswer() {
        String sale = sales.sale(5);
        HttpResponse<String> issued = http.send(http.post("/idempotency/tokens?scope=atomic:" + sale, "alice", ""));
        assertThat(issued.statusCode()).as(issued.body()).isEqualTo(201);
        String token = JsonDoc.parse(issued.body()).get("token").asString();

        HttpResponse<String> first = http.send(http.post("/atomic/" + sale + "/token-purchases", "alice", "{}")
                .header("Idempotency-Token", token));
        assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
        HttpResponse<String> resent = http.send(http.post("/atomic/" + sale + "/token-purchases", "alice", "{}")
                .header("Idempotency-Token", token));
        assertThat(resent.statusCode()).as(resent.body()).isEqualTo(409);
        JsonDoc problem = JsonDoc.parse(resent.body());
        assertThat(problem.get("type").asString()).isEqualTo("urn:onlyonce:problem:duplicate-submission");
        assertThat(problem.get("firstStatus").asInt()).isEqualTo(201);
        assertThat(sales.left(sale)).isEqualTo("4");

        HttpResponse<String> noToken = http.send(http.post("/atomic/" + sale + "/token-purchases", "alice", "{}"));
        assertThat(noToken.statusCode()).isEqualTo(400);
        assertThat(sales.left(sale)).isEqualTo("4");
    }
}
