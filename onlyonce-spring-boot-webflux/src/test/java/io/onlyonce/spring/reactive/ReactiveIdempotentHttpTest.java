package io.onlyonce.spring.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.spring.reactive.app.ReactiveOrderController;
import io.onlyonce.spring.reactive.app.ReactiveTestApplication;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.IdempotencyRecord;
import io.onlyonce.store.RecordStatus;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;

/**
 * The HTTP contract of {@code @Idempotent} on WebFlux, on a real Netty server: annotated handlers
 * and a functional route, the problems, per-principal scopes, and the reactive pitfalls (an empty
 * {@code Mono}, an error signal, a client that goes away, a {@code Flux}).
 */
@SpringBootTest(classes = ReactiveTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"spring.main.web-application-type=reactive", "onlyonce.store=memory"})
class ReactiveIdempotentHttpTest {

    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(30)).build();
    private static final String ORDER = "{\"item\":\"book\",\"quantity\":1}";

    @LocalServerPort
    int port;
    @Autowired
    ReactiveTestApplication.Executions executions;
    @Autowired
    ReactiveTestApplication.SwitchableStore store;
    @Autowired
    ReactiveOrderController controller;
    @Autowired
    ReactiveTestApplication.HoldingFilter holding;
    @Autowired
    OnlyOnceWebFilter webFilter;
    @Autowired
    ApplicationContext context;

    @BeforeEach
    void reset() {
        executions.reset();
    }

    @AfterEach
    void storeUp() {
        store.down(false);
        controller.open();
        holding.open();
    }

    @Test
    void theApplicationStaysReactive() {
        // by Spring Framework's types, which both Spring Boot lines share
        assertThat(context.getBeanNamesForType(org.springframework.web.reactive.DispatcherHandler.class)).isNotEmpty();
        assertThat(context).isNotInstanceOf(org.springframework.web.context.WebApplicationContext.class);
    }

    @Test
    void aMonoAnswerRunsOnceAndItsRetryIsAByteExactReplay() {
        String key = newKey();
        HttpResponse<byte[]> first = post("/orders", "alice", key, ORDER);
        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.headers().firstValue("Location")).contains("/orders/1");
        assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
        HttpResponse<byte[]> again = post("/orders", "alice", key, "{ \"quantity\": 1, \"item\": \"book\" }");
        assertThat(again.statusCode()).isEqualTo(201);
        assertThat(again.body()).isEqualTo(first.body());
        assertThat(again.headers().firstValue("Location")).contains("/orders/1");
        assertThat(again.headers().firstValue("Content-Type")).isEqualTo(first.headers().firstValue("Content-Type"));
        assertThat(again.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(executions.of("orders")).isEqualTo(1);
        IdempotencyRecord record = store.find(new IdempotencyKey("POST /orders alice", key)).orElseThrow();
        assertThat(record.status()).isEqualTo(RecordStatus.COMPLETED);
        assertThat(record.response().body()).isEqualTo(first.body());
    }

    @Test
    void aPlainValueIsRecordedToo() {
        String key = newKey();
        HttpResponse<byte[]> first = post("/orders/plain", "alice", key, ORDER);
        HttpResponse<byte[]> again = post("/orders/plain", "alice", key, ORDER);
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(again.body()).isEqualTo(first.body());
        assertThat(again.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(executions.of("plain")).isEqualTo(1);
    }

    /**
     * The business fingerprint of {@code POST /orders/form?channel=app} with the form
     * {@code item=fresh+milk&note=a}: the one Spring MVC computes for it ({@code DigestingRequestFormTest}
     * in onlyonce-spring-boot-webmvc pins the same hex).
     */
    static final String FORM_FINGERPRINT = "a6d350f4cf13276b2c5b436ae3c35fa507ac319e3980f296c062fcdcb792d1cf";

    @Test
    void aFormIsFingerprintedByItsParametersAsOnSpringMvc() {
        String key = newKey();
        HttpResponse<byte[]> first = send(request("/orders/form?channel=app", "alice", key, "item=fresh+milk&note=a")
                .setHeader("Content-Type", "application/x-www-form-urlencoded"));
        assertThat(first.statusCode()).as(text(first)).isEqualTo(200);
        assertThat(text(first)).as("the handler still reads the form").contains("\"item\":\"fresh milk\"");
        assertThat(store.find(new IdempotencyKey("POST /orders/form alice", key)).orElseThrow().fingerprint().hex())
                .isEqualTo(FORM_FINGERPRINT);
        HttpResponse<byte[]> again = send(request("/orders/form?channel=app", "alice", key, "note=a&item=fresh%20milk")
                .setHeader("Content-Type", "application/x-www-form-urlencoded; charset=UTF-8"));
        assertThat(again.statusCode()).as("the same fields in another order and encoding: " + text(again)).isEqualTo(200);
        assertThat(again.headers().firstValue("Idempotent-Replayed")).contains("true");
        HttpResponse<byte[]> other = send(request("/orders/form?channel=app", "alice", key, "item=sour+milk&note=a")
                .setHeader("Content-Type", "application/x-www-form-urlencoded"));
        assertThat(other.statusCode()).as("another value under the same key").isEqualTo(422);
        assertThat(executions.of("form")).isEqualTo(1);
    }

    /**
     * The business fingerprint of {@code POST /orders/upload} with the parts {@code note=first} and the
     * file {@code report.bin} ({@code application/octet-stream}, the bytes of {@code "file content"}):
     * the one Spring MVC computes for it ({@code DigestingRequestMultipartTest} in
     * onlyonce-spring-boot-webmvc pins the same hex), whatever the boundary.
     */
    static final String UPLOAD_FINGERPRINT = "7ecbacef18a93474cc3d0379454c3062a3a4e3aa6f77fcd7ed2b6569c8c25eab";

    private HttpResponse<byte[]> upload(String path, String key, String boundary, String note, byte[] file) {
        return send(request(path, "alice", key, "").setHeader("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.ofByteArray(multipart(boundary, note, file))));
    }

    static byte[] multipart(String boundary, String note, byte[] file) {
        String head = "--" + boundary + "\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\n" + note + "\r\n"
                + "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"report.bin\"\r\n"
                + "Content-Type: application/octet-stream\r\n\r\n";
        byte[] start = head.getBytes(StandardCharsets.UTF_8);
        byte[] end = ("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.US_ASCII);
        byte[] all = java.util.Arrays.copyOf(start, start.length + file.length + end.length);
        System.arraycopy(file, 0, all, start.length, file.length);
        System.arraycopy(end, 0, all, start.length + file.length, end.length);
        return all;
    }

    @Test
    void anUploadIsFingerprintedByItsPartsAsOnSpringMvcAndTheHandlerReadsItsParts() {
        String key = newKey();
        byte[] file = "file content".getBytes(StandardCharsets.UTF_8);
        HttpResponse<byte[]> first = upload("/orders/upload", key, "b1", "first", file);
        assertThat(first.statusCode()).as(text(first)).isEqualTo(201);
        assertThat(text(first)).isEqualTo("{\"run\":1,\"note\":\"first\",\"file\":\"report.bin\",\"size\":12}");
        assertThat(store.find(new IdempotencyKey("POST /orders/upload alice", key)).orElseThrow().fingerprint().hex())
                .isEqualTo(UPLOAD_FINGERPRINT);

        HttpResponse<byte[]> again = upload("/orders/upload", key, "another-boundary", "first", file);
        assertThat(again.statusCode()).as(text(again)).isEqualTo(201);
        assertThat(again.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(again.body()).isEqualTo(first.body());
        assertThat(again.headers().firstValue("Content-Type")).isEqualTo(first.headers().firstValue("Content-Type"));

        assertProblem(upload("/orders/upload", key, "b3", "first", "other content".getBytes(StandardCharsets.UTF_8)), 422,
                "idempotency-key-reused");
        assertProblem(upload("/orders/upload", key, "b4", "second", file), 422, "idempotency-key-reused");
        assertThat(executions.of("upload")).isEqualTo(1);
    }

    @Test
    void aHandlerReadsTheExchangesMultipartDataAfterTheFingerprintTookIt() {
        String key = newKey();
        byte[] file = new byte[300_000];
        new java.util.Random(7).nextBytes(file);
        HttpResponse<byte[]> first = upload("/orders/upload-parts", key, "x1", "first", file);
        assertThat(first.statusCode()).as(text(first)).isEqualTo(200);
        assertThat(text(first)).isEqualTo("run 1: [note, file]");
        HttpResponse<byte[]> again = upload("/orders/upload-parts", key, "x2", "first", file);
        assertThat(again.body()).isEqualTo(first.body());
        assertThat(again.headers().firstValue("Idempotent-Replayed")).contains("true");
        file[file.length - 1] ^= 1;
        assertProblem(upload("/orders/upload-parts", key, "x3", "first", file), 422, "idempotency-key-reused");
        assertThat(executions.of("upload-parts")).isEqualTo(1);
    }

    @Test
    void aFunctionalRouteRunsOnceAndReplays() {
        String key = newKey();
        HttpResponse<byte[]> first = post("/routes/orders", "alice", key, ORDER);
        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(text(first)).isEqualTo("{\"run\":1,\"echo\":" + ORDER + "}");
        HttpResponse<byte[]> again = post("/routes/orders", "alice", key, ORDER);
        assertThat(again.statusCode()).isEqualTo(201);
        assertThat(again.body()).isEqualTo(first.body());
        assertThat(again.headers().firstValue("Location")).contains("/routes/orders/1");
        assertThat(again.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(executions.of("route")).isEqualTo(1);
        assertThat(store.find(new IdempotencyKey("POST /routes/orders alice", key))).isPresent();

        assertProblem(post("/routes/orders", "alice", key, "{\"item\":\"pen\"}"), 422, "idempotency-key-reused");
        assertProblem(post("/routes/orders", "alice", null, ORDER), 400, "idempotency-key-missing");
        assertThat(executions.of("route")).isEqualTo(1);
    }

    @Test
    void noKeyIs400AndNothingRuns() {
        HttpResponse<byte[]> response = post("/orders", "alice", null, ORDER);
        assertProblem(response, 400, "idempotency-key-missing");
        assertThat(text(response)).contains("\"instance\":\"/orders\"");
        assertTitleAndDetail(response, "Idempotency key missing",
                "This operation requires an idempotency key. Send the same key again with every retry of this request.");
        HttpResponse<byte[]> chinese = inChinese(request("/orders", "alice", null, ORDER));
        assertProblem(chinese, 400, "idempotency-key-missing");
        assertTitleAndDetail(chinese, "缺少幂等键", "此操作需要幂等键。重试同一请求时请发送相同的键。");
        assertThat(executions.of("orders")).isZero();
        assertProblem(post("/orders", "alice", "a,b", ORDER), 400, "idempotency-key-invalid");
    }

    @Test
    void aBodyLargerThanTheFingerprintLimitIs413AndNothingIsStored() {
        String key = newKey();
        HttpResponse<byte[]> large = post("/orders", "alice", key, "{\"item\":\"" + "x".repeat(1024 * 1024 + 10) + "\"}");
        assertProblem(large, 413, "idempotency-request-too-large");
        assertThat(executions.of("orders")).isZero();
        assertThat(post("/orders", "alice", key, ORDER).statusCode()).as("nothing was stored under the key").isEqualTo(201);
    }

    @Test
    void aDifferentBodyUnderTheSameKeyIs422InEnglishAndChinese() {
        String key = newKey();
        post("/orders", "alice", key, ORDER);
        HttpResponse<byte[]> english = post("/orders", "alice", key, "{\"item\":\"pen\",\"quantity\":1}");
        assertProblem(english, 422, "idempotency-key-reused");
        HttpResponse<byte[]> chinese = send(request("/orders", "alice", key, "{\"item\":\"pen\",\"quantity\":1}")
                .header("Accept-Language", "zh-CN"));
        assertProblem(chinese, 422, "idempotency-key-reused");
        assertThat(text(chinese)).contains("\"title\":\"幂等键被重复使用\"");
        assertThat(text(english)).doesNotContain("幂等键被重复使用");
        assertThat(executions.of("orders")).isEqualTo(1);
    }

    @Test
    void aRequestInProgressIs409WithRetryAfter() throws Exception {
        String key = newKey();
        CompletableFuture<HttpResponse<byte[]>> first = CompletableFuture.supplyAsync(() -> post("/orders/slow", "alice", key, ORDER));
        await().atMost(Duration.ofSeconds(10)).until(() -> executions.of("slow") == 1);
        HttpResponse<byte[]> duplicate = post("/orders/slow", "alice", key, ORDER);
        assertProblem(duplicate, 409, "idempotency-request-in-progress");
        assertThat(duplicate.headers().firstValue("Retry-After")).hasValueSatisfying(v -> assertThat(Long.parseLong(v)).isPositive());
        assertTitleAndDetail(duplicate, "Request in progress",
                "A request with this idempotency key is still being processed. Retry it after the time given in Retry-After.");
        HttpResponse<byte[]> chinese = inChinese(request("/orders/slow", "alice", key, ORDER));
        assertProblem(chinese, 409, "idempotency-request-in-progress");
        assertThat(chinese.headers().firstValue("Retry-After")).isPresent();
        assertTitleAndDetail(chinese, "请求处理中", "使用该幂等键的请求仍在处理中，请在 Retry-After 指定的时间后重试。");
        controller.open();
        assertThat(first.get().statusCode()).isEqualTo(200);
        assertThat(text(first.get())).isEqualTo("done");
        HttpResponse<byte[]> replay = post("/orders/slow", "alice", key, ORDER);
        assertThat(text(replay)).isEqualTo("done");
        assertThat(replay.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(executions.of("slow")).isEqualTo(1);
    }

    /**
     * A holder 10 s into a 30 s lease, on endpoints that answer in milliseconds, is overdue (stuck, or
     * its client went away after the work started): an annotated handler and a functional route both
     * say when the lease ends, by the store's clock, instead of "retry in a second" for 20 s.
     */
    @Test
    void anOverdueHolderIsAnsweredWithTheTimeItsLeaseHasLeftOnHandlersAndRoutes() {
        for (String path : List.of("/orders", "/routes/orders")) {
            String done = newKey();
            assertThat(post(path, "alice", done, ORDER).statusCode()).isEqualTo(201);
            IdempotencyRecord first = store.find(new IdempotencyKey("POST " + path + " alice", done)).orElseThrow();
            String key = newKey();
            assertThat(store.claim(new IdempotencyKey("POST " + path + " alice", key), first.fingerprint(),
                    Duration.ofSeconds(30))).isInstanceOf(ClaimResult.Claimed.class);
            store.clock().advance(Duration.ofSeconds(10));

            HttpResponse<byte[]> duplicate = post(path, "alice", key, ORDER);
            assertProblem(duplicate, 409, "idempotency-request-in-progress");
            assertThat(duplicate.headers().firstValue("Retry-After")).as(path).hasValue("20");
        }
        assertThat(executions.of("orders")).isEqualTo(1);
        assertThat(executions.of("route")).isEqualTo(1);
    }

    @Test
    void twoUsersWithOneKeyRunTwiceAndNeverSeeTheOthersAnswer() {
        String key = newKey();
        HttpResponse<byte[]> alice = post("/orders", "alice", key, ORDER);
        HttpResponse<byte[]> bob = post("/orders", "bob", key, ORDER);
        assertThat(bob.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(text(alice)).startsWith("{\"run\":1,");
        assertThat(text(bob)).startsWith("{\"run\":2,");
        assertThat(executions.of("orders")).isEqualTo(2);
        assertThat(text(post("/orders", "bob", key, ORDER))).startsWith("{\"run\":2,");
    }

    @Test
    void anEmptyMonoCompletesTheRecordWithAnEmptyAnswerAndNeverRunsTwice() {
        String key = newKey();
        HttpResponse<byte[]> first = post("/orders/empty", "alice", key, ORDER);
        assertThat(first.statusCode()).isEqualTo(202);
        assertThat(first.body()).isEmpty();
        HttpResponse<byte[]> again = post("/orders/empty", "alice", key, ORDER);
        assertThat(again.statusCode()).isEqualTo(202);
        assertThat(again.body()).isEmpty();
        assertThat(again.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(executions.of("empty")).isEqualTo(1);
        IdempotencyRecord record = store.find(new IdempotencyKey("POST /orders/empty alice", key)).orElseThrow();
        assertThat(record.status()).isEqualTo(RecordStatus.COMPLETED);
        assertThat(record.response()).isNotNull();
        assertThat(record.response().body()).isEmpty();
    }

    @Test
    void anErrorSignalReleasesTheKeySoARetryRuns() {
        String key = newKey();
        HttpResponse<byte[]> first = post("/orders/flaky", "alice", key, ORDER);
        assertThat(first.statusCode()).isEqualTo(500);
        assertThat(store.find(new IdempotencyKey("POST /orders/flaky alice", key))).isEmpty();
        HttpResponse<byte[]> retry = post("/orders/flaky", "alice", key, ORDER);
        assertThat(retry.statusCode()).isEqualTo(200);
        assertThat(text(retry)).isEqualTo("second attempt");
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(executions.of("flaky")).isEqualTo(2);
    }

    @Test
    void aClientThatGoesAwayLeavesTheKeyToItsLeaseNeverCompletedWithoutAnAnswer() throws Exception {
        String key = newKey();
        int cancelledBefore = controller.cancelled();
        hangUpOnce("/orders/slow", key, () -> executions.of("slow") == 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> controller.cancelled() == cancelledBefore + 1);
        controller.open();
        Optional<IdempotencyRecord> record = store.find(new IdempotencyKey("POST /orders/slow alice", key));
        assertThat(record).hasValueSatisfying(r -> assertThat(r.status()).isEqualTo(RecordStatus.IN_PROGRESS));
        assertProblem(post("/orders/slow", "alice", key, ORDER), 409, "idempotency-request-in-progress");
        assertThat(executions.of("slow")).isEqualTo(1);
    }

    /**
     * The key is claimed, then a web filter after OnlyOnce's holds the request (a slow step before the
     * handler), and the client goes away: nothing ran, so the key is released and the retry runs at
     * once instead of 409 for the rest of the lease; the abandoned request never reaches the handler.
     */
    @Test
    void aClientThatGoesAwayBeforeTheHandlerBeganFreesItsKeyAndTheRetryRunsAtOnce() throws Exception {
        String key = newKey();
        IdempotencyKey record = new IdempotencyKey("POST /orders/held alice", key);
        int heldBefore = holding.held();
        holding.close();
        try {
            hangUpOnce("/orders/held", key, () -> holding.held() == heldBefore + 1 && store.find(record).isPresent());
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(store.find(record)).as("released").isEmpty());
        } finally {
            holding.open();
        }
        HttpResponse<byte[]> retry = post("/orders/held", "alice", key, ORDER);
        assertThat(retry.statusCode()).as(text(retry)).isEqualTo(200);
        assertThat(text(retry)).isEqualTo("held run 1");
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(executions.of("held")).isEqualTo(1);
    }

    /**
     * A functional route whose client goes away while the key is being claimed: the claim that lands
     * afterwards is released, the route never runs, and the retry runs at once.
     */
    @Test
    void aClientThatGoesAwayWhileTheKeyIsClaimedFreesWhatTheClaimTookAndTheRouteNeverRuns() throws Exception {
        String key = newKey();
        IdempotencyKey record = new IdempotencyKey("POST /routes/orders alice", key);
        Logger logger = (Logger) LoggerFactory.getLogger(HandlerStart.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        ch.qos.logback.classic.Level level = logger.getLevel();
        logger.setLevel(ch.qos.logback.classic.Level.DEBUG);
        store.holdClaims(true);
        try {
            hangUpOnce("/routes/orders", key, () -> store.claimsHeld() == 1);
            // the cancellation reached OnlyOnce while the claim was still waiting
            await().atMost(Duration.ofSeconds(10)).until(() -> appender.list.stream().anyMatch(e -> e.getFormattedMessage()
                    .equals("a request to POST /routes/orders was cancelled while its key was being claimed:"
                            + " a claim it makes is released")));
        } finally {
            store.holdClaims(false);
            store.answerClaims();
            logger.detachAppender(appender);
            logger.setLevel(level);
        }
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(store.find(record)).as("released").isEmpty());
        assertThat(executions.of("route")).isZero();
        HttpResponse<byte[]> retry = post("/routes/orders", "alice", key, ORDER);
        assertThat(retry.statusCode()).as(text(retry)).isEqualTo(201);
        assertThat(executions.of("route")).isEqualTo(1);
    }

    /** Sends a JSON POST of alice with {@code key} on a socket of its own, and closes it once {@code until} holds. */
    private void hangUpOnce(String path, String key, java.util.concurrent.Callable<Boolean> until) throws Exception {
        byte[] body = ORDER.getBytes(StandardCharsets.UTF_8);
        try (Socket socket = new Socket("127.0.0.1", port)) {
            OutputStream out = socket.getOutputStream();
            out.write(("POST " + path + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                    + "Authorization: " + basic("alice") + "\r\nIdempotency-Key: " + key + "\r\nContent-Length: "
                    + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            out.flush();
            await().atMost(Duration.ofSeconds(10)).until(until);
        }
    }

    @Test
    void aFluxIsPassedThroughNotStoredAndStartUpSaysSo() {
        String key = newKey();
        HttpResponse<byte[]> first = post("/orders/stream", "alice", key, ORDER);
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(text(first)).isEqualTo("abc");
        assertProblem(post("/orders/stream", "alice", key, ORDER), 422, "idempotency-response-not-kept");
        assertThat(executions.of("stream")).isEqualTo(1);

        Logger logger = (Logger) LoggerFactory.getLogger(OnlyOnceWebFilter.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        try {
            webFilter.afterSingletonsInstantiated();
        } finally {
            logger.detachAppender(appender);
        }
        List<String> lines = appender.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
        assertThat(lines).containsExactly("OnlyOnce: ReactiveOrderController.stream streams its answer (Flux): its key is"
                + " kept once it ran, but the answer is not stored; a retry with the same key is answered 422"
                + " idempotency-response-not-kept");
    }

    @Test
    void anUnreachableStoreIs503WithRetryAfterAndNothingRuns() {
        store.down(true);
        HttpResponse<byte[]> response = post("/orders", "alice", newKey(), ORDER);
        assertProblem(response, 503, "idempotency-store-unavailable");
        assertThat(response.headers().firstValue("Retry-After")).isPresent();
        assertThat(text(response)).doesNotContain("down for the test");
        assertTitleAndDetail(response, "Service temporarily unavailable", "The request cannot be protected against duplicates"
                + " right now, so it was not processed. Retry it after the time given in Retry-After.");
        HttpResponse<byte[]> chinese = inChinese(request("/orders", "alice", newKey(), ORDER));
        assertProblem(chinese, 503, "idempotency-store-unavailable");
        assertThat(chinese.headers().firstValue("Retry-After")).isPresent();
        assertTitleAndDetail(chinese, "服务暂时不可用", "当前无法对请求进行防重复保护，因此请求未被处理。请在 Retry-After 指定的时间后重试。");
        assertThat(executions.of("orders")).isZero();
    }

    @Test
    void fiftyParallelIdenticalRequestsRunOnce() {
        String key = newKey();
        List<CompletableFuture<HttpResponse<byte[]>>> all = java.util.stream.IntStream.range(0, 50)
                .mapToObj(i -> CLIENT.sendAsync(request("/orders", "alice", key, ORDER).build(),
                        HttpResponse.BodyHandlers.ofByteArray()))
                .toList();
        List<HttpResponse<byte[]>> responses = all.stream().map(CompletableFuture::join).toList();
        assertThat(executions.of("orders")).isEqualTo(1);
        byte[] answer = store.find(new IdempotencyKey("POST /orders alice", key)).orElseThrow().response().body();
        assertInProgressOrReplayed(responses, answer);
    }

    @Test
    void aOneTimeTokenIsConsumedOnceAndItsDuplicateIsToldTheFirstResult() {
        HttpResponse<byte[]> issued = send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                + "/idempotency/tokens?scope=seckill")).header("Authorization", basic("alice"))
                .POST(HttpRequest.BodyPublishers.noBody()));
        assertThat(issued.statusCode()).as(text(issued)).isEqualTo(201);
        assertThat(text(issued)).matches("\\{\"token\":\"[^\"]+\",\"expiresAt\":\"[^\"]+\"}");
        String token = text(issued).replaceAll("^\\{\"token\":\"([^\"]+)\".*$", "$1");

        assertProblem(sendToken("alice", null), 400, "idempotency-token-missing");
        assertProblem(sendToken("alice", "forged"), 400, "idempotency-token-invalid");
        assertProblem(sendToken("bob", token), 403, "idempotency-token-mismatch");
        assertThat(executions.of("seckill")).isZero();

        HttpResponse<byte[]> first = sendToken("alice", token);
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(text(first)).isEqualTo("{\"order\":1}");
        HttpResponse<byte[]> duplicate = sendToken("alice", token);
        assertProblem(duplicate, 409, "duplicate-submission");
        assertThat(text(duplicate)).contains("\"firstStatus\":200").contains("\"firstResult\":{\"order\":1}");
        assertThat(executions.of("seckill")).isEqualTo(1);
    }

    private HttpResponse<byte[]> sendToken(String user, String token) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/seckill"))
                .header("Authorization", basic(user)).POST(HttpRequest.BodyPublishers.noBody());
        return send(token == null ? request : request.header("Idempotency-Token", token));
    }

    /** Each of {@code responses} is 409 in progress or the 201 {@code answer}, byte for byte. */
    static void assertInProgressOrReplayed(List<HttpResponse<byte[]>> responses, byte[] answer) {
        for (HttpResponse<byte[]> response : responses) {
            if (response.statusCode() == 409) {
                assertThat(text(response)).contains("idempotency-request-in-progress");
            } else {
                assertThat(response.statusCode()).isEqualTo(201);
                assertThat(response.body()).isEqualTo(answer);
            }
        }
    }

    static void assertProblem(HttpResponse<byte[]> response, int status, String slug) {
        assertThat(response.statusCode()).as(text(response)).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).contains("application/problem+json");
        assertThat(text(response)).contains("\"type\":\"urn:onlyonce:problem:" + slug + "\"")
                .contains("\"status\":" + status);
    }

    /** The problem's title and detail, exactly as {@code messages*.properties} word them. */
    static void assertTitleAndDetail(HttpResponse<byte[]> response, String title, String detail) {
        assertThat(text(response)).contains("\"title\":\"" + title + "\"").contains("\"detail\":\"" + detail + "\"");
    }

    private HttpResponse<byte[]> inChinese(HttpRequest.Builder request) {
        return send(request.header("Accept-Language", "zh-CN"));
    }

    private HttpResponse<byte[]> post(String path, String user, String key, String json) {
        return send(request(path, user, key, json));
    }

    private HttpRequest.Builder request(String path, String user, String key, String json) {
        return request(port, path, user, key, json);
    }

    /** A JSON POST of {@code user} (HTTP basic) with {@code key}, or no key when it is null. */
    static HttpRequest.Builder request(int port, String path, String user, String key, String json) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json")
                .header("Authorization", basic(user))
                .POST(HttpRequest.BodyPublishers.ofString(json));
        if (key != null) {
            builder.header("Idempotency-Key", key);
        }
        return builder;
    }

    static HttpResponse<byte[]> send(HttpRequest.Builder request) {
        try {
            return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static String basic(String user) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + user + "-pw").getBytes(StandardCharsets.UTF_8));
    }

    static String text(HttpResponse<byte[]> response) {
        return new String(response.body(), StandardCharsets.UTF_8);
    }

    private static String newKey() {
        return UUID.randomUUID().toString();
    }
}
