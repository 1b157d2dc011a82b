package io.onlyonce.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.onlyonce.spring.testapp.ItemController;
import io.onlyonce.spring.testapp.OrderController;
import io.onlyonce.testing.MutableClock;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

/** The servlet request de-dup filter (gateway layer) over real HTTP, on the memory window store. */
@SwitchableStoresHttpTest
class RequestDedupHttpTest {


    @LocalServerPort
    int port;

    @Autowired
    OrderController orders;

    @Autowired
    ItemController items;

    @Autowired
    MutableClock clock;

    @Autowired
    MeterRegistry meters;

    Http http;

    @BeforeEach
    void setUp() {
        http = new Http(port);
        orders.reset();
        items.reset();
    }

    @AfterEach
    void tearDown() {
        SwitchableStores.heal();
    }

    static String order(String item) {
        return "{\"item\":\"" + item + "\",\"quantity\":1,\"businessId\":\"b-1\"}";
    }

    static String unique() {
        return UUID.randomUUID().toString();
    }

    HttpResponse<String> postOrder(String path, String body) {
        return http.send(http.post(path, "alice", body).header("Idempotency-Key", unique()));
    }

    double counted(String outcome, String endpoint) {
        Counter counter = meters.find("onlyonce.requests")
                .tags("layer", "gateway", "outcome", outcome, "endpoint", endpoint).counter();
        return counter == null ? 0 : counter.count();
    }

    static void assertDuplicate(HttpResponse<String> response, String retryAfter) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(429);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                t -> assertThat(t).startsWith("application/problem+json"));
        assertThat(response.headers().firstValue("Retry-After")).contains(retryAfter);
        JsonDoc problem = JsonDoc.parse(response.body());
        assertThat(problem.get("type").asString()).isEqualTo("urn:onlyonce:problem:duplicate-request");
        assertThat(problem.get("status").asInt()).isEqualTo(429);
    }

    @Test
    void aSecondIdenticalRequestInTheWindowIs429AndTheMethodRanOnce() {
        double duplicates = counted("window_duplicate", "POST /orders/**");
        String body = order(unique());
        HttpResponse<String> first = postOrder("/orders", body);
        HttpResponse<String> second = postOrder("/orders", body);
        assertThat(first.statusCode()).isEqualTo(201);
        assertDuplicate(second, "2");
        assertThat(orders.executions("orders")).isEqualTo(1);
        assertThat(counted("window_duplicate", "POST /orders/**")).isEqualTo(duplicates + 1);
    }

    @Test
    void aRequestRefusedAsInvalidGivesItsWindowBackSoTheCorrectedOneIsNotADuplicate() {
        double released = counted("window_released", "POST /orders/**");
        String body = order(unique());
        HttpResponse<String> noKey = http.send(http.post("/orders", "alice", body));
        assertThat(noKey.statusCode()).as(noKey.body()).isEqualTo(400);
        HttpResponse<String> corrected = postOrder("/orders", body);
        assertThat(corrected.statusCode()).as(corrected.body()).isEqualTo(201);
        // the request that ran holds the window as before
        assertDuplicate(postOrder("/orders", body), "2");
        assertThat(orders.executions("orders")).isEqualTo(1);
        assertThat(counted("window_released", "POST /orders/**")).isEqualTo(released + 1);
    }

    @Test
    void theWindowEnds() {
        String body = order(unique());
        assertThat(postOrder("/orders", body).statusCode()).isEqualTo(201);
        clock.advance(Duration.ofMillis(1999));
        assertDuplicate(postOrder("/orders", body), "1");
        clock.advance(Duration.ofMillis(1));
        assertThat(postOrder("/orders", body).statusCode()).isEqualTo(201);
        assertThat(orders.executions("orders")).isEqualTo(2);
    }

    @Test
    void ignoredVolatileQueryParametersMakeNoDifference() {
        String body = order(unique());
        assertThat(postOrder("/orders?timestamp=1", body).statusCode()).isEqualTo(201);
        assertDuplicate(postOrder("/orders?timestamp=2", body), "2");
        assertDuplicate(postOrder("/orders?_=99&nonce=x", body), "2");
        assertThat(postOrder("/orders?page=2", body).statusCode()).as("other parameters count").isEqualTo(201);
        assertThat(orders.executions("orders")).isEqualTo(2);
    }

    @Test
    void differentBodiesOrUsersPass() {
        String item = unique();
        assertThat(postOrder("/orders", order(item)).statusCode()).isEqualTo(201);
        assertThat(postOrder("/orders", order(item + "-2")).statusCode()).isEqualTo(201);
        assertThat(http.send(http.post("/orders", "bob", order(item)).header("Idempotency-Key", unique())).statusCode())
                .isEqualTo(201);
        assertThat(orders.executions("orders")).isEqualTo(3);
    }

    @Test
    void withChosenFieldsOnlyThoseFieldsMatter() {
        String sku = unique();
        HttpResponse<String> first = http.send(http.post("/items", "alice", "{\"item\":\"" + sku + "\",\"note\":\"a\"}"));
        HttpResponse<String> otherNote = http.send(http.post("/items", "alice", "{\"note\":\"b\",\"item\":\"" + sku + "\"}"));
        HttpResponse<String> otherItem = http.send(http.post("/items", "alice", "{\"item\":\"" + sku + "-2\",\"note\":\"a\"}"));
        HttpResponse<String> otherUser = http.send(http.post("/items", "bob", "{\"item\":\"" + sku + "\",\"note\":\"a\"}"));
        assertThat(first.statusCode()).isEqualTo(201);
        assertDuplicate(otherNote, "2");
        assertThat(otherItem.statusCode()).isEqualTo(201);
        assertThat(otherUser.statusCode()).isEqualTo(201);
        assertThat(items.executions()).isEqualTo(3);
    }

    HttpResponse<String> postForm(String user, String form) {
        return http.send(http.post("/items/form", user, "").setHeader("Content-Type", "application/x-www-form-urlencoded")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString(form)));
    }

    @Test
    void formPostsKeepTheirParametersAndTheChosenFieldsComeFromThem() {
        String sku = unique();
        HttpResponse<String> first = postForm("alice", "item=" + sku + "&note=a");
        assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
        assertThat(JsonDoc.parse(first.body()).get("item").asString()).as("the handler still reads the form").isEqualTo(sku);
        assertDuplicate(postForm("alice", "note=b&item=" + sku), "2");
        assertThat(postForm("alice", "item=" + sku + "-2&note=a").statusCode()).isEqualTo(201);
        assertThat(items.executions()).isEqualTo(2);
    }

    @Test
    void storeFaultsFailOpenAndAreCounted() {
        double errors = counted("store_error", "POST /orders/**");
        SwitchableStores.WINDOWS_FAILING.set(true);
        String body = order(unique());
        HttpResponse<String> first = postOrder("/orders", body);
        HttpResponse<String> second = postOrder("/orders", body);
        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(second.statusCode()).isEqualTo(201);
        assertThat(orders.executions("orders")).isEqualTo(2);
        assertThat(counted("store_error", "POST /orders/**")).isEqualTo(errors + 2);
    }

    @Test
    void theActuatorEndpointChangesTheWindowAtRunTime() {
        try {
            HttpResponse<String> changed = http.send(http.post("/actuator/onlyonce", null,
                    "{\"pattern\":\"/orders/**\",\"window\":\"10s\"}"));
            assertThat(changed.statusCode()).as(changed.body()).isEqualTo(200);
            assertThat(JsonDoc.parse(changed.body()).get("changed").asBoolean()).isTrue();

            String body = order(unique());
            assertThat(postOrder("/orders", body).statusCode()).isEqualTo(201);
            clock.advance(Duration.ofSeconds(3));
            assertDuplicate(postOrder("/orders", body), "7");
            assertThat(orders.executions("orders")).isEqualTo(1);

            HttpResponse<String> report = http.send(http.get("/actuator/onlyonce"));
            JsonDoc rules = JsonDoc.parse(report.body()).get("configuration").get("dedupRules");
            assertThat(rules.get(0).get("pattern").asString()).isEqualTo("/orders/**");
            assertThat(rules.get(0).get("window").toString()).isIn("\"PT10S\"", "10.0", "10", "10.000000000");
            assertThat(JsonDoc.parse(report.body()).get("byLayer").get("gateway").get("window_duplicate").asLong()).isPositive();

            HttpResponse<String> unknown = http.send(http.post("/actuator/onlyonce", null,
                    "{\"pattern\":\"/nothing/**\",\"window\":\"5s\"}"));
            assertThat(JsonDoc.parse(unknown.body()).get("changed").asBoolean()).isFalse();
            assertThat(http.send(http.post("/actuator/onlyonce", null, "{\"pattern\":\"/orders/**\",\"window\":\"soon\"}"))
                    .statusCode()).isEqualTo(400);
            assertThat(http.send(http.post("/actuator/onlyonce", null, "{\"pattern\":\"/orders/**\",\"window\":\"0s\"}"))
                    .statusCode()).isEqualTo(400);
        } finally {
            http.send(http.post("/actuator/onlyonce", null, "{\"pattern\":\"/orders/**\",\"window\":\"2s\"}"));
        }
    }

    static java.net.http.HttpRequest.BodyPublisher multipart(String boundary, String fileName, byte[] content) {
        String head = "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + fileName
                + "\"\r\nContent-Type: application/octet-stream\r\n\r\n";
        String tail = "\r\n--" + boundary + "--\r\n";
        byte[] all = new byte[head.length() + content.length + tail.length()];
        System.arraycopy(head.getBytes(java.nio.charset.StandardCharsets.US_ASCII), 0, all, 0, head.length());
        System.arraycopy(content, 0, all, head.length(), content.length);
        System.arraycopy(tail.getBytes(java.nio.charset.StandardCharsets.US_ASCII), 0, all, head.length() + content.length, tail.length());
        return java.net.http.HttpRequest.BodyPublishers.ofByteArray(all);
    }

    HttpResponse<String> upload(String boundary, String fileName, byte[] content) {
        return http.send(http.post("/uploads", "alice", "")
                .setHeader("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(multipart(boundary, fileName, content)));
    }

    static byte[] bytes(int length, int seed) {
        byte[] bytes = new byte[length];
        new java.util.Random(seed).nextBytes(bytes);
        return bytes;
    }

    @Test
    void multipartBodiesAreFingerprintedByTheirPartsWhateverTheBoundary() {
        int seed = (int) System.nanoTime();
        byte[] file = bytes(300_000, seed);
        byte[] other = bytes(300_000, seed + 1);
        HttpResponse<String> first = upload("boundary-one", "a.bin", file);
        assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
        assertThat(JsonDoc.parse(first.body()).get("size").asInt()).as("the handler still reads the part").isEqualTo(300_000);
        assertDuplicate(upload("boundary-two", "a.bin", file), "2");
        assertThat(upload("boundary-three", "a.bin", other).statusCode()).as("another file of the same size").isEqualTo(201);
        assertThat(items.executions()).isEqualTo(2);
    }

    HttpResponse<String> raw(byte[] content) {
        return http.send(http.post("/uploads/raw", "alice", "").setHeader("Content-Type", "application/octet-stream")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofByteArray(content)));
    }

    @Test
    void theWholeBodyIsFingerprintedAndHandedOnByteForByte() {
        int seed = (int) System.nanoTime();
        byte[] body = bytes(2 * 1024 * 1024, seed);
        byte[] lastByteDiffers = body.clone();
        lastByteDiffers[lastByteDiffers.length - 1] ^= 1;
        HttpResponse<String> first = raw(body);
        assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
        JsonDoc seen = JsonDoc.parse(first.body());
        assertThat(seen.get("length").asInt()).isEqualTo(body.length);
        assertThat(seen.get("last").asInt()).isEqualTo(body[body.length - 1]);
        assertThat(raw(lastByteDiffers).statusCode()).as("differs only after the first 2 MiB").isEqualTo(201);
        assertDuplicate(raw(body), "2");
        assertThat(items.executions()).isEqualTo(2);
    }

    @Test
    void aBodyTooLargeToFingerprintIs413AndNeverReachesTheHandler() {
        HttpResponse<String> response = raw(bytes(3 * 1024 * 1024 + 1, 7));
        assertThat(response.statusCode()).isEqualTo(413);
        assertThat(JsonDoc.parse(response.body()).get("type").asString())
                .isEqualTo("urn:onlyonce:problem:idempotency-request-too-large");
        assertThat(items.executions()).isZero();
    }
}
