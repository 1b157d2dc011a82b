package io.onlyonce.example.seckill.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.onlyonce.example.seckill.SeckillApplication;
import io.onlyonce.example.seckill.demo.InsecureConfigurationException;
import io.onlyonce.example.seckill.demo.SecretsGuard;
import io.onlyonce.example.seckill.support.Api.Response;
import io.onlyonce.example.seckill.support.Api.Session;
import io.onlyonce.example.seckill.support.Api;
import io.onlyonce.example.seckill.support.Concurrently;
import io.onlyonce.example.seckill.support.Jwts;
import io.onlyonce.example.seckill.support.RawHttp;
import io.onlyonce.example.seckill.support.Rows;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.annotation.DirtiesContext;
import tools.jackson.databind.JsonNode;

/**
 * The safety rules as a user meets them over real HTTP, on each database and store (the
 * subclasses choose them): forged access tokens, the per-user rates and caps under 50 concurrent
 * requests, tokens only for a running sale with stock, a request window that cannot be bypassed by
 * rewriting the request, strict JSON, malformed HTTP answered as problems, start-up refused with
 * forgeable secrets outside demo mode, and the README's walk-through ({@code scripts/demo.sh}) twice
 * in a row. The service runs on the real clock here (the walk-through waits for the 1 s window);
 * rates are counted in 1-minute windows so that none ends during a test, and every test uses users
 * of its own.
 */
@SpringBootTest(classes = SeckillApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"seckill.order.sweeper-enabled=false", "seckill.limits.window=1m",
            "logging.level.io.onlyonce.example.seckill.order.LoggingOrderEvents=WARN",
            // the request window on the normalised purchase (seckill/DedupKeyFilter), as application.yml has it
            "onlyonce.dedup.rules[0].pattern=/api/seckill/**", "onlyonce.dedup.rules[0].methods[0]=POST",
            "onlyonce.dedup.rules[0].window=1s", "onlyonce.dedup.rules[0].fields[0]=principal",
            "onlyonce.dedup.rules[0].fields[1]=header:X-Seckill-Dedup-Key"})
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
public abstract class AbstractSafetyScenarios {

    protected static final int THREADS = 50;
    /** The defaults of application.yml, which these tests run with. */
    static final int TOKEN_REQUESTS = 5;
    static final int ORDER_REQUESTS = 10;
    static final int MAX_UNPAID = 3;
    static final int MAX_UNITS_PER_PRODUCT = 20;

    @LocalServerPort
    int port;

    @Autowired
    protected JdbcClient jdbc;

    @Autowired
    Clock clock;

    @Value("${seckill.auth.jwt-secret}")
    String jwtSecret;

    @Value("${seckill.payment.secret}")
    String paymentSecret;

    @Value("${seckill.demo.enabled}")
    boolean demoMode;

    protected Api api;
    protected Rows rows;
    protected RawHttp raw;
    private final String run = Long.toString(System.nanoTime() % 1_000_000, 36);

    @BeforeEach
    void connect() {
        api = new Api(port);
        rows = new Rows(jdbc, clock);
        raw = new RawHttp(port);
    }

    /** Profiles of a start outside demo mode with this class's database and store. */
    protected abstract List<String> nonDemoStart();

    /** Environment for {@code scripts/demo.sh} against this service (the payment secret outside demo mode). */
    protected Map<String, String> demoScriptEnvironment() {
        return Map.of();
    }

    protected String user(String prefix) {
        return prefix + "-" + run + "-" + UUID.randomUUID().toString().substring(0, 6);
    }

    /** Lets the 1 s request window pass (real time: the service runs on the real clock here). */
    protected static void nextWindow() {
        try {
            Thread.sleep(1_100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static Map<String, Long> byAnswer(List<Response> responses) {
        Map<String, Long> counts = new HashMap<>();
        responses.forEach(r -> counts.merge(r.status() + " " + r.problem(), 1L, Long::sum));
        return counts;
    }

    private static void assertRetryAfter(List<Response> responses) {
        responses.stream().filter(r -> r.status() == 429).forEach(r -> {
            assertThat(r.header("Content-Type")).startsWith("application/problem+json");
            assertThat(Long.parseLong(r.header("Retry-After"))).as(r.toString()).isBetween(1L, 60L);
        });
    }

    // ---------------------------------------------------------------- access tokens

    @Test
    void forgedAccessTokensAreAnswered401AndChangeNothing() {
        Session alice = api.login(user("jwt"));
        long product = rows.createProduct("5.00", 100);
        long exp = Instant.now().plus(Duration.ofHours(1)).getEpochSecond();
        Map<String, Object> valid = Map.of("iss", "onlyonce-seckill", "sub", alice.username(), "uid", alice.userId(),
                "exp", exp);
        long ordersBefore = rows.count("SELECT COUNT(*) FROM orders");

        Response control = api.get("/api/orders", new Session(Jwts.sign(jwtSecret, valid), alice.userId(), alice.username()));
        assertThat(control.status()).as("a well-formed token of the same secret is accepted").isEqualTo(200);

        Map<String, Map<String, Object>> forged = new java.util.LinkedHashMap<>();
        forged.put("no exp", without(valid, "exp"));
        forged.put("no sub", without(valid, "sub"));
        forged.put("blank sub", with(valid, "sub", " "));
        forged.put("negative uid", with(valid, "uid", -5L));
        forged.put("uid 0", with(valid, "uid", 0L));
        forged.put("no uid", without(valid, "uid"));
        forged.put("uid as text", with(valid, "uid", Long.toString(alice.userId())));
        forged.put("uid not an integer", with(valid, "uid", alice.userId() + 0.5));
        forged.put("uid of nobody", with(valid, "uid", 987_654_321_987L));
        forged.put("sub of another user", with(valid, "sub", "somebody-else"));
        forged.put("expired", with(valid, "exp", Instant.now().minus(Duration.ofHours(1)).getEpochSecond()));
        forged.put("other issuer", with(valid, "iss", "evil"));
        for (Map.Entry<String, Map<String, Object>> entry : forged.entrySet()) {
            Session session = new Session(Jwts.sign(jwtSecret, entry.getValue()), -5, "x");
            Response list = api.get("/api/orders", session);
            Response order = api.post("/api/orders", session, "{\"productId\":" + product + ",\"quantity\":1}",
                    "Idempotency-Key", "u5_" + System.currentTimeMillis() + "_abcdef");
            boolean expired = entry.getKey().equals("expired");
            for (Response response : List.of(list, order)) {
                assertThat(response.status()).as(entry.getKey() + ": " + response).isEqualTo(401);
                assertThat(response.problem()).as(entry.getKey())
                        .isEqualTo(expired ? "access-token-expired" : "access-token-invalid");
                assertThat(response.header("WWW-Authenticate")).as(entry.getKey()).isEqualTo(expired
                        ? "Bearer error=\"invalid_token\", error_description=\"The access token expired\""
                        : "Bearer error=\"invalid_token\", error_description=\"The access token is not valid\"");
            }
        }
        Response none = api.get("/api/orders", null);
        assertThat(none.problem()).isEqualTo("unauthorized");
        assertThat(none.header("WWW-Authenticate")).isEqualTo("Bearer");
        assertThat(rows.count("SELECT COUNT(*) FROM orders")).isEqualTo(ordersBefore);
    }

    private static Map<String, Object> with(Map<String, Object> claims, String name, Object value) {
        Map<String, Object> changed = new HashMap<>(claims);
        changed.put(name, value);
        return changed;
    }

    private static Map<String, Object> without(Map<String, Object> claims, String name) {
        Map<String, Object> changed = new HashMap<>(claims);
        changed.remove(name);
        return changed;
    }

    // ---------------------------------------------------------------- rates and caps

    @Test
    void tokenRequestsOfOneUserAreRateLimitedUnderFiftyConcurrentRequests() throws Exception {
        Session hoarder = api.login(user("tokens"));
        long product = rows.createProduct("9.00", 0);
        // one sale per request, so the request window (one per user and sale) lets every one through to the rate
        List<Long> sales = IntStream.range(0, THREADS).mapToObj(i -> rows.createActivity(product, "1.00", 5)).toList();

        List<Response> answers = Concurrently.map(THREADS, sales,
                a -> api.post("/api/seckill/activities/" + a + "/tokens", hoarder, null));

        assertThat(byAnswer(answers)).as(answers.toString())
                .isEqualTo(Map.of("201 ", (long) TOKEN_REQUESTS, "429 too-many-requests", (long) THREADS - TOKEN_REQUESTS));
        assertRetryAfter(answers);
        Session other = api.login(user("tokens-other"));
        assertThat(api.post("/api/seckill/activities/" + sales.get(0) + "/tokens", other, null).status())
                .as("the limit is per user").isEqualTo(201);
    }

    @Test
    void orderRequestsOfOneUserAreRateLimitedAndUnpaidOrdersCappedUnderFiftyConcurrentRequests() throws Exception {
        Session buyer = api.login(user("orders"));
        long product = rows.createProduct("2.00", 1000);

        List<Response> answers = Concurrently.times(THREADS, () -> api.order(buyer, Api.businessId(buyer), product, 1));

        assertThat(byAnswer(answers)).as(answers.toString()).isEqualTo(Map.of(
                "201 ", (long) MAX_UNPAID,
                "409 unpaid-order-limit", (long) ORDER_REQUESTS - MAX_UNPAID,
                "429 too-many-requests", (long) THREADS - ORDER_REQUESTS));
        assertRetryAfter(answers);
        assertThat(rows.count("SELECT COUNT(*) FROM orders WHERE user_id = ?", buyer.userId())).isEqualTo(MAX_UNPAID);
        assertThat(rows.productStock(product)).isEqualTo(1000 - MAX_UNPAID);

        // a paid or cancelled order frees its place
        Session second = api.login(user("orders-again"));
        List<String> placed = new ArrayList<>();
        for (int i = 0; i < MAX_UNPAID; i++) {
            placed.add(api.order(second, Api.businessId(second), product, 1).text("orderNo"));
        }
        Response fourth = api.order(second, Api.businessId(second), product, 1);
        assertThat(fourth.status()).isEqualTo(409);
        assertThat(fourth.problem()).isEqualTo("unpaid-order-limit");
        assertThat(fourth.json().path("limit").asInt()).isEqualTo(MAX_UNPAID);
        assertThat(api.post("/api/orders/" + placed.get(0) + "/cancel", second, null).status()).isEqualTo(200);
        assertThat(api.order(second, Api.businessId(second), product, 1).status()).isEqualTo(201);
        assertThat(rows.count("SELECT COUNT(*) FROM orders WHERE user_id = ? AND status = 'UNPAID'", second.userId()))
                .isEqualTo(MAX_UNPAID);
    }

    @Test
    void unitsOfOneProductAndOfOneFlashSaleAreCappedUnderConcurrentRequests() throws Exception {
        Session buyer = api.login(user("units"));
        long product = rows.createProduct("3.00", 1000);

        List<Response> answers = Concurrently.times(THREADS, () -> api.order(buyer, Api.businessId(buyer), product, 10));

        assertThat(byAnswer(answers)).as(answers.toString()).isEqualTo(Map.of(
                "201 ", (long) MAX_UNITS_PER_PRODUCT / 10,
                "409 purchase-limit", (long) ORDER_REQUESTS - MAX_UNITS_PER_PRODUCT / 10,
                "429 too-many-requests", (long) THREADS - ORDER_REQUESTS));
        assertThat(rows.count("SELECT COALESCE(SUM(quantity), 0) FROM orders WHERE user_id = ? AND product_id = ?",
                buyer.userId(), product)).isEqualTo(MAX_UNITS_PER_PRODUCT);
        assertThat(rows.productStock(product)).isEqualTo(1000 - MAX_UNITS_PER_PRODUCT);

        // a flash sale of two products: one unit per user in all, even when both are ordered at once
        Session rusher = api.login(user("units-sale"));
        long first = rows.createProduct("100.00", 0);
        long second = rows.createProduct("100.00", 0);
        long sale = rows.createActivity(first, "10.00", 5);
        jdbc.sql("INSERT INTO seckill_stock (activity_id, product_id, price, initial_stock, stock) VALUES (?, ?, ?, 5, 5)")
                .params(sale, second, new java.math.BigDecimal("10.00")).update();
        String firstToken = api.token(rusher, sale);
        nextWindow();
        String secondToken = api.token(rusher, sale);
        List<Response> both = Concurrently.map(2, List.of(first, second), p -> api.post(
                "/api/seckill/activities/" + sale + "/orders", rusher, "{\"productId\":" + p + ",\"quantity\":1}",
                "Idempotency-Token", p == first ? firstToken : secondToken));
        assertThat(byAnswer(both)).as(both.toString()).isEqualTo(Map.of("201 ", 1L, "409 purchase-limit", 1L));
        assertThat(rows.count("SELECT COUNT(*) FROM orders WHERE activity_id = ?", sale)).isEqualTo(1);
        assertThat(rows.count("SELECT SUM(stock) FROM seckill_stock WHERE activity_id = ?", sale)).isEqualTo(9);
    }

    @Test
    void tokensAreIssuedOnlyWhileTheSaleRunsAndHasStock() {
        Session buyer = api.login(user("tk"));
        long product = rows.createProduct("9.00", 0);
        long soldOut = rows.createActivity(product, "1.00", 0);
        long ended = rows.createActivity(product, "1.00", 5);
        long now = Instant.now().toEpochMilli();
        jdbc.sql("UPDATE seckill_activities SET starts_at = ?, ends_at = ? WHERE id = ?")
                .params(now - 7_200_000, now - 3_600_000, ended).update();
        long future = rows.createActivity(product, "1.00", 5);
        jdbc.sql("UPDATE seckill_activities SET starts_at = ?, ends_at = ? WHERE id = ?")
                .params(now + 3_600_000, now + 7_200_000, future).update();

        Response none = api.post("/api/seckill/activities/" + soldOut + "/tokens", buyer, null);
        Response late = api.post("/api/seckill/activities/" + ended + "/tokens", buyer, null);
        Response early = api.post("/api/seckill/activities/" + future + "/tokens", buyer, null);

        assertThat(none.status()).isEqualTo(409);
        assertThat(none.problem()).isEqualTo("sold-out");
        assertThat(late.problem()).isEqualTo("activity-not-active");
        assertThat(early.problem()).isEqualTo("activity-not-active");
    }

    // ---------------------------------------------------------------- the request window

    @Test
    void theRequestWindowCannotBeBypassedByRewritingTheRequest() {
        Session buyer = api.login(user("bypass"));
        long first = rows.createProduct("50.00", 0);
        long second = rows.createProduct("50.00", 0);
        long sale = rows.createActivity(first, "5.00", 10);
        jdbc.sql("INSERT INTO seckill_stock (activity_id, product_id, price, initial_stock, stock) VALUES (?, ?, ?, 10, 10)")
                .params(sale, second, new java.math.BigDecimal("5.00")).update();
        String path = "/api/seckill/activities/" + sale;
        String encoded = "/api/seckill/activities/%3" + Long.toString(sale).charAt(0) + Long.toString(sale).substring(1);
        long gatewayBefore = gatewayDuplicates(buyer);

        String token = api.token(buyer, sale);
        Response tokenAgain = api.post("/api/seckill/activities/0" + sale + "/tokens", buyer, null);
        Response tokenHex = api.post("/api/seckill/activities/0x" + Long.toHexString(sale) + "/tokens", buyer, null);
        Response bought = api.post(path + "/orders", buyer, "{\"quantity\":1}", "Idempotency-Token", token);
        assertThat(bought.status()).as(bought.toString()).isEqualTo(201);
        Map<String, Response> variants = new java.util.LinkedHashMap<>();
        variants.put("token, id written 0<id>", tokenAgain);
        variants.put("token, id written in hexadecimal", tokenHex);
        variants.put("an unused field", api.post(path + "/orders", buyer, "{\"quantity\":1,\"note\":\"again\"}",
                "Idempotency-Token", token));
        variants.put("id written 0<id>", api.post("/api/seckill/activities/0" + sale + "/orders", buyer,
                "{\"quantity\":1}", "Idempotency-Token", token));
        variants.put("id written +<id>", api.post("/api/seckill/activities/+" + sale + "/orders", buyer,
                "{\"quantity\":1}", "Idempotency-Token", token));
        variants.put("id written in hexadecimal", api.post("/api/seckill/activities/0x" + Long.toHexString(sale) + "/orders",
                buyer, "{\"quantity\":1}", "Idempotency-Token", token));
        variants.put("id percent-encoded", api.post(encoded + "/orders", buyer, "{\"quantity\":1}", "Idempotency-Token", token));
        variants.put("the default product named", api.post(path + "/orders", buyer,
                "{\"productId\":" + first + ",\"quantity\":1}", "Idempotency-Token", token));
        variants.put("quantity left out", api.post(path + "/orders", buyer, "{\"productId\":" + first + "}",
                "Idempotency-Token", token));
        variants.put("fields reordered, spaced, more of them", api.post(path + "/orders", buyer,
                "{ \"x\" : [1, 2], \"quantity\" : 1 , \"productId\" : " + first + " }", "Idempotency-Token", token));
        variants.put("the key header sent by the client", api.post(path + "/orders", buyer,
                "{\"productId\":" + second + ",\"quantity\":2}", "Idempotency-Token", token,
                "X-Seckill-Dedup-Key", "order:" + sale + ":" + first + ":1"));
        Response otherProduct = api.post(path + "/orders", buyer, "{\"productId\":" + second + ",\"quantity\":1}",
                "Idempotency-Token", token);

        variants.forEach((name, response) -> {
            if (name.equals("the key header sent by the client")) {
                assertThat(response.problem()).as(name + ": the client's value is ignored").isNotEqualTo("duplicate-request");
                return;
            }
            assertThat(response.status()).as(name + ": " + response).isEqualTo(429);
            assertThat(response.problem()).as(name).isEqualTo("duplicate-request");
            assertThat(response.header("Retry-After")).as(name).isNotNull();
        });
        assertThat(otherProduct.problem()).as("another product is another request").isNotEqualTo("duplicate-request");
        assertThat(rows.count("SELECT COUNT(*) FROM orders WHERE activity_id = ?", sale)).isEqualTo(1);
        assertThat(gatewayDuplicates(buyer) - gatewayBefore).isEqualTo(variants.size() - 1);
    }

    private long gatewayDuplicates(Session session) {
        return api.get("/api/stats", session).json().path("layers").path("gateway").path("window_duplicate").asLong(0);
    }

    // ---------------------------------------------------------------- strict input

    @Test
    void jsonIsStrictAndIdsCanonical() {
        Session buyer = api.login(user("strict"));
        Session reader = api.login(user("strict-reader"));
        long product = rows.createProduct("4.00", 100);
        Map<String, Long> before = rows.snapshot();
        Map<String, String> bodies = new java.util.LinkedHashMap<>();
        bodies.put("a float for an integer", "{\"productId\":" + product + ",\"quantity\":1.5}");
        bodies.put("an integral float", "{\"productId\":" + product + ",\"quantity\":1.0}");
        bodies.put("a string for a number", "{\"productId\":" + product + ",\"quantity\":\"1\"}");
        bodies.put("a string id", "{\"productId\":\"" + product + "\",\"quantity\":1}");
        bodies.put("a duplicate key", "{\"productId\":" + product + ",\"quantity\":1,\"quantity\":2}");
        bodies.put("text after the JSON", "{\"productId\":" + product + ",\"quantity\":1} {}");
        bodies.put("a boolean for a number", "{\"productId\":" + product + ",\"quantity\":true}");
        for (Map.Entry<String, String> body : bodies.entrySet()) {
            Response response = api.post("/api/orders", buyer, body.getValue(), "Idempotency-Key", Api.businessId(buyer));
            assertThat(response.status()).as(body.getKey() + ": " + response).isEqualTo(400);
            assertThat(response.problem()).as(body.getKey()).isEqualTo("malformed-request");
        }
        String padded = "u0" + buyer.userId() + "_" + System.currentTimeMillis() + "_abcdef";
        Response notCanonical = api.post("/api/orders", buyer, "{\"productId\":" + product + ",\"quantity\":1}",
                "Idempotency-Key", padded);
        assertThat(notCanonical.status()).isEqualTo(400);
        assertThat(notCanonical.problem()).isEqualTo("business-id-invalid");
        Response numberAsName = api.post("/api/login", null, "{\"username\":12345}");
        assertThat(numberAsName.status()).isEqualTo(400);
        assertThat(numberAsName.problem()).isEqualTo("malformed-request");
        assertThat(numberAsName.json().path("errors").toString())
                .isEqualTo("[{\"field\":\"username\",\"message\":\"must be text (a JSON string)\"}]");

        // the problem says where: the field and the type it takes, or the line and column, never the value sent
        // (another buyer: the per-user order limit counts these too)
        Response floatQuantity = api.post("/api/orders", reader, bodies.get("a float for an integer"),
                "Idempotency-Key", Api.businessId(reader));
        assertThat(floatQuantity.json().path("errors").toString())
                .isEqualTo("[{\"field\":\"quantity\",\"message\":\"must be a whole number\"}]");
        assertThat(floatQuantity.json().path("detail").asString()).isEqualTo("A field of the JSON body has a value of the wrong type; see errors.");
        Response stringId = api.send(api.request("POST", "/api/orders", reader, bodies.get("a string id"),
                "Idempotency-Key", Api.businessId(reader), "Accept-Language", "zh-CN"));
        assertThat(stringId.json().path("errors").toString()).isEqualTo("[{\"field\":\"productId\",\"message\":\"必须是整数\"}]");
        assertThat(api.post("/api/orders", reader, bodies.get("a boolean for a number"), "Idempotency-Key", Api.businessId(reader))
                .json().path("errors").get(0).path("field").asString()).isEqualTo("quantity");
        Response duplicate = api.post("/api/orders", reader, bodies.get("a duplicate key"), "Idempotency-Key", Api.businessId(reader));
        assertThat(duplicate.json().path("detail").asString()).startsWith("The JSON body cannot be read from line 1, column ");
        assertThat(duplicate.json().has("errors")).isFalse();
        Response broken = api.post("/api/orders", reader, "{\n\"productId\": " + product + ",\n\"quantity\": }",
                "Idempotency-Key", Api.businessId(reader));
        assertThat(broken.json().path("detail").asString()).startsWith("The JSON body cannot be read from line 3, column ");
        assertThat(api.post("/api/orders", reader, bodies.get("text after the JSON"), "Idempotency-Key", Api.businessId(reader))
                .json().path("detail").asString())
                .isEqualTo("The body must be one JSON object with the fields this request takes, and nothing after it.");
        assertThat(api.post("/api/orders", reader, "[1]", "Idempotency-Key", Api.businessId(reader)).json().path("detail").asString())
                .startsWith("The body must be one JSON object");
        assertThat(api.post("/api/orders", reader, "", "Idempotency-Key", Api.businessId(reader)).json().path("detail").asString())
                .isEqualTo("This request needs a JSON body.");
        assertThat(stringId.body()).doesNotContain("\"" + product + "\"");
        assertThat(rows.snapshot()).isEqualTo(before);
    }

    @Test
    void paymentNoticesWithMalformedNumbersAreRefusedBeforeAnythingElse() {
        Session buyer = api.login(user("notice"));
        long product = rows.createProduct("7.00", 100);
        String orderNo = api.order(buyer, Api.businessId(buyer), product, 1).text("orderNo");
        Map<String, Long> before = rows.snapshot();
        // each notice and the fields its errors name
        Map<String, List<String>> notices = new LinkedHashMap<>();
        notices.put("{\"outTradeNo\":\"" + orderNo + "\",\"amount\":7.00,\"tradeNo\":\"T-1\\nINFO forged log line\"}", List.of("tradeNo"));
        notices.put("{\"outTradeNo\":\"" + orderNo + "\",\"amount\":7.00,\"tradeNo\":\"T-1\\r\\n\"}", List.of("tradeNo"));
        notices.put("{\"outTradeNo\":\"" + orderNo + "\",\"amount\":7.00,\"tradeNo\":\"" + "T".repeat(65) + "\"}", List.of("tradeNo"));
        notices.put("{\"outTradeNo\":\"" + orderNo + "\",\"amount\":7.00,\"tradeNo\":\"<script>\"}", List.of("tradeNo"));
        notices.put("{\"outTradeNo\":\"" + orderNo.substring(0, 12) + "U\",\"amount\":7.00,\"tradeNo\":\"T-2\"}", List.of("outTradeNo"));
        notices.put("{\"outTradeNo\":\"" + orderNo + "\\n\",\"amount\":7.00,\"tradeNo\":\"T-3\"}", List.of("outTradeNo"));
        notices.put("{\"outTradeNo\":\"" + orderNo + "\",\"amount\":-7.00,\"tradeNo\":\"T-4\"}", List.of("amount"));
        notices.put("{\"outTradeNo\":\"" + orderNo + "\",\"amount\":10000000000.00,\"tradeNo\":\"T-5\"}", List.of("amount"));
        notices.put("{}", List.of("amount", "outTradeNo", "tradeNo"));
        notices.put("{\"outTradeNo\":\"" + orderNo + "\",\"tradeNo\":\"T-6\"}", List.of("amount"));
        for (Map.Entry<String, List<String>> entry : notices.entrySet()) {
            String notice = entry.getKey();
            Response response = api.post("/api/payments/callback", null, notice, "X-Signature", sign(notice));
            assertThat(response.status()).as(notice + ": " + response).isEqualTo(400);
            assertThat(response.problem()).as(notice).isEqualTo("validation-failed");
            List<String> fields = new ArrayList<>();
            response.json().path("errors").forEach(error -> {
                fields.add(error.path("field").asString());
                assertThat(error.path("message").asString()).as(notice).isNotBlank().doesNotContain("{");
            });
            assertThat(fields).as(notice + ": " + response).as("ordered by field").containsExactlyElementsOf(entry.getValue());
            assertThat(response.body()).as(notice).doesNotContain("INFO forged").doesNotContain("<script>");
        }
        String longTradeNo = notices.keySet().stream().filter(n -> n.contains("T".repeat(65))).findFirst().orElseThrow();
        assertThat(api.post("/api/payments/callback", null, longTradeNo, "X-Signature", sign(longTradeNo)).json()
                .path("errors").get(0).path("message").asString()).isEqualTo("must be 1 to 64 letters, digits, dots, underscores or hyphens");
        String notAnOrder = "{\"outTradeNo\":\"NOPE\",\"amount\":7.00,\"tradeNo\":\"T-8\"}";
        assertThat(api.post("/api/payments/callback", null, notAnOrder, "X-Signature", sign(notAnOrder)).json()
                .path("errors").get(0).path("message").asString()).startsWith("is not an order number");
        String negative = "{\"outTradeNo\":\"" + orderNo + "\",\"amount\":-1,\"tradeNo\":\"T-7\"}";
        Response zh = api.send(api.request("POST", "/api/payments/callback", null, negative, "X-Signature", sign(negative),
                "Accept-Language", "zh-CN"));
        assertThat(zh.json().path("errors").get(0).path("message").asString()).isEqualTo("不能为负数");
        assertThat(rows.snapshot()).isEqualTo(before);
        assertThat(rows.status(orderNo)).isEqualTo("UNPAID");
    }

    private String sign(String body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(paymentSecret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return HexFormat.of().formatHex(mac.doFinal(body.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    // ---------------------------------------------------------------- the business-id service

    @Test
    void theBusinessIdServiceMakesUniqueTimeOrderedIdsTheOrderEndpointTakes() throws Exception {
        Session buyer = api.login(user("ids"));
        assertThat(api.get("/api/idempotent/generate?scope=order", null).status()).isEqualTo(401);

        Response first = api.get("/api/idempotent/generate?scope=order", buyer);
        assertThat(first.status()).as(first.toString()).isEqualTo(200);
        assertThat(first.header("Cache-Control")).isEqualTo("no-store");
        String id = first.json().path("businessId").asString();
        assertThat(id).matches("u" + buyer.userId() + "_[0-9]{13}_o[0-9A-Za-z]{5}");
        assertThat(first.json().path("scope").asString()).isEqualTo("order");
        assertThat(first.json().path("userId").asLong()).isEqualTo(buyer.userId());
        long millis = Long.parseLong(id.split("_")[1]);
        assertThat(Instant.parse(first.json().path("issuedAt").asString()).toEpochMilli()).isEqualTo(millis);
        assertThat(api.get("/api/idempotent/generate", buyer).json().path("scope").asString()).as("order by default")
                .isEqualTo("order");

        // one after the other: each later than the one before (same length, so as text too)
        List<String> sequential = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            sequential.add(api.get("/api/idempotent/generate?scope=order", buyer).json().path("businessId").asString());
        }
        assertThat(sequential).isSorted().doesNotHaveDuplicates();
        assertThat(sequential.get(0)).isGreaterThan(id);

        Response unknown = api.get("/api/idempotent/generate?scope=refund", buyer);
        assertThat(unknown.status()).isEqualTo(400);
        assertThat(unknown.problem()).isEqualTo("validation-failed");
        assertThat(unknown.json().path("errors").toString()).isEqualTo("[{\"field\":\"scope\",\"message\":\"must be one of: order\"}]");
        Response unknownZh = api.send(api.request("GET", "/api/idempotent/generate?scope=refund", buyer, null, "Accept-Language", "zh-CN"));
        assertThat(unknownZh.json().path("errors").get(0).path("message").asString()).isEqualTo("必须是以下之一：order");

        // an id from the service is an Idempotency-Key the order endpoint takes, for its own user only
        long product = rows.createProduct("3.00", 10);
        Response order = api.order(buyer, id, product, 1);
        assertThat(order.status()).as(order.toString()).isEqualTo(201);
        assertThat(jdbc.sql("SELECT business_id FROM orders WHERE order_no = ?").param(order.json().path("orderNo").asString())
                .query(String.class).single()).isEqualTo(id);
        Session other = api.login(user("ids-other"));
        assertThat(api.order(other, sequential.get(0), product, 1).problem()).isEqualTo("business-id-forbidden");

        // many at once, for one user: every id different
        Session busy = api.login(user("ids-busy"));
        List<String> parallel = Concurrently.times(20, () -> api.get("/api/idempotent/generate?scope=order", busy)
                .json().path("businessId").asString());
        assertThat(parallel).hasSize(20).doesNotHaveDuplicates().allMatch(b -> b.startsWith("u" + busy.userId() + "_"));

        // at most seckill.limits.id-requests (30) per user and window
        Session greedy = api.login(user("ids-greedy"));
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            statuses.add(api.get("/api/idempotent/generate?scope=order", greedy).status());
        }
        assertThat(statuses).containsOnly(200);
        Response limited = api.get("/api/idempotent/generate?scope=order", greedy);
        assertThat(limited.status()).isEqualTo(429);
        assertThat(limited.problem()).isEqualTo("too-many-requests");
        assertThat(limited.header("Retry-After")).isNotBlank();
    }

    // ---------------------------------------------------------------- every error a problem

    /** One malformed request and the problem it must get. */
    record Malformed(String name, RawHttp.Answer answer, int status, String problem) {
    }

    @Test
    void malformedHeadersPathsAndMethodsAreAnsweredAsProblems() {
        List<Malformed> cases = List.of(
                new Malformed("10 KB header", raw.get("/api/products", "X-Big: " + "a".repeat(10 * 1024)), 431,
                        "request-header-too-large"),
                new Malformed("120 headers", raw.get("/api/products", IntStream.range(0, 120).mapToObj(i -> "X-H" + i + ": v")
                        .toArray(String[]::new)), 431, "request-header-too-large"),
                new Malformed("101 headers", raw.get("/api/products", IntStream.range(0, 99).mapToObj(i -> "X-H" + i + ": v")
                        .toArray(String[]::new)), 431, "request-header-too-large"),
                new Malformed("CR in a header", raw.get("/api/products", "X-Note: a\rb"), 400, "malformed-http-request"),
                new Malformed("NUL in a header", raw.get("/api/products", "X-Note: a\u0000b"), 400, "malformed-http-request"),
                new Malformed("header without a colon", raw.get("/api/products", "X-Note"), 400, "malformed-http-request"),
                new Malformed("encoded slash", raw.get("/api/orders/a%2Fb"), 400, "request-rejected"),
                new Malformed("encoded NUL", raw.get("/api/orders/a%00b"), 400, "request-rejected"),
                new Malformed("backslash", raw.get("/api/a\\b"), 400, "malformed-http-request"),
                new Malformed("encoded backslash", raw.get("/api/a%5Cb"), 400, "request-rejected"),
                new Malformed("..;/", raw.get("/api/..;/api/products"), 400, "request-rejected"),
                new Malformed("double slash", raw.get("//api/products"), 400, "request-rejected"),
                new Malformed("encoded percent", raw.get("/api/orders/a%25b"), 400, "request-rejected"),
                new Malformed("unknown method", raw.send("BREW", "/api/products", "HTTP/1.1"), 405, "method-not-allowed"),
                new Malformed("HTTP/9.9", raw.send("GET", "/api/products", "HTTP/9.9"), 505, "http-version-not-supported"),
                new Malformed("unknown transfer coding", raw.get("/api/products", "Transfer-Encoding: bogus"), 501,
                        "transfer-encoding-not-supported"),
                new Malformed("GET /api/login", raw.get("/api/login"), 405, "method-not-allowed"),
                new Malformed("GET /api/payments/callback", raw.get("/api/payments/callback"), 405, "method-not-allowed"));

        for (Malformed c : cases) {
            RawHttp.Answer answer = c.answer();
            assertThat(answer.status()).as(c.name() + ": " + answer).isEqualTo(c.status());
            assertThat(answer.header("Content-Type")).as(c.name() + ": " + answer).isEqualTo("application/problem+json");
            JsonNode problem = tools.jackson.databind.json.JsonMapper.builder().build().readTree(answer.body());
            assertThat(problem.path("type").asString()).as(c.name()).isEqualTo("urn:onlyonce:problem:" + c.problem());
            assertThat(problem.path("status").asInt()).as(c.name()).isEqualTo(c.status());
            assertThat(problem.path("title").asString()).as(c.name()).isNotBlank();
            assertThat(problem.path("detail").asString()).as(c.name()).doesNotContain("JSON body");
            assertThat(answer.body()).as(c.name()).doesNotContainIgnoringCase("<html").doesNotContainIgnoringCase("tomcat")
                    .doesNotContainIgnoringCase("exception");
            assertThat(answer.header("X-Request-ID")).as(c.name() + ": " + answer).isNotBlank();
        }
        Map<String, JsonNode> problems = new LinkedHashMap<>();
        cases.forEach(c -> problems.put(c.name(), tools.jackson.databind.json.JsonMapper.builder().build().readTree(c.answer().body())));
        // the address is repeated when plain, never when it was what Tomcat refused
        assertThat(problems.get("CR in a header").path("instance").asString()).isEqualTo("/api/products");
        assertThat(problems.get("10 KB header").path("instance").asString()).isEqualTo("/api/products");
        assertThat(problems.get("120 headers").path("detail").asString()).contains("100 headers");
        assertThat(problems.get("HTTP/9.9").path("instance").asString()).isEqualTo("/api/products");
        assertThat(problems.get("encoded slash").has("instance")).isFalse();
        assertThat(problems.get("backslash").has("instance")).isFalse();
        assertThat(problems.get("..;/").has("instance")).as("the firewall's refusals too").isFalse();
        assertThat(problems.get("double slash").has("instance")).isFalse();
        RawHttp.Answer hundred = raw.get("/api/products", IntStream.range(0, 98).mapToObj(i -> "X-H" + i + ": v").toArray(String[]::new));
        assertThat(hundred.status()).as("100 headers, Host and Connection among them, are read: " + hundred).isEqualTo(401);
        RawHttp.Answer zh = raw.get("/api/products", "Accept-Language: zh-CN", "X-Note: a\rb");
        assertThat(zh.header("Content-Type")).isEqualTo("application/problem+json");
        assertThat(tools.jackson.databind.json.JsonMapper.builder().build().readTree(zh.body()).path("title").asString())
                .isEqualTo("HTTP 请求格式错误");
        assertThat(zh.body()).as("UTF-8, as every other problem: readable, not \\u-escaped").contains("\"title\":\"HTTP 请求格式错误\"");
        RawHttp.Answer zhTooLarge = raw.get("/api/products", "Accept-Language: zh-CN", "X-Big: " + "a".repeat(10 * 1024));
        assertThat(zhTooLarge.status()).isEqualTo(431);
        assertThat(zhTooLarge.body()).as(zhTooLarge.toString()).contains("\"title\":\"请求头过大\"").doesNotContain("\\u");
        assertThat(zhTooLarge.header("Content-Length")).isEqualTo(
                Integer.toString(zhTooLarge.body().getBytes(java.nio.charset.StandardCharsets.UTF_8).length));
        RawHttp.Answer traced = raw.get("/api/products", "X-Request-ID: trace-7", "X-Note: a\rb");
        assertThat(traced.status()).isEqualTo(400);
        assertThat(traced.header("X-Request-ID")).as(traced.toString()).isEqualTo("trace-7");
        assertThat(cases.stream().filter(c -> c.name().startsWith("GET /api/")))
                .allSatisfy(c -> assertThat(c.answer().header("Allow")).isEqualTo("POST"));
    }

    // ---------------------------------------------------------------- start-up

    @Test
    void startUpIsRefusedOutsideDemoModeWithForgeableSecrets() {
        List<List<String>> secrets = List.of(
                List.of("--seckill.auth.jwt-secret=" + SecretsGuard.DEMO_JWT_SECRET,
                        "--seckill.payment.secret=" + SecretsGuard.DEMO_PAYMENT_SECRET,
                        "--onlyonce.token.secrets=" + SecretsGuard.DEMO_TOKEN_SECRET),
                List.of("--seckill.auth.jwt-secret=", "--seckill.payment.secret=", "--onlyonce.token.secrets="),
                List.of("--seckill.auth.jwt-secret=short", "--seckill.payment.secret=still-too-short",
                        "--onlyonce.token.secrets=0123456789"));
        for (List<String> given : secrets) {
            List<String> args = new ArrayList<>(nonDemoStart());
            args.add("--server.port=0");
            args.addAll(given);
            assertThatThrownBy(() -> new SpringApplicationBuilder(SeckillApplication.class).run(args.toArray(String[]::new))
                    .close())
                    .as(given.toString())
                    .isInstanceOf(InsecureConfigurationException.class)
                    .hasMessageContainingAll("SECKILL_JWT_SECRET", "SECKILL_PAYMENT_SECRET", "ONLYONCE_TOKEN_SECRET");
        }
    }

    // ---------------------------------------------------------------- the newcomer path

    @Test
    void theWalkThroughScriptPassesTwiceInARowAgainstOneService() throws Exception {
        Path script = repositoryRoot().resolve("scripts/demo.sh");
        for (int runNo = 1; runNo <= 2; runNo++) {
            ProcessBuilder builder = new ProcessBuilder("bash", script.toString(), "http://127.0.0.1:" + port)
                    .redirectErrorStream(true);
            builder.environment().putAll(demoScriptEnvironment());
            File log = Files.createTempFile("seckill-demo-" + runNo + "-", ".log").toFile();
            builder.redirectOutput(log);
            Process process = builder.start();
            assertThat(process.waitFor(3, TimeUnit.MINUTES)).as("scripts/demo.sh finished").isTrue();
            String output = Files.readString(log.toPath());
            assertThat(process.exitValue()).as("run %d of scripts/demo.sh:%n%s", runNo, output).isZero();
            assertThat(output).contains("steps answered as documented");
        }
    }

    public static Path repositoryRoot() throws IOException {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("scripts/demo.sh"))) {
                return dir;
            }
        }
        throw new IOException("scripts/demo.sh not found above " + Path.of("").toAbsolutePath());
    }

    @Test
    void aStaleAccessTokenDoesNotCloseTheEndpointsThatNeedNone() {
        String stale = "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c3RhbGU";
        Response login = api.send(api.request("POST", "/api/login", null, "{\"username\":\"" + user("stale") + "\"}",
                "Authorization", stale));
        assertThat(login.status()).as(login.toString()).isEqualTo(200);
        assertThat(api.send(api.request("GET", "/v3/api-docs", null, null, "Authorization", stale)).status()).isEqualTo(200);
        assertThat(api.send(api.request("GET", "/actuator/health", null, null, "Authorization", stale)).status()).isEqualTo(200);
        String notice = "{\"outTradeNo\":\"0000000000000\",\"amount\":1.00,\"tradeNo\":\"T-stale\"}";
        Response callback = api.send(api.request("POST", "/api/payments/callback", null, notice, "X-Signature", sign(notice),
                "Authorization", stale));
        assertThat(callback.problem()).as(callback.toString()).isEqualTo("order-not-found");
        Response orders = api.send(api.request("GET", "/api/orders", null, null, "Authorization", stale));
        assertThat(orders.status()).as("a protected endpoint still refuses it").isEqualTo(401);
    }

    @Test
    void aHeaderValueWithAControlCharacterReadByTheApplicationIsA400NotA500() {
        // Tomcat passes obs-text bytes through; the firewall refuses U+0085 when a controller reads the header
        RawHttp.Answer answer = raw.post("/api/payments/callback", "{}", "Content-Type: application/json",
                "X-Signature: a\u0085b");
        assertThat(answer.status()).as(answer.toString()).isEqualTo(400);
        assertThat(answer.body()).contains("malformed-http-request").doesNotContainIgnoringCase("exception");
        RawHttp.Answer language = raw.post("/api/login", "{\"username\":\"\"}", "Content-Type: application/json",
                "Accept-Language: zh-CN\u0085");
        assertThat(language.status()).as("a refused Accept-Language is ignored: English").isEqualTo(400);
        assertThat(language.body()).contains("validation-failed").contains("is required");
        RawHttp.Answer unknown = raw.get("/api/nothing-here", "Accept-Language: zh\u0085");
        assertThat(unknown.status()).isEqualTo(401);
        Response tab = api.post("/api/payments/callback", null, "{}", "X-Signature", "a\tb");
        assertThat(tab.status()).as("a tab is field content: the signature is simply wrong").isEqualTo(401);
        assertThat(tab.problem()).isEqualTo("signature-invalid");
    }

    @Test
    void aControlCharacterInTheContentTypeIsTheSame400OnEveryEndpoint() {
        Session buyer = api.login(user("content-type"));
        long product = rows.createProduct("3.00", 100);
        Map<String, Long> before = rows.snapshot();
        String order = "{\"productId\":" + product + ",\"quantity\":1}";
        String notice = "{\"outTradeNo\":\"0000000000000\",\"amount\":1.00,\"tradeNo\":\"T-ct\"}";
        // 0x85 reaches the application (Tomcat refuses 0x01 and 0x7f itself, also 400 malformed-http-request)
        for (String control : List.of("\u0085", "\u0001", "\u007f")) {
            Map<String, RawHttp.Answer> answers = new LinkedHashMap<>();
            answers.put("order (consumes JSON)", raw.post("/api/orders", order, "Content-Type: application/json; charset=utf" + control + "8",
                    "Authorization: Bearer " + buyer.token(), "Idempotency-Key: " + Api.businessId(buyer)));
            answers.put("payment callback (reads the header)", raw.post("/api/payments/callback", notice,
                    "Content-Type: application/json; charset=utf" + control + "8", "X-Signature: " + sign(notice)));
            answers.put("login", raw.post("/api/login", "{\"username\":\"" + user("ct-login") + "\"}",
                    "Content-Type: application/json" + control));
            answers.put("token (no body)", raw.post("/api/seckill/activities/1/tokens", "", "Content-Type: application/json" + control,
                    "Authorization: Bearer " + buyer.token()));
            answers.put("a GET", raw.get("/api/orders", "Content-Type: application/json" + control,
                    "Authorization: Bearer " + buyer.token()));
            answers.put("a second Content-Type line", raw.post("/api/login", "{\"username\":\"" + user("ct-login") + "\"}",
                    "Content-Type: application/json", "Content-Type: application/json" + control));
            answers.forEach((name, answer) -> {
                assertThat(answer.status()).as(name + " " + (int) control.charAt(0) + ": " + answer).isEqualTo(400);
                assertThat(answer.body()).as(name).contains("urn:onlyonce:problem:malformed-http-request");
            });
        }
        assertThat(rows.snapshot()).as("nothing changed").isEqualTo(before);
        RawHttp.Answer plain = raw.post("/api/login", "{\"username\":\"" + user("ct-login") + "\"}",
                "Content-Type: application/json; charset=utf-8");
        assertThat(plain.status()).as("the same request with a clean Content-Type: " + plain).isEqualTo(200);
        RawHttp.Answer twice = raw.post("/api/login", "{\"username\":\"" + user("ct-login") + "\"}",
                "Content-Type: application/json", "Content-Type: application/json");
        assertThat(twice.status()).as("Content-Type is one field: sent twice, refused " + twice).isEqualTo(400);
        assertThat(twice.body()).contains("urn:onlyonce:problem:malformed-http-request");
    }

    @Test
    void theOpenApiDocumentIsOpenAndShowsTheIdempotencyHeaders() {
        Response docs = api.get("/v3/api-docs", null);
        assertThat(docs.status()).isEqualTo(200);
        JsonNode paths = docs.json().path("paths");
        assertThat(headers(paths.path("/api/orders").path("post"))).containsExactly("Idempotency-Key");
        assertThat(headers(paths.path("/api/seckill/activities/{activityId}/orders").path("post")))
                .containsExactly("Idempotency-Token");
        assertThat(paths.path("/api/orders").path("post").path("responses").propertyNames())
                .as("the statuses an order answers").containsExactlyInAnyOrder("201", "400", "401", "409", "422", "429",
                        "503", "default");
        assertThat(paths.path("/api/seckill/activities/{activityId}/orders").path("post").path("responses").propertyNames())
                .as("the statuses a purchase answers on the synchronous path").containsExactlyInAnyOrder("201", "400", "401",
                        "409", "429", "503", "default");
        assertThat(paths.path("/api/seckill/activities/{activityId}/tokens").path("post").path("responses").propertyNames())
                .as("a token request meets the window").contains("429", "503");
        assertThat(paths.path("/api/orders").path("post").path("responses").path("503").path("description").asString())
                .doesNotContain("sale-unavailable");
        assertThat(paths.path("/api/products").path("get").path("responses").propertyNames())
                .as("a read answers no idempotency problems").containsExactlyInAnyOrder("200", "400", "401", "default");
        assertThat(paths.path("/api/payments/callback").path("post").path("responses").path("401").path("description")
                .asString()).isEqualTo("signature-invalid");
        JsonNode conflict = paths.path("/api/seckill/activities/{activityId}/orders").path("post").path("responses").path("409");
        assertThat(conflict.path("content").path("application/problem+json").path("schema").path("$ref").asString())
                .isEqualTo("#/components/schemas/Problem");
        assertThat(docs.json().path("components").path("schemas").path("Problem").path("properties").propertyNames())
                .containsExactly("type", "title", "status", "detail", "instance", "errors", "orderNo", "firstStatus",
                        "firstResult");
        assertThat(conflict.path("description").asString()).contains("duplicate-submission");
        assertThat(paths.path("/api/orders").path("post").path("responses").path("409").path("description").asString())
                .contains("idempotency-request-in-progress");
        JsonNode token = paths.path("/api/seckill/activities/{activityId}/orders").path("post").path("parameters");
        token.forEach(p -> {
            if (p.path("in").asString().equals("header")) {
                assertThat(p.path("required").asBoolean()).isTrue();
                assertThat(p.path("description").asString()).contains("/api/seckill/activities/{activityId}/tokens");
            }
        });
        assertThat(paths.path("/api/login").path("post").path("security").isEmpty()).isTrue();
        // Swagger UI renders descriptions as Markdown: the format's underscores in a code span, not italics
        List<String> keyDescriptions = new ArrayList<>();
        paths.path("/api/orders").path("post").path("parameters").forEach(p -> {
            if (p.path("name").asString().equals("Idempotency-Key")) {
                keyDescriptions.add(p.path("description").asString());
            }
        });
        assertThat(keyDescriptions).singleElement().asString().contains("`u{userId}_{epochMillis}_{6 letters or digits}`");
        assertThat(docs.json().path("info").path("description").asString())
                .contains("`u{userId}_{epochMillis}_{6 letters or digits}`");
        Response ui = api.get("/swagger-ui/index.html", null);
        assertThat(ui.status()).isEqualTo(200);
        assertThat(ui.body()).contains("swagger-ui");
        assertThat(api.get("/swagger-ui.html", null).status()).isIn(200, 302);
    }

    private static List<String> headers(JsonNode operation) {
        List<String> names = new ArrayList<>();
        operation.path("parameters").forEach(p -> {
            if (p.path("in").asString().equals("header")) {
                names.add(p.path("name").asString());
            }
        });
        return names;
    }

    @Test
    void theActuatorSaysThereIsNoTokenEndpointWhereThereIsNone() {
        Session operator = api.login(user("ops"));
        Response report = api.get("/actuator/onlyonce", operator);
        assertThat(report.status()).isEqualTo(200);
        JsonNode token = report.json().path("configuration").path("token");
        assertThat(token.path("endpointEnabled").asBoolean(true)).isFalse();
        assertThat(token.has("path")).isFalse();
        assertThat(api.post("/idempotency/tokens", operator, null).status()).isEqualTo(404);
        assertThat(report.body()).doesNotContain(SecretsGuard.DEMO_TOKEN_SECRET);
    }

    @Test
    void theDemoPaymentExistsInDemoModeOnlyAndPaysOnlyTheCallersOwnOrder() {
        Session buyer = api.login(user("demo-pay"));
        Session other = api.login(user("demo-other"));
        long product = rows.createProduct("3.00", 5);
        String orderNo = api.order(buyer, Api.businessId(buyer), product, 1).text("orderNo");

        Response stranger = api.post("/api/demo/orders/" + orderNo + "/pay", other, null);
        Response owner = api.post("/api/demo/orders/" + orderNo + "/pay", buyer, null);

        assertThat(stranger.status()).isEqualTo(404);
        if (demoMode) {
            assertThat(api.get("/api/demo", buyer).json().path("demo").asBoolean()).isTrue();
            assertThat(owner.status()).isEqualTo(200);
            assertThat(owner.text("result")).isEqualTo("SUCCESS");
            assertThat(rows.status(orderNo)).isEqualTo("PAID");
            assertThat(rows.count("SELECT COUNT(*) FROM payment_notifications WHERE order_no = ?", orderNo)).isEqualTo(1);
        } else {
            assertThat(api.get("/api/demo", buyer).status()).isEqualTo(404);
            assertThat(owner.status()).isEqualTo(404);
            assertThat(rows.status(orderNo)).isEqualTo("UNPAID");
        }
    }
}
