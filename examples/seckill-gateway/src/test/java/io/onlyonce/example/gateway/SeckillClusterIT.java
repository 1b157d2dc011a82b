package io.onlyonce.example.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.onlyonce.example.gateway.support.JarProcess;
import io.onlyonce.testing.PrivateRedis;
import io.onlyonce.testing.Race;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The service as it scales: two packaged seckill instances (profiles postgres and redis) sharing a
 * PostgreSQL database of this run's own and the shared Redis under a key prefix of this run's own,
 * behind the packaged seckill gateway, all on loopback. The gateway's window is on a private
 * {@code redis-server} that the last tests pause and kill; the instances run with their servlet
 * window off ({@code onlyonce.dedup.enabled=false}), as {@code scripts/run-cluster.sh} starts them.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SeckillClusterIT {

    static final String JWT = "cluster-test-jwt-secret-0123456789abcdef0123";
    static final String PAYMENT_SECRET = "cluster-test-payment-secret-0123456789abcdef";
    static final String PG = System.getenv().getOrDefault("SECKILL_IT_PG_HOST", "127.0.0.1:5432");
    static final String DATABASE = "oo_gwcluster_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    static final String PREFIX = "oo-gwcluster-" + UUID.randomUUID().toString().substring(0, 8) + ":";
    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    static final Pattern TOKENS_SEEN = Pattern.compile(
            "http_server_requests_seconds_count\\{[^}]*uri=\"/api/seckill/activities/\\{activityId}/tokens\"[^}]*} ([0-9.E]+)");

    static PrivateRedis gatewayRedis;
    static final List<JarProcess> PROCESSES = new ArrayList<>();
    static int[] instancePorts;
    static int gatewayPort;
    static int managementPort;

    @BeforeAll
    static void startCluster() throws Exception {
        admin("CREATE DATABASE " + DATABASE);
        gatewayRedis = PrivateRedis.start();
        Map<String, String> secrets = Map.of("SECKILL_JWT_SECRET", JWT,
                "SECKILL_PAYMENT_SECRET", PAYMENT_SECRET,
                "ONLYONCE_TOKEN_SECRET", "cluster-test-token-secret-0123456789abcdef01",
                "PG_URL", "jdbc:postgresql://" + PG + "/" + DATABASE,
                "ONLYONCE_REDIS_PREFIX", PREFIX, "SECKILL_FAST_PATH_PREFIX", PREFIX + "fast:");
        instancePorts = new int[] {JarProcess.freePort(), JarProcess.freePort()};
        for (int i = 0; i < 2; i++) {
            JarProcess instance = JarProcess.of("seckill-" + (i + 1), "../seckill", "512m",
                    List.of("--spring.profiles.active=postgres,redis", "--server.port=" + instancePorts[i],
                            "--server.address=127.0.0.1", "--onlyonce.dedup.enabled=false",
                            "--seckill.auth.password-less-login=true"), secrets);
            PROCESSES.add(instance);
            instance.start("http://127.0.0.1:" + instancePorts[i] + "/actuator/health");
        }
        gatewayPort = JarProcess.freePort();
        managementPort = JarProcess.freePort();
        // a budget of 2 s rather than the configured 250 ms: on a loaded test machine a slow answer must
        // not let a duplicate through (fail open) where the test counts them
        JarProcess gateway = JarProcess.of("gateway", ".", "256m", List.of("--onlyonce.gateway.timeout=2s"),
                Map.of("SECKILL_JWT_SECRET", JWT, "GATEWAY_PORT", Integer.toString(gatewayPort),
                        "GATEWAY_MANAGEMENT_PORT", Integer.toString(managementPort),
                        "REDIS_PORT", Integer.toString(gatewayRedis.port()), "ONLYONCE_REDIS_PREFIX", PREFIX,
                        "SECKILL_INSTANCE_1", "http://127.0.0.1:" + instancePorts[0],
                        "SECKILL_INSTANCE_2", "http://127.0.0.1:" + instancePorts[1]));
        PROCESSES.add(gateway);
        gateway.start("http://127.0.0.1:" + managementPort + "/actuator/health");
        // the first requests of a cold JVM may outlast the window store's budget and pass unchecked
        for (int i = 0; i < 20; i++) {
            send(HttpRequest.newBuilder(api("/api/seckill/activities/999/tokens?warm-up=" + i))
                    .POST(HttpRequest.BodyPublishers.noBody()));
        }
    }

    @AfterAll
    static void stopCluster() throws Exception {
        for (JarProcess process : PROCESSES) {
            process.close();
        }
        if (gatewayRedis != null) {
            gatewayRedis.close();
        }
        admin("DROP DATABASE IF EXISTS " + DATABASE + " WITH (FORCE)");
        try (RedisClient client = RedisClient.create("redis://127.0.0.1:6379");
                StatefulRedisConnection<String, String> connection = client.connect()) {
            List<String> keys = connection.sync().keys(PREFIX + "*");
            if (!keys.isEmpty()) {
                connection.sync().del(keys.toArray(String[]::new));
            }
        }
    }

    @Test
    @Order(1)
    void fiftyIdenticalTokenRequestsThroughTheGatewayReachTheServicesOnce() throws Exception {
        Session alice = login("alice");
        double before = tokenRequestsSeen();
        HttpRequest request = post("/api/seckill/activities/1/tokens", alice, null, Map.of()).build();
        // a window of 10 s for the race: on a loaded machine 50 requests may take longer than 1 s to reach it
        HttpResponse<String> longer = send(HttpRequest.newBuilder(management("/actuator/requestdedup/seckill-tokens"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{\"window\":\"10s\"}")));
        assertThat(longer.body()).contains("\"window\":\"PT10S\"");
        List<HttpResponse<String>> responses;
        try {
            responses = Race.run(50, () -> HTTP.send(request, HttpResponse.BodyHandlers.ofString()));
        } finally {
            send(HttpRequest.newBuilder(management("/actuator/requestdedup/seckill-tokens")).DELETE());
        }

        assertThat(responses).filteredOn(r -> r.statusCode() == 201).hasSize(1);
        assertThat(responses).filteredOn(r -> r.statusCode() == 429).hasSize(49)
                .allSatisfy(r -> assertThat(r.body()).contains("\"type\":\"urn:onlyonce:problem:duplicate-request\""));
        assertThat(tokenRequestsSeen() - before).isEqualTo(1.0);
    }

    @Test
    @Order(2)
    void theWebPageIsServedThroughTheGateway() throws Exception {
        HttpResponse<String> page = send(HttpRequest.newBuilder(api("/")).GET());
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/html"));
        assertThat(page.body()).contains("assets/main.js");
        assertThat(send(HttpRequest.newBuilder(api("/assets/main.js")).GET()).statusCode()).isEqualTo(200);
        assertThat(send(HttpRequest.newBuilder(api("/order.html")).GET()).statusCode()).isEqualTo(200);
    }

    @Test
    @Order(2)
    void theWalkThroughOfTheReadmePassesThroughTheGateway() throws Exception {
        Path output = Path.of("target", "demo-through-gateway.log");
        ProcessBuilder builder = new ProcessBuilder("bash", Path.of("..", "..", "scripts", "demo.sh").toString(),
                "http://127.0.0.1:" + gatewayPort).redirectErrorStream(true).redirectOutput(output.toFile());
        builder.environment().put("SECKILL_PAYMENT_SECRET", PAYMENT_SECRET);
        Process demo = builder.start();
        boolean ended = demo.waitFor(120, TimeUnit.SECONDS);
        if (!ended) {
            demo.destroyForcibly();
        }
        String printed = Files.readString(output);
        assertThat(ended).as("demo.sh ended within 120 s").isTrue();
        assertThat(demo.exitValue()).as(printed).isZero();
        assertThat(printed).contains("the same request again: the same 201, byte for byte, with Idempotent-Replayed: true")
                .containsPattern("all [0-9]+ steps answered as documented");
    }

    @Test
    @Order(2)
    void theGatewaysOwnAnswersAreProblemsInEnglishAndChinese() throws Exception {
        HttpResponse<String> unknown = send(HttpRequest.newBuilder(api("/no-such-page")).GET());
        assertProblem(unknown, 404, "not-found", "Not found");
        assertThat(unknown.body()).contains("\"instance\":\"/no-such-page\"");
        assertProblem(send(HttpRequest.newBuilder(api("/no-such-page")).header("Accept-Language", "zh-CN,zh;q=0.9").GET()),
                404, "not-found", "未找到");

        HttpResponse<String> anonymous = send(HttpRequest.newBuilder(api("/api/orders")).GET());
        assertProblem(anonymous, 401, "unauthorized", "Authentication required");
        assertThat(anonymous.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
        assertSameProblem(anonymous, HttpRequest.newBuilder(instance("/api/orders")).GET());

        HttpRequest.Builder forged = HttpRequest.newBuilder(api("/api/orders")).header("Authorization", "Bearer abc.def.ghi");
        HttpResponse<String> invalid = send(forged);
        assertProblem(invalid, 401, "access-token-invalid", "Access token not valid");
        assertThat(invalid.headers().firstValue("WWW-Authenticate"))
                .hasValue("Bearer error=\"invalid_token\", error_description=\"The access token is not valid\"");
        assertProblem(send(forged.header("Accept-Language", "zh")), 401, "access-token-invalid", "访问令牌无效");
        assertSameProblem(invalid, HttpRequest.newBuilder(instance("/api/orders")).header("Authorization", "Bearer abc.def.ghi"));

        String expiredToken = expiredAccessToken();
        HttpResponse<String> expired = send(HttpRequest.newBuilder(api("/api/orders")).header("Authorization", "Bearer " + expiredToken));
        assertProblem(expired, 401, "access-token-expired", "Access token expired");
        assertThat(expired.headers().firstValue("WWW-Authenticate"))
                .hasValue("Bearer error=\"invalid_token\", error_description=\"The access token expired\"");
        assertProblem(send(HttpRequest.newBuilder(api("/api/orders")).header("Authorization", "Bearer " + expiredToken)
                .header("Accept-Language", "zh")), 401, "access-token-expired", "访问令牌已过期");
        assertSameProblem(expired, HttpRequest.newBuilder(instance("/api/orders")).header("Authorization", "Bearer " + expiredToken));
        // the login and the page read no token: a stale one does not refuse them
        assertThat(send(HttpRequest.newBuilder(api("/")).header("Authorization", "Bearer " + expiredToken)).statusCode()).isEqualTo(200);

        for (String path : List.of("/api/../actuator/health", "/api/orders%2F1", "/api/orders%5C1")) {
            HttpResponse<String> rejected = send(HttpRequest.newBuilder(api(path)).GET());
            assertProblem(rejected, 400, "request-rejected", "Address not allowed");
            assertThat(rejected.body()).doesNotContain("instance");
            assertProblem(send(HttpRequest.newBuilder(api(path)).header("Accept-Language", "zh").GET()), 400, "request-rejected",
                    "地址不被接受");
        }
        assertSameProblem(send(HttpRequest.newBuilder(api("/api/../actuator/health")).GET()),
                HttpRequest.newBuilder(instance("/api/../actuator/health")).GET());

        Session frank = login("frank");
        String oversized = "{\"productId\":2,\"quantity\":1,\"note\":\"" + "x".repeat(16 * 1024) + "\"}";
        HttpResponse<String> tooLarge = send(post("/api/orders", frank, oversized, Map.of("Idempotency-Key", businessId(frank))));
        assertProblem(tooLarge, 413, "payload-too-large", "Request too large");
        assertThat(tooLarge.body()).contains("The request body is larger than the 16384 bytes this service accepts.");
        assertSameProblem(tooLarge, HttpRequest.newBuilder(instance("/api/orders")).header("Authorization", "Bearer " + frank.token())
                .header("Content-Type", "application/json").header("Idempotency-Key", businessId(frank))
                .POST(HttpRequest.BodyPublishers.ofString(oversized)));
        assertProblem(send(post("/api/orders", frank, oversized, Map.of("Idempotency-Key", businessId(frank),
                "Accept-Language", "zh"))), 413, "payload-too-large", "请求过大");
    }

    @Test
    @Order(2)
    void zeroPaddedActivityIdsAreTheSameRequest() throws Exception {
        Session bob = login("bob");
        assertThat(send(post("/api/seckill/activities/1/tokens", bob, null, Map.of())).statusCode()).isEqualTo(201);
        assertThat(send(post("/api/seckill/activities/01/tokens", bob, null, Map.of())).statusCode()).isEqualTo(429);
    }

    @Test
    @Order(3)
    void duplicatesSpreadOverBothInstancesWithTheWindowOffStillMakeOneOrder() throws Exception {
        HttpResponse<String> off = send(HttpRequest.newBuilder(management("/actuator/requestdedup/orders"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{\"enabled\":false}")));
        assertThat(off.body()).contains("\"enabled\":false");
        try {
            Session carol = login("carol");
            String businessId = businessId(carol);
            // ten: the service allows a user ten order requests in ten seconds
            List<HttpResponse<String>> responses = Race.run(10, () -> send(order(carol, businessId)));
            assertThat(responses).noneMatch(r -> r.statusCode() >= 500 || r.body().contains("duplicate-request"));
            assertThat(responses).filteredOn(r -> r.statusCode() == 201).isNotEmpty();
            assertThat(ordersWithBusinessId(businessId)).isEqualTo(1);
        } finally {
            send(HttpRequest.newBuilder(management("/actuator/requestdedup/orders")).DELETE());
        }
    }

    @Test
    @Order(4)
    void aPausedGatewayRedisFailsOpenAndTheLayersBehindStillMakeOneOrder() throws Exception {
        Session dave = login("dave");
        String businessId = businessId(dave);
        gatewayRedis.pause();
        try {
            List<HttpResponse<String>> responses = Race.run(10, () -> send(order(dave, businessId)));
            assertThat(responses).noneMatch(r -> r.statusCode() >= 500 || r.body().contains("duplicate-request"));
        } finally {
            gatewayRedis.resume();
        }
        assertThat(ordersWithBusinessId(businessId)).isEqualTo(1);
    }

    @Test
    @Order(5)
    void aStoppedGatewayRedisFailsOpenAndTheLayersBehindStillMakeOneOrder() throws Exception {
        gatewayRedis.close();
        Session erin = login("erin");
        String businessId = businessId(erin);
        List<HttpResponse<String>> responses = Race.run(10, () -> send(order(erin, businessId)));
        assertThat(responses).noneMatch(r -> r.statusCode() >= 500 || r.body().contains("duplicate-request"));
        assertThat(responses).filteredOn(r -> r.statusCode() == 201).isNotEmpty();
        assertThat(ordersWithBusinessId(businessId)).isEqualTo(1);
        HttpResponse<String> failOpen = send(HttpRequest.newBuilder(management(
                "/actuator/metrics/onlyonce.gateway.requests?tag=route:orders&tag=outcome:fail_open")));
        assertThat(failOpen.statusCode()).isEqualTo(200);
    }

    @Test
    @Order(6)
    void withNoInstanceAnsweringTheGatewaySaysSoAsAProblem() throws Exception {
        Session grace = login("grace");
        for (JarProcess process : PROCESSES.subList(0, 2)) {
            process.close();
        }
        HttpRequest.Builder products = HttpRequest.newBuilder(api("/api/products")).header("Authorization", "Bearer " + grace.token());
        HttpResponse<String> unavailable = send(products);
        assertProblem(unavailable, 503, "service-unavailable", "Service unavailable");
        assertThat(unavailable.body()).contains("No instance of the service answered.").doesNotContain("127.0.0.1");
        assertProblem(send(products.header("Accept-Language", "zh")), 503, "service-unavailable", "服务暂不可用");
    }

    record Session(String token, long userId) {
    }

    private Session login(String name) throws Exception {
        String user = name + "-" + UUID.randomUUID().toString().substring(0, 6);
        HttpResponse<String> response = send(HttpRequest.newBuilder(api("/api/login")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"username\":\"" + user + "\"}")));
        assertThat(response.statusCode()).isEqualTo(200);
        Matcher token = Pattern.compile("\"accessToken\":\"([^\"]+)\"").matcher(response.body());
        Matcher id = Pattern.compile("\"userId\":([0-9]+)").matcher(response.body());
        assertThat(token.find() && id.find()).isTrue();
        return new Session(token.group(1), Long.parseLong(id.group(1)));
    }

    private static String businessId(Session session) {
        return "u" + session.userId() + "_" + System.currentTimeMillis() + "_" + UUID.randomUUID().toString().substring(0, 6);
    }

    private HttpRequest.Builder order(Session session, String businessId) {
        return post("/api/orders", session, "{\"productId\":2,\"quantity\":1}", Map.of("Idempotency-Key", businessId));
    }

    private HttpRequest.Builder post(String path, Session session, String json, Map<String, String> headers) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(api(path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + session.token())
                .POST(json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json));
        if (json != null) {
            builder.header("Content-Type", "application/json");
        }
        headers.forEach(builder::header);
        return builder;
    }

    /** The token requests both instances counted, from their Prometheus scrapes. */
    private static double tokenRequestsSeen() throws Exception {
        double total = 0;
        for (int port : instancePorts) {
            HttpResponse<String> scrape = send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/prometheus")));
            Matcher matcher = TOKENS_SEEN.matcher(scrape.body());
            while (matcher.find()) {
                total += Double.parseDouble(matcher.group(1));
            }
        }
        return total;
    }

    private static long ordersWithBusinessId(String businessId) throws Exception {
        try (Connection connection = DriverManager.getConnection("jdbc:postgresql://" + PG + "/" + DATABASE, "postgres", "");
                PreparedStatement statement = connection.prepareStatement("SELECT count(*) FROM orders WHERE business_id = ?")) {
            statement.setString(1, businessId);
            try (ResultSet rows = statement.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }

    private static void admin(String sql) throws Exception {
        try (Connection connection = DriverManager.getConnection("jdbc:postgresql://" + PG + "/postgres", "postgres", "");
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    private static void assertProblem(HttpResponse<String> response, int status, String type, String title) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(field(response.body(), "type")).isEqualTo("urn:onlyonce:problem:" + type);
        assertThat(field(response.body(), "title")).isEqualTo(title);
        assertThat(response.body()).contains("\"status\":" + status).doesNotContain("Exception").doesNotContain("Jwt");
    }

    /** The gateway answered as an instance answers the same request itself: the same status, type, title and detail. */
    private static void assertSameProblem(HttpResponse<String> fromGateway, HttpRequest.Builder toInstance) throws Exception {
        HttpResponse<String> fromInstance = send(toInstance);
        assertThat(fromGateway.statusCode()).isEqualTo(fromInstance.statusCode());
        for (String name : List.of("type", "title", "detail")) {
            assertThat(field(fromGateway.body(), name)).as(name).isEqualTo(field(fromInstance.body(), name));
        }
    }

    private static String field(String json, String name) {
        Matcher value = Pattern.compile("\"" + name + "\":\"((?:[^\"\\\\]|\\\\.)*)\"").matcher(json);
        assertThat(value.find()).as(name + " in " + json).isTrue();
        return value.group(1);
    }

    /** An access token of the service's secret and issuer whose time ran out an hour ago. */
    private static String expiredAccessToken() throws Exception {
        long now = System.currentTimeMillis() / 1000;
        Base64.Encoder base64 = Base64.getUrlEncoder().withoutPadding();
        String signed = base64.encodeToString("{\"alg\":\"HS256\",\"typ\":\"JWT\"}".getBytes(StandardCharsets.UTF_8)) + "."
                + base64.encodeToString(("{\"sub\":\"1\",\"uid\":1,\"iss\":\"onlyonce-seckill\",\"iat\":" + (now - 7200)
                        + ",\"exp\":" + (now - 3600) + "}").getBytes(StandardCharsets.UTF_8));
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(JWT.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        return signed + "." + base64.encodeToString(mac.doFinal(signed.getBytes(StandardCharsets.US_ASCII)));
    }

    private static URI instance(String path) {
        return URI.create("http://127.0.0.1:" + instancePorts[0] + path);
    }

    private static URI api(String path) {
        return URI.create("http://127.0.0.1:" + gatewayPort + path);
    }

    private static URI management(String path) {
        return URI.create("http://127.0.0.1:" + managementPort + path);
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
