package io.onlyonce.spring.reactive;

import static io.onlyonce.spring.reactive.ReactiveIdempotentHttpTest.assertProblem;
import static io.onlyonce.spring.reactive.ReactiveIdempotentHttpTest.request;
import static io.onlyonce.spring.reactive.ReactiveIdempotentHttpTest.send;
import static io.onlyonce.spring.reactive.ReactiveIdempotentHttpTest.text;
import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.IdempotencyKey;
import io.onlyonce.fixtures.RedisSales;
import io.onlyonce.spring.reactive.app.ReactiveTestApplication;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.IdempotencyRecord;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.store.RecordStatus;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * {@code @Idempotent} WebFlux handlers whose effect is a Redis script ({@link ReactiveAtomicIdempotency}),
 * on the shared Redis (127.0.0.1:6379) under a key prefix of their own: the record and the effect are
 * one script call, so identical requests take one unit of stock and are all answered the first
 * answer's bytes; every other outcome is answered as the two-step reactive path answers it, even past
 * the application's catch-all exception handler, and changes nothing.
 */
@DirtiesContext
@SpringBootTest(classes = {ReactiveTestApplication.class, ReactiveAtomicPurchaseController.class},
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"spring.main.web-application-type=reactive", "onlyonce.messaging.enabled=false"})
class ReactiveAtomicIdempotencyIT {

    static final String PREFIX = "oo-reactive-atomic-it-" + UUID.randomUUID().toString().substring(0, 8) + ":";
    static RedisSales sales;

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        registry.add("onlyonce.store", () -> "redis");
        registry.add("onlyonce.redis.key-prefix", () -> PREFIX);
        registry.add("spring.data.redis.host", () -> "127.0.0.1");
        registry.add("spring.data.redis.port", () -> 6379);
        // HTTP semantics, not outages (ReactiveAtomicOutageIT): a budget a loaded build machine does not exceed
        registry.add("onlyonce.redis.command-timeout", () -> "30s");
        registry.add("onlyonce.circuit-breaker.slow-call-duration-threshold", () -> "30s");
    }

    @BeforeAll
    static void connect() {
        sales = new RedisSales("redis://127.0.0.1:6379", PREFIX);
        ReactiveAtomicPurchaseController.prefix = sales.keys();
    }

    @AfterAll
    static void deleteKeys() {
        sales.close();
    }

    @LocalServerPort
    int port;
    @Autowired
    IdempotencyStore store;

    HttpResponse<byte[]> buy(String sale, String user, String key, String body) {
        return send(request(port, "/atomic/" + sale + "/purchases", user, key, body));
    }

    @Test
    void theFirstRequestRunsTheEffectOnceAndItsRetryIsAByteExactReplay() {
        String sale = sales.sale(10);
        String key = UUID.randomUUID().toString();
        HttpResponse<byte[]> first = buy(sale, "alice", key, "{\"quantity\":1}");
        assertThat(first.statusCode()).as(text(first)).isEqualTo(201);
        assertThat(text(first)).isEqualTo("{\"left\":9,\"buyer\":\"alice\"}");
        assertThat(first.headers().firstValue("X-Units-Left")).hasValue("9");
        assertThat(first.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();

        // the same request, its JSON written otherwise: the fingerprint the two-step path computes
        HttpResponse<byte[]> again = buy(sale, "alice", key, "{ \"quantity\" : 1 }");
        assertThat(again.statusCode()).isEqualTo(201);
        assertThat(again.body()).isEqualTo(first.body());
        assertThat(again.headers().firstValue("X-Units-Left")).hasValue("9");
        assertThat(again.headers().firstValue("Content-Type")).isEqualTo(first.headers().firstValue("Content-Type"));
        assertThat(again.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(sales.left(sale)).isEqualTo("9");
        assertThat(sales.buyers(sale)).containsExactly("alice");

        // the record lives where the two-step path keeps it: under the route's scope and the principal
        IdempotencyRecord record = store.find(new IdempotencyKey("POST /atomic/{sale}/purchases alice", key)).orElseThrow();
        assertThat(record.status()).isEqualTo(RecordStatus.COMPLETED);
        assertThat(record.response().body()).isEqualTo(first.body());
    }

    @Test
    void fiftyConcurrentIdenticalRequestsTakeOneUnitAndAreAllAnsweredTheFirstAnswer() throws Exception {
        String sale = sales.sale(100);
        String key = UUID.randomUUID().toString();
        int requests = 50;
        ExecutorService threads = Executors.newFixedThreadPool(requests);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<HttpResponse<byte[]>>> answers = IntStream.range(0, requests)
                    .mapToObj(i -> threads.submit(() -> {
                        start.await();
                        return buy(sale, "alice", key, "{\"quantity\":1}");
                    }))
                    .toList();
            start.countDown();
            Set<String> bodies = new HashSet<>();
            int notReplayed = 0;
            for (Future<HttpResponse<byte[]>> answer : answers) {
                HttpResponse<byte[]> response = answer.get();
                assertThat(response.statusCode()).as(text(response)).isEqualTo(201);
                assertThat(response.headers().firstValue("X-Units-Left")).hasValue("99");
                bodies.add(text(response));
                if (response.headers().firstValue("Idempotent-Replayed").isEmpty()) {
                    notReplayed++;
                }
            }
            assertThat(bodies).containsExactly("{\"left\":99,\"buyer\":\"alice\"}");
            assertThat(notReplayed).as("answers that are not replays").isEqualTo(1);
        } finally {
            threads.shutdownNow();
        }
        assertThat(sales.left(sale)).isEqualTo("99");
        assertThat(sales.buyers(sale)).containsExactly("alice");
    }

    @Test
    void anotherBodyUnderTheKeyIs422AndChangesNothing() {
        String sale = sales.sale(10);
        String key = UUID.randomUUID().toString();
        assertThat(buy(sale, "alice", key, "{\"quantity\":1}").statusCode()).isEqualTo(201);

        HttpResponse<byte[]> reused = buy(sale, "alice", key, "{\"quantity\":2}");
        // the two-step path's problem, not the application's catch-all exception handler's 500
        assertProblem(reused, 422, "idempotency-key-reused");
        assertThat(sales.left(sale)).isEqualTo("9");

        assertProblem(buy(sale, "alice", null, "{\"quantity\":1}"), 400, "idempotency-key-missing");
        assertProblem(buy(sale, "alice", "a,b", "{\"quantity\":1}"), 400, "idempotency-key-invalid");
        assertThat(sales.left(sale)).isEqualTo("9");

        // another user under the same key is another record: their own unit
        HttpResponse<byte[]> bob = buy(sale, "bob", key, "{\"quantity\":1}");
        assertThat(bob.statusCode()).isEqualTo(201);
        assertThat(bob.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(sales.left(sale)).isEqualTo("8");
        assertThat(sales.buyers(sale)).containsExactly("alice", "bob");
    }

    @Test
    void aRequestInProgressOnTheTwoStepPathIs409WithRetryAfterAndChangesNothing() {
        String sale = sales.sale(10);
        String body = "{\"quantity\":1}";
        String done = UUID.randomUUID().toString();
        assertThat(buy(sale, "alice", done, body).statusCode()).isEqualTo(201);
        // the same request's fingerprint, as OnlyOnce computed it, claimed under another key and left in progress
        IdempotencyRecord first = store.find(new IdempotencyKey("POST /atomic/{sale}/purchases alice", done)).orElseThrow();
        String key = UUID.randomUUID().toString();
        IdempotencyKey claimed = new IdempotencyKey("POST /atomic/{sale}/purchases alice", key);
        ClaimResult claim = store.claim(claimed, first.fingerprint(), Duration.ofSeconds(30));
        assertThat(claim).isInstanceOf(ClaimResult.Claimed.class);

        HttpResponse<byte[]> inProgress = buy(sale, "alice", key, body);
        assertProblem(inProgress, 409, "idempotency-request-in-progress");
        assertThat(inProgress.headers().firstValue("Retry-After")).as("a holder that just started: the two-step rule, not"
                + " the rest of its 30 s lease").hasValue("1");
        assertThat(sales.left(sale)).isEqualTo("9");

        // a holder 10 s into a 30 s lease is overdue: the 409 says when its lease ends (19 once Redis's PTTL passed a second)
        String overdue = UUID.randomUUID().toString();
        assertThat(store.claim(new IdempotencyKey("POST /atomic/{sale}/purchases alice", overdue), first.fingerprint(),
                Duration.ofSeconds(20))).isInstanceOf(ClaimResult.Claimed.class);
        HttpResponse<byte[]> late = buy(sale, "alice", overdue, body);
        assertProblem(late, 409, "idempotency-request-in-progress");
        assertThat(Long.parseLong(late.headers().firstValue("Retry-After").orElseThrow())).isBetween(19L, 20L);
        assertThat(sales.left(sale)).isEqualTo("9");

        store.release(claimed, ((ClaimResult.Claimed) claim).owner());
        HttpResponse<byte[]> released = buy(sale, "alice", key, body);
        assertThat(released.statusCode()).as(text(released)).isEqualTo(201);
        assertThat(sales.left(sale)).isEqualTo("8");
    }

    @Test
    void aDeclinedEffectIsTheHandlersAnswerAndStoresNothing() {
        String sale = sales.sale(0);
        String key = UUID.randomUUID().toString();
        HttpResponse<byte[]> soldOut = buy(sale, "alice", key, "{}");
        assertThat(soldOut.statusCode()).isEqualTo(409);
        assertThat(text(soldOut)).isEqualTo("{\"declined\":\"SOLD_OUT\"}");

        sales.stock(sale, 1);
        HttpResponse<byte[]> restocked = buy(sale, "alice", key, "{}");
        assertThat(restocked.statusCode()).as("the decline kept no record").isEqualTo(201);
        assertThat(sales.left(sale)).isEqualTo("0");
    }

    @Test
    void aTokenIsUsedByTheScriptAndAResentOneIsToldTheFirstAnswer() {
        String sale = sales.sale(5);
        HttpResponse<byte[]> issued = send(request(port, "/idempotency/tokens?scope=atomic:" + sale, "alice", null, ""));
        assertThat(issued.statusCode()).as(text(issued)).isEqualTo(201);
        String token = text(issued).replaceAll(".*\"token\"\\s*:\\s*\"([^\"]+)\".*", "$1");

        HttpResponse<byte[]> first = send(request(port, "/atomic/" + sale + "/token-purchases", "alice", null, "{}")
                .header("Idempotency-Token", token));
        assertThat(first.statusCode()).as(text(first)).isEqualTo(201);
        HttpResponse<byte[]> resent = send(request(port, "/atomic/" + sale + "/token-purchases", "alice", null, "{}")
                .header("Idempotency-Token", token));
        assertProblem(resent, 409, "duplicate-submission");
        assertThat(text(resent)).contains("\"firstStatus\":201");
        assertThat(sales.left(sale)).isEqualTo("4");

        assertProblem(send(request(port, "/atomic/" + sale + "/token-purchases", "alice", null, "{}")), 400,
                "idempotency-token-missing");
        // bound to alice: bob cannot use it
        assertProblem(send(request(port, "/atomic/" + sale + "/token-purchases", "bob", null, "{}")
                .header("Idempotency-Token", token)), 403, "idempotency-token-mismatch");
        assertThat(sales.left(sale)).isEqualTo("4");
    }

    @Test
    void aHandlerThatIsNotIdempotentCannotRunTheEffect() {
        String sale = sales.sale(5);
        HttpResponse<byte[]> response = send(request(port, "/atomic/" + sale + "/unprotected", "alice", null, "{}"));
        assertThat(response.statusCode()).isEqualTo(500);
        assertThat(text(response)).contains("annotate the handler method");
        assertThat(sales.left(sale)).isEqualTo("5");
    }
}
