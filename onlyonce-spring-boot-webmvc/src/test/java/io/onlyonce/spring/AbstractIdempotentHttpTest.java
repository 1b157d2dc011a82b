package io.onlyonce.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.store.IdempotencyRecord;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.store.RecordStatus;
import io.onlyonce.spring.testapp.EdgeController;
import io.onlyonce.spring.testapp.PaymentService;
import io.onlyonce.spring.testapp.OrderController;
import io.onlyonce.spring.testapp.TestApplication;
import io.onlyonce.testing.MutableClock;
import io.onlyonce.testing.Race;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * Every row of the Idempotency-Key and token tables (docs/spring-boot.md) over real HTTP, for one
 * store. Subclasses choose the store with properties. The application's clock stands still until a
 * test moves it forward; it never moves back, so tests of one class cannot disturb each other.
 */
@SpringBootTest(classes = TestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
public abstract class AbstractIdempotentHttpTest {

    protected static final String ORDER = "{\"item\":\"phone\",\"quantity\":1,\"businessId\":\"b-1\"}";
    protected static final String PROBLEM = "urn:onlyonce:problem:";

    @LocalServerPort
    int port;

    @Autowired
    protected OrderController orders;

    @Autowired
    protected EdgeController edge;

    @Autowired
    protected PaymentService payments;

    @Autowired
    protected MutableClock clock;

    @Autowired
    protected MeterRegistry meters;

    @Autowired
    protected IdempotencyStore store;

    protected Http http;

    @BeforeEach
    void setUpHttp() {
        http = new Http(port);
        orders.reset();
        edge.reset();
    }

    protected static String newKey() {
        return UUID.randomUUID().toString();
    }

    protected static JsonDoc json(HttpResponse<String> response) {
        return JsonDoc.parse(response.body());
    }

    protected HttpResponse<String> order(String user, String key, String body) {
        return http.send(http.post("/orders", user, body).header("Idempotency-Key", key));
    }

    protected HttpResponse<String> send(String path, String user, String key, String body) {
        return http.send(http.post(path, user, body).header("Idempotency-Key", key));
    }

    /** {@code onlyonce.requests} for one layer, outcome and endpoint; 0 before the first count. */
    protected double counted(String layer, String outcome, String endpoint) {
        Counter counter = meters.find("onlyonce.requests")
                .tags("layer", layer, "outcome", outcome, "endpoint", endpoint).counter();
        return counter == null ? 0 : counter.count();
    }

    protected Optional<IdempotencyRecord> record(String endpoint, String user, String key) {
        return store.find(new IdempotencyKey(endpoint + " " + user, key));
    }

    /** Lets {@code duration} pass on the store's clock: sleeps; the in-memory store's test moves its clock. */
    protected void elapse(Duration duration) throws InterruptedException {
        Thread.sleep(duration.toMillis());
    }

    protected static void assertProblem(HttpResponse<String> response, int status, String slug) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        JsonDoc problem = JsonDoc.parse(response.body());
        assertThat(problem.get("type").asString()).isEqualTo(PROBLEM + slug);
        assertThat(problem.get("status").asInt()).isEqualTo(status);
        assertThat(problem.get("title").asString()).isNotBlank();
        assertThat(problem.get("detail").asString()).isNotBlank();
    }

    // ---------------------------------------------------------------- Idempotency-Key

    @Test
    void firstRequestExecutesAndTheRetryIsReplayedByteForByte() {
        double executed = counted("business", "executed", "POST /orders");
        double replayed = counted("business", "replayed", "POST /orders");
        String key = newKey();
        HttpResponse<String> first = order("alice", key, ORDER);
        assertThat(record("POST /orders", "alice", key)).hasValueSatisfying(r -> {
            assertThat(r.status()).isEqualTo(RecordStatus.COMPLETED);
            assertThat(r.response().status()).isEqualTo(201);
            assertThat(new String(r.response().body(), StandardCharsets.UTF_8)).isEqualTo(first.body());
        });
        HttpResponse<String> retry = order("alice", key, ORDER);

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.headers().firstValue("Location")).isPresent();
        assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(retry.headers().firstValue("Location")).isEqualTo(first.headers().firstValue("Location"));
        assertThat(retry.headers().firstValue("Content-Type")).isEqualTo(first.headers().firstValue("Content-Type"));
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(orders.executions("orders")).isEqualTo(1);
        assertThat(counted("business", "executed", "POST /orders")).isEqualTo(executed + 1);
        assertThat(counted("business", "replayed", "POST /orders")).isEqualTo(replayed + 1);
    }

    @Test
    void concurrentIdenticalPostsExecuteOnce() throws Exception {
        String key = newKey();
        List<HttpResponse<String>> responses = Race.run(200, () -> order("alice", key, ORDER));
        assertThat(orders.executions("orders")).isEqualTo(1);
        assertThat(responses).allSatisfy(r -> assertThat(r.statusCode()).isIn(201, 409));
        String body = responses.stream().filter(r -> r.statusCode() == 201).findFirst().orElseThrow().body();
        assertThat(responses).filteredOn(r -> r.statusCode() == 201).allSatisfy(r -> assertThat(r.body()).isEqualTo(body));
        assertThat(responses).filteredOn(r -> r.statusCode() == 201).filteredOn(
                r -> r.headers().firstValue("Idempotent-Replayed").isEmpty()).hasSize(1);
        assertThat(responses).filteredOn(r -> r.statusCode() == 409).allSatisfy(r -> {
            assertThat(r.headers().firstValue("Retry-After")).isPresent();
            assertProblem(r, 409, "idempotency-request-in-progress");
        });
    }

    @Test
    void anotherUserWithTheSameKeyNeverSeesTheFirstUsersResponse() {
        String key = newKey();
        HttpResponse<String> alice = order("alice", key, "{\"item\":\"alice-secret\",\"quantity\":1,\"businessId\":\"a\"}");
        HttpResponse<String> bob = order("bob", key, "{\"item\":\"alice-secret\",\"quantity\":1,\"businessId\":\"a\"}");
        assertThat(alice.statusCode()).isEqualTo(201);
        assertThat(bob.statusCode()).isEqualTo(201);
        assertThat(bob.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(bob.body()).isNotEqualTo(alice.body());
        assertThat(orders.executions("orders")).isEqualTo(2);
    }

    @Test
    void differentPayloadWithTheSameKeyIs422AndDoesNotRun() {
        double mismatches = counted("business", "mismatch", "POST /orders");
        String key = newKey();
        order("alice", key, ORDER);
        HttpResponse<String> other = order("alice", key, "{\"item\":\"laptop\",\"quantity\":1,\"businessId\":\"b-1\"}");
        assertProblem(other, 422, "idempotency-key-reused");
        assertThat(other.body()).contains("\"type\":\"urn:onlyonce:problem:idempotency-key-reused\"");
        assertThat(orders.executions("orders")).isEqualTo(1);
        assertThat(counted("business", "mismatch", "POST /orders")).isEqualTo(mismatches + 1);
    }

    @Test
    void fieldOrderAndWhitespaceDoNotMakeADifferentRequest() {
        String key = newKey();
        order("alice", key, ORDER);
        HttpResponse<String> reordered = order("alice", key, "{ \"businessId\": \"b-1\", \"quantity\": 1, \"item\": \"phone\" }");
        assertThat(reordered.statusCode()).isEqualTo(201);
        assertThat(reordered.headers().firstValue("Idempotent-Replayed")).contains("true");
    }

    @Test
    void missingKeyIs400AndNothingRuns() {
        double missing = counted("business", "missing_key", "POST /orders");
        HttpResponse<String> response = http.send(http.post("/orders", "alice", ORDER));
        assertProblem(response, 400, "idempotency-key-missing");
        assertThat(orders.executions("orders")).isZero();
        assertThat(counted("business", "missing_key", "POST /orders")).isEqualTo(missing + 1);
    }

    @Test
    void malformedOrDuplicatedKeysAre400() {
        assertProblem(order("alice", "has space", ORDER), 400, "idempotency-key-invalid");
        assertProblem(order("alice", "k".repeat(256), ORDER), 400, "idempotency-key-invalid");
        assertProblem(order("alice", "\"unterminated", ORDER), 400, "idempotency-key-invalid");
        assertProblem(order("alice", "a,b", ORDER), 400, "idempotency-key-invalid");
        HttpResponse<String> twice = http.send(http.post("/orders", "alice", ORDER)
                .header("Idempotency-Key", "a").header("Idempotency-Key", "b"));
        assertProblem(twice, 400, "idempotency-key-invalid");
        assertThat(orders.executions("orders")).isZero();
        assertThat(order("alice", "k".repeat(255), ORDER).statusCode()).as("255 characters are fine").isEqualTo(201);
    }

    @Test
    void sfStringAndBareFormsAreTheSameKey() {
        String key = newKey();
        order("alice", key, ORDER);
        HttpResponse<String> quoted = order("alice", "\"" + key + "\"", ORDER);
        assertThat(quoted.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(orders.executions("orders")).isEqualTo(1);
    }

    @Test
    void problemsSpeakChineseWhenAskedTo() {
        HttpResponse<String> response = http.send(http.post("/orders", "alice", ORDER).header("Accept-Language", "zh-CN"));
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("缺少幂等键");
    }

    @Test
    void problemsTakeTheFirstLanguageTheyAreWrittenInOfThoseTheCallerAccepts() {
        HttpResponse<String> frenchFirst = http.send(http.post("/orders", "alice", ORDER)
                .header("Accept-Language", "fr-FR, fr;q=0.9, zh;q=0.5, en;q=0.3"));
        assertThat(frenchFirst.statusCode()).isEqualTo(400);
        assertThat(frenchFirst.body()).contains("缺少幂等键");
        HttpResponse<String> englishBeforeChinese = http.send(http.post("/orders", "alice", ORDER)
                .header("Accept-Language", "de, en;q=0.8, zh;q=0.5"));
        assertThat(englishBeforeChinese.body()).doesNotContain("缺少幂等键").contains("Idempotency");
        HttpResponse<String> neither = http.send(http.post("/orders", "alice", ORDER).header("Accept-Language", "fr"));
        assertThat(neither.body()).doesNotContain("缺少幂等键");
        // a refusal of a service method (the exception handler, past the application's locale resolver)
        String token = token("alice", "seckill");
        assertThat(http.send(http.post("/seckill", "alice", ORDER).header("Idempotency-Token", token)).statusCode())
                .isEqualTo(201);
        HttpResponse<String> duplicate = http.send(http.post("/seckill", "alice", ORDER)
                .header("Idempotency-Token", token).header("Accept-Language", "fr, zh;q=0.5"));
        assertThat(duplicate.body()).contains("请勿重复提交");
    }

    @Test
    void anonymousRequestNeverReachesTheMethod() {
        HttpResponse<String> response = order(null, newKey(), ORDER);
        assertThat(response.statusCode()).isEqualTo(401);
        assertThat(orders.executions("orders")).isZero();
    }

    @Test
    void exceptionReleasesTheKeySoTheRetryExecutesAndTheErrorLeaksNothing() {
        String key = newKey();
        HttpResponse<String> first = http.send(http.post("/orders/7/fail", "alice", "").header("Idempotency-Key", key));
        assertThat(record("POST /orders/{id}/fail", "alice", key)).as("released").isEmpty();
        HttpResponse<String> retry = http.send(http.post("/orders/7/fail", "alice", "").header("Idempotency-Key", key));
        assertThat(first.statusCode()).isEqualTo(500);
        assertThat(first.body()).doesNotContain("10.0.0.7").doesNotContain("database");
        assertThat(retry.statusCode()).isEqualTo(200);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(orders.executions("fail")).isEqualTo(2);
    }

    @Test
    void fiveHundredAnswerReleasesTheKeySoTheRetryExecutes() {
        String key = newKey();
        HttpResponse<String> first = send("/orders/3/unavailable", "alice", key, "");
        HttpResponse<String> retry = send("/orders/3/unavailable", "alice", key, "");
        HttpResponse<String> again = send("/orders/3/unavailable", "alice", key, "");
        assertThat(first.statusCode()).isEqualTo(503);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(again.statusCode()).isEqualTo(201);
        assertThat(again.body()).isEqualTo(retry.body());
        assertThat(again.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(orders.executions("unavailable")).isEqualTo(2);
    }

    @Test
    void businessFourHundredIsStoredAndReplayed() {
        String key = newKey();
        HttpResponse<String> first = http.send(http.post("/orders/9/reject", "alice", "").header("Idempotency-Key", key));
        HttpResponse<String> retry = http.send(http.post("/orders/9/reject", "alice", "").header("Idempotency-Key", key));
        assertThat(first.statusCode()).isEqualTo(404);
        assertThat(retry.statusCode()).isEqualTo(404);
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(orders.executions("reject")).isEqualTo(1);
    }

    @Test
    void aBusinessErrorRaisedAsResponseStatusExceptionIsStoredAndReplayed() {
        String key = newKey();
        String invalid = "{\"item\":\"phone\",\"quantity\":0,\"businessId\":\"b-1\"}";
        HttpResponse<String> first = order("alice", key, invalid);
        HttpResponse<String> retry = order("alice", key, invalid);
        assertThat(first.statusCode()).isEqualTo(422);
        assertThat(first.body()).as("the error page's body").contains("\"status\":422");
        assertThat(retry.statusCode()).isEqualTo(422);
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(orders.executions("orders")).isEqualTo(1);
    }

    @Test
    void tryAgainStatusesFromTheBusinessAreNotStored() {
        String key = newKey();
        HttpResponse<String> first = send("/orders/4/busy", "alice", key, "");
        HttpResponse<String> retry = send("/orders/4/busy", "alice", key, "");
        assertThat(first.statusCode()).isEqualTo(409);
        assertThat(retry.statusCode()).isEqualTo(200);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(orders.executions("busy")).isEqualTo(2);
    }

    @Test
    void requestRejectedBeforeTheMethodRanStoresNothing() {
        String key = newKey();
        HttpResponse<String> malformed = order("alice", key, "{\"item\": ");
        assertThat(malformed.statusCode()).isEqualTo(400);
        assertThat(record("POST /orders", "alice", key)).isEmpty();
        HttpResponse<String> corrected = order("alice", key, ORDER);
        assertThat(corrected.statusCode()).isEqualTo(201);
        assertThat(corrected.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(orders.executions("orders")).isEqualTo(1);
    }

    @Test
    void keyFromTheArgumentsBySpel() {
        String body = "{\"item\":\"phone\",\"quantity\":1,\"businessId\":\"u42_1732950000000_" + newKey().substring(0, 6) + "\"}";
        HttpResponse<String> first = http.send(http.post("/orders/by-business-id", "alice", body));
        HttpResponse<String> again = http.send(http.post("/orders/by-business-id", "alice", body));
        HttpResponse<String> blank = http.send(http.post("/orders/by-business-id", "alice",
                "{\"item\":\"phone\",\"quantity\":1,\"businessId\":\" \"}"));
        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(again.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertProblem(blank, 400, "idempotency-key-missing");
        assertThat(orders.executions("by-business-id")).isEqualTo(1);
    }

    @Test
    void sameKeyWhileTheFirstIsRunningIs409WithRetryAfter() throws Exception {
        double inProgress = counted("business", "in_progress", "POST /orders/slow");
        String key = newKey();
        orders.close();
        Thread first = new Thread(() -> http.send(http.post("/orders/slow", "alice", ORDER).header("Idempotency-Key", key)));
        first.start();
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> orders.executions("slow") == 1);
            assertThat(record("POST /orders/slow", "alice", key)).hasValueSatisfying(
                    r -> assertThat(r.status()).isEqualTo(RecordStatus.IN_PROGRESS));
            HttpResponse<String> second = http.send(http.post("/orders/slow", "alice", ORDER).header("Idempotency-Key", key));
            assertProblem(second, 409, "idempotency-request-in-progress");
            assertThat(second.headers().firstValue("Retry-After")).hasValueSatisfying(
                    v -> assertThat(Long.parseLong(v)).isBetween(1L, 30L));
            HttpResponse<String> different = http.send(http.post("/orders/slow", "alice",
                    "{\"item\":\"other\",\"quantity\":2,\"businessId\":\"x\"}").header("Idempotency-Key", key));
            assertThat(different.statusCode()).as("mismatch is reported before in-progress").isEqualTo(422);
        } finally {
            orders.open();
            first.join();
        }
        assertThat(orders.executions("slow")).isEqualTo(1);
        assertThat(record("POST /orders/slow", "alice", key)).hasValueSatisfying(r -> {
            assertThat(r.status()).isEqualTo(RecordStatus.COMPLETED);
            assertThat(r.response().status()).isEqualTo(200);
        });
        HttpResponse<String> retry = http.send(http.post("/orders/slow", "alice", ORDER).header("Idempotency-Key", key));
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).as("the 409 stored nothing").contains("true");
        assertThat(counted("business", "in_progress", "POST /orders/slow")).isEqualTo(inProgress + 1);
    }

    @Test
    void sameKeyAfterTheRetentionEndedExecutesAgain() throws Exception {
        String key = newKey();
        HttpResponse<String> first = send("/orders/brief", "alice", key, ORDER);
        assertThat(send("/orders/brief", "alice", key, ORDER).headers().firstValue("Idempotent-Replayed")).contains("true");
        elapse(OrderController.BRIEF.plusMillis(200));
        HttpResponse<String> later = send("/orders/brief", "alice", key, ORDER);
        assertThat(later.statusCode()).isEqualTo(201);
        assertThat(later.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(later.body()).isNotEqualTo(first.body());
        assertThat(orders.executions("brief")).isEqualTo(2);
    }

    @Test
    void anExpiredLeaseIsTakenOverAndTheOldHoldersLateCompletionIsRefused() throws Exception {
        String key = newKey();
        orders.close();
        CompletableFuture<HttpResponse<String>> holder = CompletableFuture.supplyAsync(
                () -> send("/orders/takeover", "alice", key, ORDER));
        HttpResponse<String> second;
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> orders.executions("takeover") == 1);
            assertProblem(send("/orders/takeover", "alice", key, ORDER), 409, "idempotency-request-in-progress");
            elapse(OrderController.BRIEF.plusMillis(200));
            second = send("/orders/takeover", "alice", key, ORDER);
        } finally {
            orders.open();
        }
        HttpResponse<String> late = holder.get(30, TimeUnit.SECONDS);
        HttpResponse<String> third = send("/orders/takeover", "alice", key, ORDER);

        assertThat(second.statusCode()).isEqualTo(200);
        assertThat(second.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(late.statusCode()).isEqualTo(200);
        assertThat(third.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(third.body()).as("the taker's answer is kept, not the old holder's").isEqualTo(second.body())
                .isNotEqualTo(late.body());
        assertThat(orders.executions("takeover")).isEqualTo(2);
    }

    // ---------------------------------------------------------------- answers as real handlers give them

    @Test
    void aLinkHeaderLongerThan64KiBIsStoredAndReplayed() {
        String key = newKey();
        HttpResponse<String> first = send("/edge/link", "alice", key, "");
        HttpResponse<String> retry = send("/edge/link", "alice", key, "");
        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.headers().firstValue("Link")).hasValueSatisfying(l -> assertThat(l).hasSizeGreaterThan(70_000));
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(retry.headers().firstValue("Link")).isEqualTo(first.headers().firstValue("Link"));
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(edge.executions("link")).isEqualTo(1);
    }

    @Test
    void aRequestsIdempotencyStateIsOneObjectOnTheRequest() {
        HttpResponse<String> byKey = send("/edge/attributes", "alice", newKey(), "");
        HttpResponse<String> byToken = submit("/edge/attributes-token", "alice", token("alice", null));

        assertThat(byKey.statusCode()).isEqualTo(200);
        assertThat(byKey.body()).isEqualTo("[\"io.onlyonce.spring.web.IdempotentExchange\"]");
        assertThat(byToken.statusCode()).isEqualTo(200);
        assertThat(byToken.body()).isEqualTo("[\"io.onlyonce.spring.web.IdempotentExchange\"]");
    }

    @Test
    void aReplayCarriesTheFirstAnswersHeadersButNotItsCookieNorTheFirstRequestsId() {
        String key = newKey();
        HttpResponse<String> first = http.send(http.post("/edge/headers", "alice", "")
                .header("Idempotency-Key", key).header(TestApplication.REQUEST_ID, "first-request"));
        HttpResponse<String> retry = http.send(http.post("/edge/headers", "alice", "")
                .header("Idempotency-Key", key).header(TestApplication.REQUEST_ID, "retry"));
        HttpResponse<String> generated = send("/edge/headers", "alice", key, "");

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.headers().firstValue("X-Order-Id")).contains("o-1");
        assertThat(first.headers().firstValue("Set-Cookie")).hasValueSatisfying(c -> assertThat(c).startsWith("last-order=o-1"));
        assertThat(first.headers().allValues("Cache-Control")).containsExactly("no-store");
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(retry.headers().firstValue("Set-Cookie")).isEmpty();
        assertThat(headersOf(retry)).as("the first answer's headers, security headers included, none added")
                .isEqualTo(headersOf(first));
        assertThat(retry.headers().allValues(TestApplication.REQUEST_ID)).as("the retry's own request id").containsExactly("retry");
        assertThat(generated.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(generated.headers().allValues(TestApplication.REQUEST_ID)).hasSize(1)
                .doesNotContain("first-request", "retry");
        assertThat(edge.executions("headers")).isEqualTo(1);
    }

    /**
     * The headers of an answer by lower-case name, less those of one message (date, length,
     * connection, cookie), the request's own id and the replay mark.
     */
    private static java.util.Map<String, List<String>> headersOf(HttpResponse<String> response) {
        java.util.Map<String, List<String>> headers = new java.util.TreeMap<>();
        response.headers().map().forEach((name, values) -> headers.put(name.toLowerCase(java.util.Locale.ROOT), values));
        List.of("date", "set-cookie", "content-length", "keep-alive", "connection", "x-request-id", "idempotent-replayed")
                .forEach(headers::remove);
        return headers;
    }

    @Test
    void aResponseLargerThanTheLimitKeepsItsKeyAndIsNeverRunAgain() {
        String key = newKey();
        HttpResponse<String> first = http.send(http.post("/edge/large?bytes=" + (1024 * 1024 + 1), "alice", "")
                .header("Idempotency-Key", key));
        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.body()).hasSize(1024 * 1024 + 1);
        assertThat(record("POST /edge/large", "alice", key)).hasValueSatisfying(r -> {
            assertThat(r.status()).isEqualTo(RecordStatus.COMPLETED);
            assertThat(r.hasResponse()).isFalse();
        });
        HttpResponse<String> retry = http.send(http.post("/edge/large?bytes=" + (1024 * 1024 + 1), "alice", "")
                .header("Idempotency-Key", key));
        assertProblem(retry, 422, "idempotency-response-not-kept");
        assertThat(edge.executions("large")).isEqualTo(1);

        HttpResponse<String> differentRequest = http.send(http.post("/edge/large?bytes=10", "alice", "")
                .header("Idempotency-Key", key));
        assertProblem(differentRequest, 422, "idempotency-key-reused");
    }

    @Test
    void aHeaderNoStoreCanKeepKeepsTheKeyWithoutTheResponse() {
        String key = newKey();
        HttpResponse<String> first = send("/edge/control-header", "alice", key, "");
        HttpResponse<String> retry = send("/edge/control-header", "alice", key, "");
        assertThat(first.statusCode()).isEqualTo(201);
        assertProblem(retry, 422, "idempotency-response-not-kept");
        assertThat(edge.executions("control-header")).isEqualTo(1);
    }

    @Test
    void asynchronousAnswersHoldTheKeyUntilWrittenThenReplay() throws Exception {
        for (String kind : List.of("future", "deferred", "callable")) {
            String key = newKey();
            edge.close();
            CompletableFuture<HttpResponse<String>> first = CompletableFuture.supplyAsync(
                    () -> send("/edge/" + kind, "alice", key, ""));
            try {
                await().atMost(Duration.ofSeconds(10)).until(() -> edge.executions(kind) == 1);
                HttpResponse<String> duplicate = send("/edge/" + kind, "alice", key, "");
                assertProblem(duplicate, 409, "idempotency-request-in-progress");
            } finally {
                edge.open();
            }
            HttpResponse<String> answer = first.get(30, TimeUnit.SECONDS);
            assertThat(answer.statusCode()).as(kind).isIn(200, 201);
            assertThat(json(answer).get("kind").asString()).isEqualTo(kind);
            HttpResponse<String> retry = send("/edge/" + kind, "alice", key, "");
            assertThat(retry.statusCode()).isEqualTo(answer.statusCode());
            assertThat(retry.body()).as(kind).isEqualTo(answer.body());
            assertThat(retry.headers().firstValue("Idempotent-Replayed")).contains("true");
            assertThat(edge.executions(kind)).as(kind).isEqualTo(1);
        }
    }

    @Test
    void aStreamedAnswerReachesTheClientAndItsKeyStaysTaken() {
        String key = newKey();
        HttpResponse<String> first = send("/edge/stream", "alice", key, "");
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.body()).isEqualTo("chunk 0 of run 1\nchunk 1 of run 1\nchunk 2 of run 1\n");
        assertProblem(send("/edge/stream", "alice", key, ""), 422, "idempotency-response-not-kept");
        assertThat(edge.executions("stream")).isEqualTo(1);
    }

    @Test
    void aReplayHonoursAcceptAsAFreshRequestWould() {
        String key = newKey();
        order("alice", key, ORDER);
        HttpResponse<String> xml = http.send(http.post("/orders", "alice", ORDER).header("Idempotency-Key", key)
                .header("Accept", "application/xml"));
        assertThat(xml.statusCode()).isEqualTo(406);
        assertThat(xml.headers().firstValue("Idempotent-Replayed")).isEmpty();
        HttpResponse<String> json = http.send(http.post("/orders", "alice", ORDER).header("Idempotency-Key", key)
                .header("Accept", "application/json, text/plain;q=0.5"));
        assertThat(json.statusCode()).isEqualTo(201);
        assertThat(json.headers().firstValue("Idempotent-Replayed")).contains("true");
        HttpResponse<String> anything = http.send(http.post("/orders", "alice", ORDER).header("Idempotency-Key", key)
                .header("Accept", "*/*"));
        assertThat(anything.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(orders.executions("orders")).isEqualTo(1);
    }

    @Test
    void anAnswerTheClientDoesNotAcceptIs406BeforeTheMethodRunsAndNothingIsKept() {
        double refused = counted("business", "not_acceptable", "POST /orders");
        String key = newKey();
        for (String accept : List.of("text/html", "application/xml", "text/html, application/xhtml+xml;q=0.9")) {
            HttpResponse<String> html = http.send(http.post("/orders", "alice", ORDER).header("Idempotency-Key", key)
                    .header("Accept", accept));
            assertThat(html.statusCode()).as(accept).isEqualTo(406);
        }
        assertThat(orders.executions("orders")).as("refused before the method ran").isZero();
        assertThat(record("POST /orders", "alice", key)).as("nothing claimed, nothing stored").isEmpty();
        assertThat(counted("business", "not_acceptable", "POST /orders")).isEqualTo(refused + 3);

        HttpResponse<String> json = http.send(http.post("/orders", "alice", ORDER).header("Idempotency-Key", key)
                .header("Accept", "application/json"));
        assertThat(json.statusCode()).as("the corrected retry runs").isEqualTo(201);
        HttpResponse<String> again = http.send(http.post("/orders", "alice", ORDER).header("Idempotency-Key", key)
                .header("Accept", "application/json"));
        assertThat(again.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(again.body()).isEqualTo(json.body());
        assertThat(orders.executions("orders")).isEqualTo(1);
    }

    @Test
    void everyAcceptThatAllowsTheAnswersTypeRuns() {
        List<String> accepts = List.of("application/json", "*/*", "application/*", "application/json;charset=UTF-8",
                "text/html;q=1, application/xml;q=0.9, application/json;q=0.1", "text/html, */*;q=0.8");
        for (String accept : accepts) {
            HttpResponse<String> response = http.send(http.post("/orders", "alice", ORDER)
                    .header("Idempotency-Key", newKey()).header("Accept", accept));
            assertThat(response.statusCode()).as(accept).isEqualTo(201);
            assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                    type -> assertThat(type).startsWith("application/json"));
        }
        assertThat(orders.executions("orders")).isEqualTo(accepts.size());
    }

    @Test
    void aHandlerThatProducesTextIsCheckedAgainstWhatItProduces() {
        String key = newKey();
        HttpResponse<String> text = http.send(http.post("/edge/large?bytes=3", "alice", "").header("Idempotency-Key", key)
                .header("Accept", "text/plain"));
        assertThat(text.statusCode()).isEqualTo(201);
        assertThat(text.body()).isEqualTo("1xx");
        HttpResponse<String> json = http.send(http.post("/edge/large?bytes=3", "alice", "").header("Idempotency-Key", newKey())
                .header("Accept", "application/json"));
        assertThat(json.statusCode()).isEqualTo(406);
        assertThat(edge.executions("large")).isEqualTo(1);
    }

    @Test
    void aNotAcceptableSubmissionDoesNotConsumeItsToken() {
        String token = token("alice", "seckill");
        HttpResponse<String> html = http.send(http.post("/seckill", "alice", ORDER).header("Idempotency-Token", token)
                .header("Accept", "text/html"));
        assertThat(html.statusCode()).isEqualTo(406);
        assertThat(orders.executions("seckill")).isZero();
        assertThat(submit("/seckill", "alice", token).statusCode()).as("the token is still unused").isEqualTo(201);
        assertProblem(submit("/seckill", "alice", token), 409, "duplicate-submission");
        assertThat(orders.executions("seckill")).isEqualTo(1);
    }

    @Test
    void anyBusinessValueIsAKeyLongAndNonAsciiOnesAreHashed() {
        for (String businessId : List.of("order-" + "9".repeat(300), "订单-" + newKey(), "with space " + newKey())) {
            String body = "{\"item\":\"phone\",\"quantity\":1,\"businessId\":\"" + businessId + "\"}";
            HttpResponse<String> first = http.send(http.post("/orders/by-business-id", "alice", body));
            HttpResponse<String> again = http.send(http.post("/orders/by-business-id", "alice", body));
            assertThat(first.statusCode()).as(businessId).isEqualTo(201);
            assertThat(again.headers().firstValue("Idempotent-Replayed")).as(businessId).contains("true");
            assertThat(record("POST /orders/by-business-id", "alice", IdempotencyKey.derivedName(businessId)))
                    .as(businessId).isPresent();
        }
        assertThat(orders.executions("by-business-id")).isEqualTo(3);
    }

    // ---------------------------------------------------------------- @Idempotent beyond HTTP

    @Test
    void aServiceMethodRunsOnceForSixtyFourConcurrentCallsAndEveryCallerGetsItsResultOrInProgress() throws Exception {
        String orderNo = "o-" + newKey();
        PaymentService.PaymentEvent event = new PaymentService.PaymentEvent(orderNo, "t-1", new java.math.BigDecimal("42.00"));
        payments.close();
        CompletableFuture<PaymentService.Receipt> first = CompletableFuture.supplyAsync(() -> credit(event));
        List<Object> racing;
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> payments.executions(orderNo) == 1);
            racing = Race.run(64, () -> {
                try {
                    return payments.credit(event);
                } catch (io.onlyonce.spring.IdempotencyRefusedException.InProgress inProgress) {
                    return inProgress;
                }
            });
        } finally {
            payments.open();
        }
        PaymentService.Receipt receipt = first.get(30, TimeUnit.SECONDS);
        assertThat(racing).hasSize(64).allSatisfy(r -> assertThat(r)
                .isInstanceOf(io.onlyonce.spring.IdempotencyRefusedException.InProgress.class));
        List<PaymentService.Receipt> after = Race.run(64, () -> payments.credit(event));
        assertThat(after).allSatisfy(r -> assertThat(r).isEqualTo(receipt));
        assertThat(payments.executions(orderNo)).isEqualTo(1);
        assertThat(receipt.lines()).containsExactly("credit t-1", "run 1");

        PaymentService.PaymentEvent other = new PaymentService.PaymentEvent(orderNo, "t-2", new java.math.BigDecimal("42.00"));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> payments.credit(other))
                .isInstanceOf(io.onlyonce.spring.IdempotencyRefusedException.KeyReused.class);
        assertThat(store.find(new IdempotencyKey("method io.onlyonce.spring.testapp.PaymentService#credit", orderNo + "_paid")))
                .hasValueSatisfying(r -> assertThat(r.status()).isEqualTo(RecordStatus.COMPLETED));
    }

    private PaymentService.Receipt credit(PaymentService.PaymentEvent event) {
        try {
            return payments.credit(event);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aVoidServiceMethodRunsOnce() {
        String orderNo = "o-" + newKey();
        payments.ship(orderNo);
        payments.ship(orderNo);
        assertThat(payments.executions(orderNo + "-ship")).isEqualTo(1);
    }

    // ---------------------------------------------------------------- one-time tokens

    protected HttpResponse<String> issue(String user, String scope) {
        return http.send(http.post("/idempotency/tokens" + (scope == null ? "" : "?scope=" + scope), user, ""));
    }

    protected String token(String user, String scope) {
        HttpResponse<String> response = issue(user, scope);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
        return json(response).get("token").asString();
    }

    protected HttpResponse<String> submit(String path, String user, String token) {
        return http.send(http.post(path, user, ORDER).header("Idempotency-Token", token));
    }

    @Test
    void tokenScopeWithAPathVariableBindsTheTokenToThatResource() {
        String forSeven = token("alice", "activity:7");
        HttpResponse<String> elsewhere = submit("/activities/8/orders", "alice", forSeven);
        assertThat(elsewhere.statusCode()).isEqualTo(403);
        assertThat(elsewhere.body()).contains("idempotency-token-mismatch");
        assertThat(orders.executions("activity-8")).isZero();

        HttpResponse<String> right = submit("/activities/7/orders", "alice", forSeven);
        assertThat(right.statusCode()).as("the refused attempt did not consume the token").isEqualTo(201);
        assertThat(submit("/activities/7/orders", "alice", forSeven).statusCode()).isEqualTo(409);
        assertThat(orders.executions("activity-7")).isEqualTo(1);
    }

    @Test
    void tokenEndpointIssues201WithTokenAndExpiry() {
        Instant now = clock.instant();
        HttpResponse<String> response = issue("alice", "seckill");
        assertThat(response.statusCode()).isEqualTo(201);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("application/json"));
        JsonDoc body = json(response);
        assertThat(body.propertyNames()).containsExactlyInAnyOrder("token", "expiresAt");
        assertThat(body.get("token").asString()).matches("[A-Za-z0-9_-]{98}");
        Instant expiresAt = Instant.parse(body.get("expiresAt").asString());
        assertThat(expiresAt).isBetween(now.plus(Duration.ofMinutes(10)).minusSeconds(1), now.plus(Duration.ofMinutes(10)));

        HttpResponse<String> fromBody = http.send(http.post("/idempotency/tokens", "alice", "{\"scope\":\"seckill\"}"));
        assertThat(fromBody.statusCode()).isEqualTo(201);
        assertThat(submit("/seckill", "alice", json(fromBody).get("token").asString()).statusCode())
                .as("the scope may come in a JSON body").isEqualTo(201);
        assertThat(issue(null, "seckill").statusCode()).isEqualTo(401);
    }

    @Test
    void aTokenIsConsumedOnceAndTheDuplicateCarriesTheFirstResult() {
        double duplicates = counted("business", "duplicate_token", "POST /seckill");
        String token = token("alice", "seckill");
        HttpResponse<String> first = submit("/seckill", "alice", token);
        HttpResponse<String> again = submit("/seckill", "alice", token);

        assertThat(first.statusCode()).isEqualTo(201);
        assertProblem(again, 409, "duplicate-submission");
        JsonDoc problem = json(again);
        assertThat(problem.get("firstStatus").asInt()).as("flat member of the problem").isEqualTo(201);
        assertThat(problem.get("firstResult")).isEqualTo(json(first));
        assertThat(problem.has("properties")).isFalse();
        assertThat(orders.executions("seckill")).isEqualTo(1);
        assertThat(counted("business", "duplicate_token", "POST /seckill")).isEqualTo(duplicates + 1);
        HttpResponse<String> chinese = http.send(http.post("/seckill", "alice", ORDER)
                .header("Idempotency-Token", token).header("Accept-Language", "zh-CN"));
        assertThat(chinese.body()).contains("请勿重复提交");
    }

    @Test
    void fiftyConcurrentSubmissionsOfOneTokenExecuteOnce() throws Exception {
        String token = token("alice", "seckill");
        List<HttpResponse<String>> responses = Race.run(50, () -> submit("/seckill", "alice", token));
        assertThat(orders.executions("seckill")).isEqualTo(1);
        assertThat(responses).filteredOn(r -> r.statusCode() == 201).hasSize(1);
        assertThat(responses).filteredOn(r -> r.statusCode() != 201)
                .hasSize(49)
                .allSatisfy(r -> assertProblem(r, 409, "duplicate-submission"));
    }

    @Test
    void aMissingTokenIs400() {
        assertProblem(http.send(http.post("/seckill", "alice", ORDER)), 400, "idempotency-token-missing");
        assertThat(orders.executions("seckill")).isZero();
    }

    @Test
    void aForgedTokenIs400() {
        String token = token("alice", "seckill");
        char[] chars = token.toCharArray();
        chars[40] = chars[40] == 'A' ? 'B' : 'A';
        assertProblem(submit("/seckill", "alice", new String(chars)), 400, "idempotency-token-invalid");
        assertProblem(submit("/seckill", "alice", "not-a-token"), 400, "idempotency-token-invalid");
        assertThat(orders.executions("seckill")).isZero();
        assertThat(submit("/seckill", "alice", token).statusCode()).as("the genuine token still works").isEqualTo(201);
    }

    @Test
    void aTokenOfAnotherUserIs403AndStaysUsableByItsOwner() {
        String bobs = token("bob", "seckill");
        assertProblem(submit("/seckill", "alice", bobs), 403, "idempotency-token-mismatch");
        assertThat(orders.executions("seckill")).isZero();
        assertThat(submit("/seckill", "bob", bobs).statusCode()).isEqualTo(201);
    }

    @Test
    void aTokenOfAnotherScopeIs403() {
        assertProblem(submit("/seckill", "alice", token("alice", "other")), 403, "idempotency-token-mismatch");
        assertProblem(submit("/seckill", "alice", token("alice", null)), 403, "idempotency-token-mismatch");
        assertThat(orders.executions("seckill")).isZero();
    }

    @Test
    void retryableFailureModeRestoresTheToken() {
        String token = token("alice", "seckill");
        HttpResponse<String> first = submit("/seckill/flaky", "alice", token);
        HttpResponse<String> retry = submit("/seckill/flaky", "alice", token);
        HttpResponse<String> again = submit("/seckill/flaky", "alice", token);
        assertThat(first.statusCode()).isEqualTo(500);
        assertThat(retry.statusCode()).isEqualTo(200);
        assertProblem(again, 409, "duplicate-submission");
        assertThat(json(again).get("firstResult")).isEqualTo(json(retry));
        assertThat(orders.executions("flaky")).isEqualTo(2);
    }

    @Test
    void byDefaultAFailedSubmissionKeepsTheTokenConsumed() {
        String token = token("alice", "seckill");
        HttpResponse<String> first = submit("/seckill/fragile", "alice", token);
        HttpResponse<String> retry = submit("/seckill/fragile", "alice", token);
        assertThat(first.statusCode()).isEqualTo(500);
        assertProblem(retry, 409, "duplicate-submission");
        assertThat(json(retry).has("firstResult")).as("no result to show").isFalse();
        assertThat(orders.executions("fragile")).isEqualTo(1);
        assertThat(submit("/seckill/fragile", "alice", token("alice", "seckill")).statusCode())
                .as("a new token works").isEqualTo(200);
    }
}
