package io.onlyonce.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.onlyonce.gateway.support.Jwts;
import io.onlyonce.gateway.support.StubDownstream;
import io.onlyonce.gateway.support.TestGatewayApplication;
import io.onlyonce.testing.Race;
import java.io.ByteArrayInputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The filter in a running gateway, on the real Redis (127.0.0.1:6379 unless {@code ONLYONCE_REDIS_URI}
 * says otherwise) under a key prefix of this run's own, in front of a stub service that records what
 * it receives.
 */
@SpringBootTest(classes = TestGatewayApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class RequestDedupGatewayIT extends GatewayTestBase {

    static final String REDIS = System.getenv().getOrDefault("ONLYONCE_REDIS_URI", "redis://127.0.0.1:6379");
    static final String DUPLICATE_EN = "{\"type\":\"urn:onlyonce:problem:duplicate-request\",\"title\":\"Duplicate request\","
            + "\"status\":429,\"detail\":\"The same request was received moments ago. Please wait before sending it again.\","
            + "\"instance\":\"%s\"}";

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        gatewayProperties(registry, () -> REDIS, "oo-gw-test-");
    }

    @Value("${test.prefix}")
    String prefix;

    @AfterEach
    void cleanUp() {
        try (RedisClient client = RedisClient.create(REDIS);
                StatefulRedisConnection<String, String> connection = client.connect()) {
            List<String> keys = connection.sync().keys(prefix + "*");
            if (!keys.isEmpty()) {
                connection.sync().del(keys.toArray(String[]::new));
            }
        }
    }

    @Test
    void fiftyIdenticalRequestsAtOnceLetExactlyOneThrough() throws Exception {
        String token = Jwts.forSubject(TestGatewayApplication.JWT_SECRET, "alice");
        // one request of another caller first: the race should meet a warm gateway, not its first request
        send(post("/api/seckill/activities/1/tokens", null, "{}"));
        STUB.clear();
        HttpRequest request = post("/api/seckill/activities/1/tokens", token, "{}").build();
        List<HttpResponse<String>> responses = Race.run(50, () -> HTTP.send(request, HttpResponse.BodyHandlers.ofString()));

        List<HttpResponse<String>> passed = responses.stream().filter(r -> r.statusCode() == 201).toList();
        List<HttpResponse<String>> refused = responses.stream().filter(r -> r.statusCode() == 429).toList();
        assertThat(passed).hasSize(1);
        assertThat(refused).hasSize(49);
        assertThat(STUB.received()).hasSize(1);
        for (HttpResponse<String> response : refused) {
            assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                    type -> assertThat(type).startsWith("application/problem+json"));
            assertThat(response.body()).isEqualTo(DUPLICATE_EN.formatted("/api/seckill/activities/1/tokens"));
            assertThat(Long.parseLong(response.headers().firstValue("Retry-After").orElseThrow())).isBetween(1L, 2L);
        }
        try (RedisClient client = RedisClient.create(REDIS);
                StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisCommands<String, String> redis = connection.sync();
            List<String> keys = redis.keys(prefix + "w:*");
            assertThat(keys).anySatisfy(key -> {
                assertThat(key).matches(java.util.regex.Pattern.quote(prefix) + "w:[0-9a-f]{64}");
                assertThat(redis.get(key)).isEqualTo("50");
                assertThat(redis.pttl(key)).isBetween(1L, 2000L);
            });
        }
    }

    @Test
    void theSameBodyFromTwoUsersPassesForBoth() throws Exception {
        String body = "{\"productId\":7}";
        String bob = Jwts.forSubject(TestGatewayApplication.JWT_SECRET, "bob");
        String carol = Jwts.forSubject(TestGatewayApplication.JWT_SECRET, "carol");
        assertThat(send(post("/api/seckill/activities/2/tokens", bob, body)).statusCode()).isEqualTo(201);
        assertThat(send(post("/api/seckill/activities/2/tokens", carol, body)).statusCode()).isEqualTo(201);
        assertThat(send(post("/api/seckill/activities/2/tokens", carol, body)).statusCode()).isEqualTo(429);
        assertThat(STUB.received()).hasSize(2);
    }

    @Test
    void aHeaderCannotPoseAsTheCaller() throws Exception {
        String body = "{\"n\":" + System.nanoTime() + "}";
        assertThat(send(post("/api/echo/x", null, body).header("X-User", "u1")).statusCode()).isEqualTo(201);
        assertThat(send(post("/api/echo/x", null, body).header("X-User", "u2")).statusCode()).isEqualTo(429);
        String forged = Jwts.forSubject("another-secret-that-the-gateway-does-not-know-0123", "dave");
        assertThat(send(post("/api/echo/x", forged, body)).statusCode()).isEqualTo(401);
        assertThat(STUB.received()).hasSize(1);
    }

    @Test
    void aVolatileParameterDoesNotMakeANewRequest() throws Exception {
        String token = Jwts.forSubject(TestGatewayApplication.JWT_SECRET, "erin");
        assertThat(send(post("/api/seckill/activities/3/tokens?b=2&a=1&timestamp=1", token, "{}")).statusCode())
                .isEqualTo(201);
        HttpResponse<String> again = send(post("/api/seckill/activities/3/tokens?a=1&b=2&timestamp=2&_=9", token, "{}"));
        assertThat(again.statusCode()).isEqualTo(429);
        assertThat(send(post("/api/seckill/activities/3/tokens?a=1&b=3", token, "{}")).statusCode()).isEqualTo(201);
        assertThat(STUB.received()).extracting(StubDownstream.Received::uri)
                .containsExactly("/api/seckill/activities/3/tokens?b=2&a=1&timestamp=1", "/api/seckill/activities/3/tokens?a=1&b=3");
    }

    @Test
    void aNumericPathVariableIsTheSameWithLeadingZeros() throws Exception {
        String token = Jwts.forSubject(TestGatewayApplication.JWT_SECRET, "frank");
        assertThat(send(post("/api/seckill/activities/4/tokens", token, "{}")).statusCode()).isEqualTo(201);
        HttpResponse<String> again = send(post("/api/seckill/activities/004/tokens", token, "{}"));
        assertThat(again.statusCode()).isEqualTo(429);
        assertThat(again.body()).isEqualTo(DUPLICATE_EN.formatted("/api/seckill/activities/004/tokens"));
        assertThat(STUB.received()).hasSize(1);
    }

    @Test
    void namedFieldsDecideAndOtherFieldsDoNot() throws Exception {
        String token = Jwts.forSubject(TestGatewayApplication.JWT_SECRET, "grace");
        String id = "u42_1764500000000_abc123";
        assertThat(send(post("/api/orders", token, "{\"productId\":9,\"note\":\"a\"}").header("Idempotency-Key", id))
                .statusCode()).isEqualTo(201);
        assertThat(send(post("/api/orders", token, "{\"note\":\"b\",\"productId\":9}")
                .header("Idempotency-Key", "u42_1764500000001_abc124")).statusCode()).isEqualTo(429);
        assertThat(send(post("/api/orders", token, "{\"productId\":10}").header("Idempotency-Key", id)).statusCode())
                .isEqualTo(201);
        assertThat(STUB.received()).hasSize(2);
    }

    @Test
    void aRetryWithTheKeyThatOpenedTheWindowReachesTheServiceAndAnotherKeyOrNoneDoesNot() throws Exception {
        String token = Jwts.forSubject(TestGatewayApplication.JWT_SECRET, "kate");
        double retriesBefore = count("echo", "keyed_retry");
        String body = "{\"n\":\"" + UUID.randomUUID() + "\"}";
        assertThat(send(post("/api/echo/keyed", token, body).header("Idempotency-Key", "k-1")).statusCode()).isEqualTo(201);
        // the same key, as an RFC 8941 string this time: the service reads it as the same key
        assertThat(send(post("/api/echo/keyed", token, body).header("Idempotency-Key", "\"k-1\"")).statusCode()).isEqualTo(201);
        HttpResponse<String> otherKey = send(post("/api/echo/keyed", token, body).header("Idempotency-Key", "k-2"));
        HttpResponse<String> noKey = send(post("/api/echo/keyed", token, body));
        // another caller's request with this key is not this client's retry
        String mallory = Jwts.forSubject(TestGatewayApplication.JWT_SECRET, "mallory");
        assertThat(send(post("/api/echo/keyed", mallory, body).header("Idempotency-Key", "k-1")).statusCode()).isEqualTo(201);
        assertThat(send(post("/api/echo/keyed", mallory, body).header("Idempotency-Key", "k-1")).statusCode()).isEqualTo(201);
        assertThat(send(post("/api/echo/keyed", mallory, body).header("Idempotency-Key", "k-3")).statusCode()).isEqualTo(429);

        assertThat(otherKey.statusCode()).isEqualTo(429);
        assertThat(otherKey.body()).isEqualTo(DUPLICATE_EN.formatted("/api/echo/keyed"));
        assertThat(noKey.statusCode()).isEqualTo(429);
        assertThat(STUB.received()).hasSize(4);
        assertThat(count("echo", "keyed_retry") - retriesBefore).isEqualTo(2.0);
        try (RedisClient client = RedisClient.create(REDIS);
                StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisCommands<String, String> redis = connection.sync();
            List<String> windows = redis.keys(prefix + "w:*");
            assertThat(windows).hasSize(2);
            // one window per caller, each opened with its caller's key: kate's counted the other key and
            // the request without one, mallory's the other key
            List<String> values = windows.stream().map(redis::get).sorted().toList();
            assertThat(values.get(0)).matches("2:[0-9a-f]{32}");
            assertThat(values.get(1)).matches("3:[0-9a-f]{32}");
            assertThat(values.get(0).substring(2)).isNotEqualTo(values.get(1).substring(2));
            assertThat(windows).allSatisfy(key -> assertThat(redis.pttl(key)).isBetween(1L, 2000L));
        }
    }

    @Test
    void aServiceSharingThePrefixCountsAKeyedWindowAsItsOwn() throws Exception {
        String token = Jwts.forSubject(TestGatewayApplication.JWT_SECRET, "leo");
        String body = "{\"n\":\"" + UUID.randomUUID() + "\"}";
        assertThat(send(post("/api/echo/shared", token, body).header("Idempotency-Key", "k-9")).statusCode()).isEqualTo(201);
        try (RedisClient client = RedisClient.create(REDIS);
                StatefulRedisConnection<byte[], byte[]> bytes = client.connect(io.lettuce.core.codec.ByteArrayCodec.INSTANCE);
                StatefulRedisConnection<String, String> connection = client.connect()) {
            String key = connection.sync().keys(prefix + "w:*").get(0);
            String opened = connection.sync().get(key);
            io.onlyonce.redis.RedisWindowStore service = io.onlyonce.redis.RedisWindowStore.standalone(bytes,
                    new io.onlyonce.redis.RedisStoreConfig(prefix, 256));
            io.onlyonce.Fingerprint fingerprint = io.onlyonce.Fingerprint.ofHex(key.substring((prefix + "w:").length()));

            io.onlyonce.window.WindowHit hit = service.hit(fingerprint, java.time.Duration.ofSeconds(30));
            assertThat(hit.count()).isEqualTo(2);
            assertThat(hit.remaining()).isLessThanOrEqualTo(java.time.Duration.ofSeconds(2));
            assertThat(connection.sync().get(key)).isEqualTo("2" + opened.substring(1));
            service.release(fingerprint);
            assertThat(connection.sync().get(key)).isEqualTo(opened);
            assertThat(connection.sync().pttl(key)).isBetween(1L, 2000L);
            // the gateway still knows the opener after the service's hit and release
            assertThat(send(post("/api/echo/shared", token, body).header("Idempotency-Key", "k-9")).statusCode()).isEqualTo(201);
            service.release(fingerprint);
            assertThat(connection.sync().exists(key)).isZero();
        }
    }

    @Test
    void aMalformedBusinessIdIsRefusedAtTheEdge() throws Exception {
        String token = Jwts.forSubject(TestGatewayApplication.JWT_SECRET, "heidi");
        HttpResponse<String> missing = send(post("/api/orders", token, "{\"productId\":1}"));
        HttpResponse<String> malformed = send(post("/api/orders", token, "{\"productId\":1}")
                .header("Idempotency-Key", "u1_123_abc").header("Accept-Language", "zh-CN,zh;q=0.9"));
        assertThat(missing.statusCode()).isEqualTo(400);
        assertThat(missing.body()).isEqualTo("{\"type\":\"urn:onlyonce:problem:business-id-invalid\","
                + "\"title\":\"Invalid business id\",\"status\":400,"
                + "\"detail\":\"The request's business id is missing or not in the expected format.\",\"instance\":\"/api/orders\"}");
        assertThat(malformed.statusCode()).isEqualTo(400);
        assertThat(malformed.body()).isEqualTo("{\"type\":\"urn:onlyonce:problem:business-id-invalid\","
                + "\"title\":\"业务单号无效\",\"status\":400,\"detail\":\"请求缺少业务单号，或业务单号格式不正确。\",\"instance\":\"/api/orders\"}");
        assertThat(STUB.received()).isEmpty();
    }

    @Test
    void aDuplicateIsToldInChineseWhenTheClientPrefersIt() throws Exception {
        String token = Jwts.forSubject(TestGatewayApplication.JWT_SECRET, "ivan");
        send(post("/api/seckill/activities/5/tokens", token, "{}"));
        HttpResponse<String> again = send(post("/api/seckill/activities/5/tokens", token, "{}").header("Accept-Language", "zh"));
        assertThat(again.statusCode()).isEqualTo(429);
        assertThat(again.body()).isEqualTo("{\"type\":\"urn:onlyonce:problem:duplicate-request\",\"title\":\"重复请求\","
                + "\"status\":429,\"detail\":\"刚刚已收到相同的请求，请稍后再试。\",\"instance\":\"/api/seckill/activities/5/tokens\"}");
    }

    @Test
    void bodiesReachTheServiceByteForByte() throws Exception {
        byte[] json = "{ \"z\": 1,\n  \"a\": [\"\\u00e9\", 2.50] }".getBytes(StandardCharsets.UTF_8);
        byte[] large = new byte[1_000_000];
        new Random(1).nextBytes(large);
        byte[] binary = new byte[256];
        for (int i = 0; i < binary.length; i++) {
            binary[i] = (byte) i;
        }
        for (byte[] body : List.of(json, large, binary)) {
            HttpResponse<String> response = send(HttpRequest.newBuilder(uri("/api/echo/bytes"))
                    .header("Content-Type", "application/octet-stream").POST(HttpRequest.BodyPublishers.ofByteArray(body)));
            assertThat(response.statusCode()).isEqualTo(201);
        }
        // chunked: no Content-Length
        HttpResponse<String> chunked = send(HttpRequest.newBuilder(uri("/api/echo/chunked"))
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(large))));
        assertThat(chunked.statusCode()).isEqualTo(201);
        assertThat(STUB.received()).extracting(StubDownstream.Received::body).containsExactly(json, large, binary, large);
    }

    @Test
    void aBodyOverTheLimitIsRefusedWith413() throws Exception {
        byte[] tooLarge = new byte[1024 * 1024 + 1];
        HttpResponse<String> declared = send(HttpRequest.newBuilder(uri("/api/echo/large"))
                .POST(HttpRequest.BodyPublishers.ofByteArray(tooLarge)));
        HttpResponse<String> chunked = send(HttpRequest.newBuilder(uri("/api/echo/large"))
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(tooLarge))));
        String problem = "{\"type\":\"urn:onlyonce:problem:payload-too-large\",\"title\":\"Request too large\","
                + "\"status\":413,\"detail\":\"The request body is larger than the 1048576 bytes this service accepts.\","
                + "\"instance\":\"/api/echo/large\"}";
        assertThat(declared.statusCode()).isEqualTo(413);
        assertThat(declared.body()).isEqualTo(problem);
        assertThat(chunked.statusCode()).isEqualTo(413);
        assertThat(chunked.body()).isEqualTo(problem);
        assertThat(declared.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        // the first of English and Chinese the client names
        HttpResponse<String> chinese = send(HttpRequest.newBuilder(uri("/api/echo/large")).header("Accept-Language", "fr, zh;q=0.5")
                .POST(HttpRequest.BodyPublishers.ofByteArray(tooLarge)));
        assertThat(chinese.body()).isEqualTo("{\"type\":\"urn:onlyonce:problem:payload-too-large\",\"title\":\"请求过大\","
                + "\"status\":413,\"detail\":\"请求体超过了本服务接受的 1048576 字节。\",\"instance\":\"/api/echo/large\"}");
        assertThat(STUB.received()).isEmpty();
    }

    @Test
    void theWindowChangesAtRunTimeForTheNextRequest() throws Exception {
        HttpResponse<String> changed = send(HttpRequest.newBuilder(uri("/actuator/requestdedup/echo"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"window\":\"30s\"}")));
        assertThat(changed.statusCode()).isEqualTo(200);
        assertThat(changed.body()).contains("\"window\":\"PT30S\"");
        try {
            String body = "{\"n\":\"" + UUID.randomUUID() + "\"}";
            assertThat(send(post("/api/echo/window", null, body)).statusCode()).isEqualTo(201);
            HttpResponse<String> again = send(post("/api/echo/window", null, body));
            assertThat(again.statusCode()).isEqualTo(429);
            assertThat(Long.parseLong(again.headers().firstValue("Retry-After").orElseThrow())).isBetween(3L, 30L);
        } finally {
            HttpResponse<String> reset = send(HttpRequest.newBuilder(uri("/actuator/requestdedup/echo")).DELETE());
            assertThat(reset.body()).contains("\"window\":\"PT2S\"");
        }
    }

    @Test
    void countsPerRoute() throws Exception {
        String token = Jwts.forSubject(TestGatewayApplication.JWT_SECRET, "judy");
        send(post("/api/seckill/activities/6/tokens", token, "{}"));
        send(post("/api/seckill/activities/6/tokens", token, "{}"));
        HttpResponse<String> duplicates = send(HttpRequest.newBuilder(
                uri("/actuator/metrics/onlyonce.gateway.requests?tag=route:tokens&tag=outcome:duplicate")).GET());
        assertThat(duplicates.statusCode()).isEqualTo(200);
        HttpResponse<String> latency = send(HttpRequest.newBuilder(
                uri("/actuator/metrics/onlyonce.gateway.store.calls?tag=route:tokens&tag=result:ok")).GET());
        assertThat(latency.statusCode()).isEqualTo(200);
        assertThat(latency.body()).contains("\"statistic\":\"COUNT\"");
    }

    /** The counter {@code onlyonce.gateway.requests} of a route and outcome, 0 before its first count. */
    private double count(String route, String outcome) throws Exception {
        HttpResponse<String> metric = send(HttpRequest.newBuilder(uri("/actuator/metrics/onlyonce.gateway.requests?tag=route:"
                + route + "&tag=outcome:" + outcome)).GET());
        if (metric.statusCode() == 404) {
            return 0;
        }
        java.util.regex.Matcher value = java.util.regex.Pattern.compile("\"statistic\":\"COUNT\",\"value\":([0-9.]+)")
                .matcher(metric.body());
        assertThat(value.find()).isTrue();
        return Double.parseDouble(value.group(1));
    }

    private HttpRequest.Builder post(String path, String token, String json) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri(path)).timeout(ANSWER_WITHIN).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json));
        return token == null ? builder : builder.header("Authorization", "Bearer " + token);
    }
}
