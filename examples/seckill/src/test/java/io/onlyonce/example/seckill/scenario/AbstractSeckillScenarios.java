package io.onlyonce.example.seckill.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.example.seckill.SeckillApplication;
import io.onlyonce.example.seckill.auth.AccessTokens;
import io.onlyonce.example.seckill.auth.UserRepository;
import io.onlyonce.example.seckill.order.UnpaidOrderSweeper;
import io.onlyonce.example.seckill.seckill.DedupKeyFilter;
import io.onlyonce.example.seckill.support.Api.Response;
import io.onlyonce.example.seckill.support.Api.Session;
import io.onlyonce.example.seckill.support.Api;
import io.onlyonce.example.seckill.support.Concurrently;
import io.onlyonce.example.seckill.support.Rows;
import io.onlyonce.example.seckill.support.TestClockConfiguration;
import io.onlyonce.example.seckill.support.TestSecrets;
import io.onlyonce.spring.metrics.OnlyOnceStatistics;
import io.onlyonce.testing.MutableClock;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.annotation.DirtiesContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The behaviour of the service as a user observes it (HTTP answers, rows, counters), run against
 * each database and store: subclasses choose them with properties. The clock stands still unless a
 * test moves it; {@link #nextWindow()} moves it past the 1 s request window.
 */
@SpringBootTest(classes = SeckillApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"seckill.order.sweeper-enabled=false", "logging.level.io.onlyonce.example.seckill.order.LoggingOrderEvents=WARN"})
@Import(TestClockConfiguration.class)
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
public abstract class AbstractSeckillScenarios {

    protected static final int THREADS = 50;

    @LocalServerPort
    int port;

    @Autowired
    protected MutableClock clock;

    @Autowired
    protected JdbcClient jdbc;

    @Autowired
    protected OnlyOnceStatistics statistics;

    @Autowired
    UnpaidOrderSweeper sweeper;

    @Autowired
    UserRepository users;

    @Autowired
    AccessTokens accessTokens;

    @Value("${seckill.payment.secret}")
    String paymentSecret;

    protected Api api;
    protected Rows rows;
    protected final String run = Long.toString(System.nanoTime() % 1_000_000, 36);

    @BeforeEach
    void connect() {
        api = new Api(port);
        rows = new Rows(jdbc, clock);
    }

    /**
     * Whether request windows follow the service's clock, which the tests move. Only the in-memory
     * store's do: a shared store (Redis, a database) measures windows on its server's clock, in real
     * time, so there a duplicate sent more than a second after its original may pass the window and
     * be stopped by the business layer instead.
     */
    protected boolean windowsFollowTheClock() {
        return false;
    }

    /** The transport the service's messages go through, as {@code /api/stats} names it. */
    protected String transport() {
        return "in-process";
    }

    /** The request window on a shared store, where tests wait for it in real time: shorter than the service's 1 s. */
    protected static final Duration SHARED_STORE_WINDOW = Duration.ofMillis(400);

    /**
     * The seckill de-dup rule of application.yml with the {@link #SHARED_STORE_WINDOW}; a list
     * property is replaced whole, so the rule is given in full.
     */
    /**
     * The set-up of a scenario class on shared servers: a {@link #shortWindow short window}, real
     * secrets, and the abuse limits off, since these scenarios drive the layers behind them (one
     * user sending 100 requests at once, tokens fetched after a sale sold out);
     * {@link AbstractSafetyScenarios} tests the limits.
     */
    protected static void behindTheLimits(org.springframework.test.context.DynamicPropertyRegistry registry) {
        shortWindow(registry);
        TestSecrets.register(registry);
        registry.add("seckill.limits.enabled", () -> "false");
    }

    protected static void shortWindow(org.springframework.test.context.DynamicPropertyRegistry registry) {
        registry.add("onlyonce.dedup.rules[0].pattern", () -> "/api/seckill/**");
        registry.add("onlyonce.dedup.rules[0].methods[0]", () -> "POST");
        registry.add("onlyonce.dedup.rules[0].window", () -> SHARED_STORE_WINDOW.toMillis() + "ms");
        registry.add("onlyonce.dedup.rules[0].fields[0]", () -> "principal");
        registry.add("onlyonce.dedup.rules[0].fields[1]", () -> "header:" + DedupKeyFilter.HEADER);
    }

    /**
     * Lets the request window pass, so the next request of a user is a new one: moves the
     * service's clock, and on a shared store (whose clock is its server's) waits for the window.
     */
    protected void nextWindow() {
        clock.advance(Duration.ofSeconds(2));
        if (!windowsFollowTheClock()) {
            try {
                Thread.sleep(SHARED_STORE_WINDOW.toMillis() + 100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    protected String user(String prefix) {
        return prefix + "-" + run + "-" + UUID.randomUUID().toString().substring(0, 6);
    }

    /** A logged-in user without the HTTP round trip of {@code POST /api/login} (tested on its own). */
    protected Session session(String username) {
        long id = users.idOf(username);
        return new Session(accessTokens.issue(id, username).value(), id, username);
    }

    protected long counter(String layer, String outcome) {
        return statistics.count(layer, outcome);
    }

    // ---------------------------------------------------------------- 100 concurrent orders with one business id

    @Test
    void hundredConcurrentOrdersWithOneBusinessIdMakeOneOrder() throws Exception {
        Session buyer = api.login(user("jm"));
        long product = rows.createProduct("10.00", 1000);
        String businessId = Api.businessId(buyer);

        List<Response> responses = Concurrently.times(100, () -> api.order(buyer, businessId, product, 2));

        assertThat(rows.count("SELECT COUNT(*) FROM orders WHERE business_id = ?", businessId)).isEqualTo(1);
        assertThat(rows.productStock(product)).isEqualTo(998);
        assertThat(responses).allSatisfy(r -> assertThat(r.status()).as(r.toString()).isIn(201, 409));
        List<Response> created = responses.stream().filter(r -> r.status() == 201).toList();
        assertThat(created).isNotEmpty();
        assertThat(created).extracting(Response::body).containsOnly(created.get(0).body());
        assertThat(responses.stream().filter(r -> r.status() == 409))
                .allSatisfy(r -> {
                    assertThat(r.problem()).isEqualTo("idempotency-request-in-progress");
                    assertThat(r.header("Retry-After")).isNotNull();
                });
        String orderNo = created.get(0).text("orderNo");
        assertThat(created.get(0).header("Location")).isEqualTo("/api/orders/" + orderNo);
        assertThat(created.get(0).text("status")).isEqualTo("UNPAID");
        assertThat(created.get(0).text("businessId")).isEqualTo(businessId);
        assertThat(created.get(0).json().get("amount").decimalValue()).isEqualByComparingTo("20.00");

        Response retry = api.order(buyer, businessId, product, 2);
        assertThat(retry.status()).isEqualTo(201);
        assertThat(retry.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(retry.body()).isEqualTo(created.get(0).body());
        Response otherBody = api.order(buyer, businessId, product, 3);
        assertThat(otherBody.status()).isEqualTo(422);
        assertThat(otherBody.problem()).isEqualTo("idempotency-key-reused");
        assertThat(rows.count("SELECT COUNT(*) FROM orders WHERE business_id = ?", businessId)).isEqualTo(1);
    }

    @Test
    void anOrderAskedForAsHtmlIs406BeforeAnythingIsPlacedAndTheReplayKeepsItsOwnRequestId() {
        Session buyer = api.login(user("html"));
        long product = rows.createProduct("10.00", 100);
        String businessId = Api.businessId(buyer);
        String body = "{\"productId\":" + product + ",\"quantity\":1}";

        Response html = api.post("/api/orders", buyer, body, "Idempotency-Key", businessId, "Accept", "text/html");
        assertThat(html.status()).as(html.toString()).isEqualTo(406);
        assertThat(rows.count("SELECT COUNT(*) FROM orders WHERE business_id = ?", businessId)).isZero();
        assertThat(rows.productStock(product)).isEqualTo(100);

        Response created = api.post("/api/orders", buyer, body, "Idempotency-Key", businessId, "X-Request-ID", "first-1");
        assertThat(created.status()).as("the corrected retry places the order").isEqualTo(201);
        Response replay = api.post("/api/orders", buyer, body, "Idempotency-Key", businessId, "X-Request-ID", "retry-1");
        assertThat(replay.status()).isEqualTo(201);
        assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(replay.body()).isEqualTo(created.body());
        assertThat(replay.header("Location")).isEqualTo(created.header("Location"));
        assertThat(created.header("X-Request-ID")).isEqualTo("first-1");
        assertThat(replay.header("X-Request-ID")).as("the retry's own request id").isEqualTo("retry-1");
        assertThat(rows.count("SELECT COUNT(*) FROM orders WHERE business_id = ?", businessId)).isEqualTo(1);
        assertThat(rows.productStock(product)).isEqualTo(99);
    }

    // ---------------------------------------------------------------- the flash sale

    /** Which user sent a request, in which round, and what came back. */
    record Attempt(int user, Response response) {
    }

    @Test
    void flashSaleSellsExactlyTheStockOncePerUserAndEveryLayerCountsWhatItStopped() throws Exception {
        long product = rows.createProduct("4999.00", 0);
        long activity = rows.createActivity(product, "999.00", 100);
        int users = 500;
        List<Session> sessions = IntStream.range(0, users).mapToObj(i -> session("fs" + run + "-" + i)).toList();
        Random random = new Random(42);
        long gatewayBefore = counter("gateway", "window_duplicate");
        long tokenBefore = counter("business", "duplicate_token");
        long executedBefore = counter("business", "executed");
        long soldOutBefore = counter("data", "sold_out");
        long liveBefore = counter("data", "live_order_conflict");
        int originals = 0;
        int duplicates = 0;

        // round 1, the rush: every user buys once; 300 of them send their request twice at once
        List<String> tokens = Concurrently.map(THREADS, sessions, s -> api.token(s, activity));
        List<Integer> order = shuffled(users, random);
        Set<Integer> doubled = new HashSet<>(order.subList(0, 300));
        List<List<Callable<Attempt>>> groups = new ArrayList<>();
        for (int i = 0; i < users; i++) {
            int u = i;
            Callable<Attempt> buy = () -> new Attempt(u, api.seckill(sessions.get(u), activity, tokens.get(u)));
            groups.add(doubled.contains(u) ? List.of(buy, buy) : List.of(buy));
        }
        AtomicBoolean rushing = new AtomicBoolean(true);
        AtomicInteger lowestStock = new AtomicInteger(Integer.MAX_VALUE);
        Thread sampler = new Thread(() -> {
            while (rushing.get()) {
                lowestStock.accumulateAndGet(rows.seckillStock(activity), Math::min);
                java.util.concurrent.locks.LockSupport.parkNanos(2_000_000); // sample, do not hog a core
            }
        });
        sampler.start();
        List<Attempt> round1 = Concurrently.run(THREADS, flatten(groups, random));
        rushing.set(false);
        sampler.join();
        originals += users;
        duplicates += 300;

        Map<Integer, String> bought = new HashMap<>();
        Map<Integer, List<Response>> byUser = new HashMap<>();
        round1.forEach(a -> byUser.computeIfAbsent(a.user(), k -> new ArrayList<>()).add(a.response()));
        int soldOut = 0;
        for (Map.Entry<Integer, List<Response>> entry : byUser.entrySet()) {
            List<Response> decisive = entry.getValue().stream()
                    .filter(r -> r.status() == 201 || r.problem().equals("sold-out")).toList();
            assertThat(decisive).as("user %s: %s", entry.getKey(), entry.getValue()).hasSize(1);
            if (decisive.get(0).status() == 201) {
                bought.put(entry.getKey(), decisive.get(0).text("orderNo"));
            } else {
                soldOut++;
            }
            assertThat(entry.getValue().stream().filter(r -> !decisive.contains(r)))
                    .allSatisfy(r -> assertThat(r.problem()).isIn("duplicate-request", "duplicate-submission"));
        }
        assertThat(bought).hasSize(100);
        assertThat(soldOut).isEqualTo(400);
        if (windowsFollowTheClock()) {
            assertThat(round1.stream().filter(a -> a.response().status() == 429)).hasSize(300);
        }

        // round 2, a client retry after a timeout: the 300 resend the token they already used
        nextWindow();
        List<Attempt> round2 = Concurrently.map(THREADS, new ArrayList<>(doubled),
                u -> new Attempt(u, api.seckill(sessions.get(u), activity, tokens.get(u))));
        duplicates += 300;
        assertThat(round2).allSatisfy(a -> assertThat(a.response().problem()).as(a.toString())
                .isIn(windowsFollowTheClock() ? Set.of("duplicate-submission") : Set.of("duplicate-submission", "duplicate-request")));
        round2.stream().filter(a -> bought.containsKey(a.user()) && a.response().status() == 409)
                .forEach(a -> assertThat(a.response().json().path("firstResult").path("orderNo").asString())
                        .isEqualTo(bought.get(a.user())));

        // rounds 3 and 4: everybody tries again with a new token; buyers hold a live order, the rest find it sold out
        int liveConflicts = 0;
        int lateSoldOut = 0;
        for (int round = 3; round <= 4; round++) {
            nextWindow();
            List<Integer> who = IntStream.range(0, round == 3 ? users : 400).boxed().toList();
            List<String> fresh = Concurrently.map(THREADS, who, u -> api.token(sessions.get(u), activity));
            List<Attempt> attempts = Concurrently.map(THREADS, who,
                    u -> new Attempt(u, api.seckill(sessions.get(u), activity, fresh.get(u))));
            originals += who.size();
            for (Attempt a : attempts) {
                if (bought.containsKey(a.user())) {
                    assertThat(a.response().problem()).as(a.toString()).isEqualTo("live-order-exists");
                    assertThat(a.response().text("orderNo")).isEqualTo(bought.get(a.user()));
                    liveConflicts++;
                } else {
                    assertThat(a.response().problem()).as(a.toString()).isEqualTo("sold-out");
                    lateSoldOut++;
                }
            }
        }
        assertThat(originals + duplicates).isEqualTo(2000);
        assertThat(duplicates).isEqualTo(600);

        // the database: exactly the stock sold, once per user, never below zero
        assertThat(rows.count("SELECT COUNT(*) FROM orders WHERE activity_id = ?", activity)).isEqualTo(100);
        assertThat(rows.count("SELECT COUNT(DISTINCT user_id) FROM orders WHERE activity_id = ? AND status = 'UNPAID'", activity))
                .isEqualTo(100);
        assertThat(rows.seckillStock(activity)).isZero();
        assertThat(lowestStock.get()).isGreaterThanOrEqualTo(0);

        // every layer counted what it stopped, and together they add up to the duplicates sent
        long gateway = counter("gateway", "window_duplicate") - gatewayBefore;
        long business = counter("business", "duplicate_token") - tokenBefore;
        assertThat(gateway + business).isEqualTo(duplicates);
        if (windowsFollowTheClock()) {
            assertThat(gateway).isEqualTo(300);
            assertThat(business).isEqualTo(300);
        }
        assertThat(counter("business", "executed") - executedBefore).isEqualTo(originals);
        assertThat(counter("data", "live_order_conflict") - liveBefore).isEqualTo(liveConflicts);
        assertThat(counter("data", "sold_out") - soldOutBefore).isEqualTo(soldOut + lateSoldOut);

        Response stats = api.get("/api/stats", sessions.get(0));
        assertThat(stats.status()).isEqualTo(200);
        assertThat(stats.json().path("oversell").path("ok").asBoolean()).isTrue();
        stats.json().path("activities").forEach(a -> {
            if (a.path("activityId").asLong() == activity) {
                assertThat(a.path("sold").asLong()).isEqualTo(100);
                assertThat(a.path("stockLeft").asInt()).isZero();
                assertThat(a.path("consistent").asBoolean()).isTrue();
            }
        });
    }

    private static List<Integer> shuffled(int n, Random random) {
        List<Integer> list = new ArrayList<>(IntStream.range(0, n).boxed().toList());
        Collections.shuffle(list, random);
        return list;
    }

    /** The groups in random order, each group's copies next to each other (sent at once). */
    private static <T> List<Callable<T>> flatten(List<List<Callable<T>>> groups, Random random) {
        List<List<Callable<T>>> shuffled = new ArrayList<>(groups);
        Collections.shuffle(shuffled, random);
        List<Callable<T>> tasks = new ArrayList<>();
        shuffled.forEach(tasks::addAll);
        return tasks;
    }

    // ---------------------------------------------------------------- payments and cancels

    protected String sign(String body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(paymentSecret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return java.util.HexFormat.of().formatHex(mac.doFinal(body.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    protected Response pay(String orderNo, String amount, String tradeNo) {
        String body = "{\"outTradeNo\":\"" + orderNo + "\",\"amount\":" + amount + ",\"tradeNo\":\"" + tradeNo + "\"}";
        return api.post("/api/payments/callback", null, body, "X-Signature", sign(body));
    }

    @Test
    void tenConcurrentIdenticalPaymentNoticesPayTheOrderOnce() throws Exception {
        Session buyer = api.login(user("pay"));
        long product = rows.createProduct("25.50", 100);
        String orderNo = api.order(buyer, Api.businessId(buyer), product, 2).text("orderNo");
        long repeatedBefore = counter("data", "repeated_payment_callback");

        List<Response> notices = Concurrently.times(10, () -> pay(orderNo, "51.00", "T-" + orderNo));

        assertThat(notices).allSatisfy(r -> {
            assertThat(r.status()).as(r.toString()).isEqualTo(200);
            assertThat(r.text("result")).isEqualTo("SUCCESS");
            assertThat(r.text("status")).isEqualTo("PAID");
        });
        assertThat(notices.stream().filter(r -> !r.json().path("duplicate").asBoolean())).hasSize(1);
        assertThat(rows.count("SELECT COUNT(*) FROM payment_notifications WHERE order_no = ?", orderNo)).isEqualTo(1);
        assertThat(rows.count("SELECT COUNT(*) FROM payment_notifications WHERE notification_id = ?", "T-" + orderNo + "_pay_callback"))
                .isEqualTo(1);
        assertThat(rows.status(orderNo)).isEqualTo("PAID");
        assertThat(counter("data", "repeated_payment_callback") - repeatedBefore).isEqualTo(9);
        Response order = api.get("/api/orders/" + orderNo, buyer);
        assertThat(order.text("status")).isEqualTo("PAID");
        assertThat(order.text("paidAt")).isNotNull();

        Response paidCancel = api.post("/api/orders/" + orderNo + "/cancel", buyer, null);
        assertThat(paidCancel.status()).isEqualTo(409);
        assertThat(paidCancel.problem()).isEqualTo("order-not-cancellable");
        assertThat(rows.status(orderNo)).isEqualTo("PAID");
        assertThat(rows.productStock(product)).isEqualTo(98);
    }

    @Test
    void everyDistinctPaymentIsRecordedOnceTheFirstPaysAndEachFurtherOneIsRefundedOnce() throws Exception {
        Session buyer = api.login(user("pay2"));
        long product = rows.createProduct("30.00", 100);
        String orderNo = api.order(buyer, Api.businessId(buyer), product, 1).text("orderNo");
        String first = "TA" + orderNo;
        String second = "TB" + orderNo;
        String third = "tb" + orderNo;
        long refundedBefore = counter("data", "second_payment_refunded");

        // two channels notify their payments at once, each several times
        List<Response> notices = Concurrently.map(24, java.util.stream.IntStream.range(0, 24).boxed().toList(),
                i -> pay(orderNo, "30.00", i % 3 == 0 ? first : i % 3 == 1 ? second : third));

        assertThat(notices).allSatisfy(r -> {
            assertThat(r.status()).as(r.toString()).isEqualTo(200);
            assertThat(r.text("result")).isEqualTo("SUCCESS");
            assertThat(r.text("status")).isEqualTo("PAID");
        });
        assertThat(notices).filteredOn(r -> !r.json().path("duplicate").asBoolean()).as("one first notice per payment").hasSize(3);
        assertThat(notices).filteredOn(r -> r.text("outcome").equals("PAID")).as("every notice of the paying payment")
                .hasSize(8);
        assertThat(rows.count("SELECT COUNT(*) FROM payment_notifications WHERE order_no = ?", orderNo)).isEqualTo(3);
        assertThat(rows.count("SELECT COUNT(*) FROM payment_notifications WHERE order_no = ? AND outcome = 'PAID'", orderNo))
                .isEqualTo(1);
        assertThat(rows.count("SELECT COUNT(*) FROM refunds WHERE order_no = ?", orderNo)).as("trade numbers differ by case too")
                .isEqualTo(2);
        assertThat(counter("data", "second_payment_refunded") - refundedBefore).isEqualTo(2);
        String paidBy = rows.text("SELECT trade_no FROM orders WHERE order_no = ?", orderNo);
        assertThat(List.of(first, second, third)).contains(paidBy);

        Response order = api.get("/api/orders/" + orderNo, buyer);
        assertThat(order.json().get("payments")).hasSize(3);
        List<String> outcomes = new java.util.ArrayList<>();
        order.json().get("payments").forEach(p -> outcomes.add(p.get("tradeNo").asString() + ":" + p.get("outcome").asString()));
        assertThat(outcomes).containsExactlyInAnyOrder(first + ":" + (paidBy.equals(first) ? "PAID" : "REFUND"),
                second + ":" + (paidBy.equals(second) ? "PAID" : "REFUND"), third + ":" + (paidBy.equals(third) ? "PAID" : "REFUND"));

        JsonNode listed = null;
        for (JsonNode item : api.get("/api/orders?limit=100", buyer).json()) {
            if (item.get("orderNo").asString().equals(orderNo)) {
                listed = item;
            }
        }
        // the shipment is made by an "order paid" consumer and may appear in between
        assertThat(listed).as("the order in the list").isNotNull();
        assertThat(((ObjectNode) listed.deepCopy()).without("shipmentNo"))
                .as("the list shows the order as GET does, payments included")
                .isEqualTo(((ObjectNode) order.json().deepCopy()).without("shipmentNo"));

        Response again = pay(orderNo, "30.00", second);
        assertThat(again.json().path("duplicate").asBoolean()).as("a repeat stays a no-op").isTrue();
        assertThat(rows.count("SELECT COUNT(*) FROM refunds WHERE order_no = ?", orderNo)).isEqualTo(2);
        Response stats = api.get("/api/stats", buyer);
        assertThat(stats.json().get("payments").get("refunds").asLong()).isGreaterThanOrEqualTo(2);

        String otherOrder = api.order(buyer, Api.businessId(buyer), product, 1).text("orderNo");
        Response stolen = pay(otherOrder, "30.00", first);
        assertThat(stolen.status()).as("a trade number belongs to one order").isEqualTo(409);
        assertThat(stolen.problem()).isEqualTo("trade-no-conflict");
        assertThat(rows.status(otherOrder)).isEqualTo("UNPAID");

        // the list reads payments and shipments for all its orders at once: each still shows its own
        awaitShipment(orderNo);
        JsonNode list = api.get("/api/orders?limit=2", buyer).json();
        assertThat(list).hasSize(2);
        assertThat(list.get(0)).as("newest first: the unpaid order, as GET shows it")
                .isEqualTo(api.get("/api/orders/" + otherOrder, buyer).json());
        assertThat(list.get(0).get("payments")).isEmpty();
        assertThat(list.get(1)).as("the paid order, as GET shows it").isEqualTo(api.get("/api/orders/" + orderNo, buyer).json());
        assertThat(list.get(1).get("payments")).hasSize(3);
        assertThat(list.get(1).get("shipmentNo").asString()).isNotBlank();
        Response tooMany = api.get("/api/orders?limit=101", buyer);
        assertThat(tooMany.json().path("errors").get(0).path("field").asString()).as(tooMany.toString()).isEqualTo("limit");
        assertThat(tooMany.json().path("errors").get(0).path("message").asString()).isEqualTo("must be at most 100");
    }

    private void awaitShipment(String orderNo) {
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30))
                .until(() -> rows.count("SELECT COUNT(*) FROM shipments WHERE order_no = ?", orderNo) == 1);
    }

    @Test
    void aPaidOrderCreditsPointsAndShipsOnceThroughTheMessageLayer() throws Exception {
        Session buyer = api.login(user("msg"));
        long product = rows.createProduct("7.25", 100);
        List<String> orderNos = new java.util.ArrayList<>();
        for (int i = 0; i < 4; i++) {
            orderNos.add(api.order(buyer, Api.businessId(buyer), product, 2).text("orderNo"));
        }
        // each notice three times, concurrently: one payment and one message per order
        List<Response> notices = Concurrently.map(12, java.util.stream.IntStream.range(0, 12).boxed().toList(),
                i -> pay(orderNos.get(i % 4), "14.50", "T-" + orderNos.get(i % 4)));
        assertThat(notices).allSatisfy(r -> assertThat(r.status()).as(r.toString()).isEqualTo(200));

        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).until(() ->
                rows.count("SELECT COUNT(*) FROM shipments WHERE user_id = ?", buyer.userId()) == 4
                        && api.get("/api/me", buyer).json().get("points").decimalValue().compareTo(new java.math.BigDecimal("58.00")) == 0);
        Response me = api.get("/api/me", buyer);
        assertThat(me.json().get("userId").asLong()).isEqualTo(buyer.userId());
        assertThat(me.json().get("points").decimalValue()).isEqualByComparingTo("58.00");
        for (String orderNo : orderNos) {
            assertThat(rows.count("SELECT COUNT(*) FROM onlyonce_message_log WHERE id = ?", orderNo + "_paid")).isEqualTo(1);
            Response order = api.get("/api/orders/" + orderNo, buyer);
            assertThat(order.text("shipmentNo")).as(orderNo).startsWith("S");
            assertThat(rows.count("SELECT COUNT(*) FROM onlyonce_inbox WHERE message_id = ?", orderNo + "_paid"))
                    .as("one inbox row per consumer").isEqualTo(2);
        }
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> rows.count(
                "SELECT COUNT(*) FROM onlyonce_message_log WHERE id IN (?, ?, ?, ?) AND status = 'SUCCESS'",
                orderNos.get(0) + "_paid", orderNos.get(1) + "_paid", orderNos.get(2) + "_paid", orderNos.get(3) + "_paid") == 4);
        Response stats = api.get("/api/stats", buyer);
        assertThat(stats.json().get("messages").get("sent").asLong()).isGreaterThanOrEqualTo(4);
        assertThat(stats.json().get("messages").get("failed").asLong()).isZero();
        assertThat(stats.json().get("messages").get("transport").asString()).isEqualTo(transport());
    }

    @Test
    void aPurchaseRefusedForItsMissingTokenDoesNotHoldTheWindowAgainstTheCorrectedOne() {
        Session buyer = api.login(user("fix"));
        long product = rows.createProduct("30.00", 0);
        long activity = rows.createActivity(product, "15.00", 5);
        Response noToken = api.post("/api/seckill/activities/" + activity + "/orders", buyer, "{\"quantity\":1}");
        assertThat(noToken.status()).as(noToken.toString()).isEqualTo(400);
        assertThat(noToken.problem()).isEqualTo("idempotency-token-missing");
        // at once, well inside the request window
        Response corrected = api.seckill(buyer, activity, api.token(buyer, activity));
        assertThat(corrected.status()).as(corrected.toString()).isEqualTo(201);
        assertThat(rows.seckillStock(activity)).isEqualTo(4);
    }

    @Test
    void paymentsOfACancelledOrderAreEachRefundedOnce() throws Exception {
        Session buyer = api.login(user("pay3"));
        long product = rows.createProduct("12.00", 100);
        String orderNo = api.order(buyer, Api.businessId(buyer), product, 1).text("orderNo");
        assertThat(api.post("/api/orders/" + orderNo + "/cancel", buyer, null).status()).isEqualTo(200);

        List<Response> notices = Concurrently.map(10, java.util.stream.IntStream.range(0, 10).boxed().toList(),
                i -> pay(orderNo, "12.00", (i % 2 == 0 ? "TX" : "TY") + orderNo));

        // the platform is told SUCCESS, or it would resend for ever; each distinct payment becomes one refund
        assertThat(notices).allSatisfy(r -> {
            assertThat(r.status()).as(r.toString()).isEqualTo(200);
            assertThat(r.text("result")).isEqualTo("SUCCESS");
            assertThat(r.text("status")).isEqualTo("CANCELLED");
            assertThat(r.text("outcome")).isEqualTo("REFUND");
        });
        assertThat(notices).filteredOn(r -> !r.json().get("duplicate").asBoolean()).hasSize(2);
        assertThat(rows.count("SELECT COUNT(*) FROM refunds WHERE order_no = ?", orderNo)).isEqualTo(2);
        assertThat(rows.count("SELECT COUNT(*) FROM payment_notifications WHERE order_no = ? AND outcome = 'REFUND'", orderNo))
                .isEqualTo(2);
        assertThat(rows.status(orderNo)).isEqualTo("CANCELLED");
    }

    @Test
    void paymentNoticesAreSignedAndMustMatchTheOrder() {
        Session buyer = api.login(user("pay"));
        long product = rows.createProduct("10.00", 100);
        String orderNo = api.order(buyer, Api.businessId(buyer), product, 1).text("orderNo");
        Map<String, Long> before = rows.snapshot();

        String body = "{\"outTradeNo\":\"" + orderNo + "\",\"amount\":10.00,\"tradeNo\":\"T1\"}";
        Response unsigned = api.post("/api/payments/callback", null, body);
        Response forged = api.post("/api/payments/callback", null, body, "X-Signature", sign(body + " "));
        Response wrongAmount = pay(orderNo, "1.00", "T1");
        Response unknown = pay("0ABCDEFGHJKMN", "10.00", "T1");

        assertThat(unsigned.status()).isEqualTo(401);
        assertThat(unsigned.problem()).isEqualTo("signature-invalid");
        assertThat(forged.status()).isEqualTo(401);
        assertThat(wrongAmount.status()).isEqualTo(400);
        assertThat(wrongAmount.problem()).isEqualTo("amount-mismatch");
        assertThat(wrongAmount.text("orderNo")).isEqualTo(orderNo);
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.problem()).isEqualTo("order-not-found");
        assertThat(rows.snapshot()).isEqualTo(before);
        assertThat(rows.status(orderNo)).isEqualTo("UNPAID");
    }

    @Test
    void cancelIsIdempotentReturnsStockOnceAndAllowsBuyingAgain() throws Exception {
        Session buyer = api.login(user("cx"));
        long product = rows.createProduct("100.00", 0);
        long activity = rows.createActivity(product, "50.00", 5);
        Response bought = api.seckill(buyer, activity, api.token(buyer, activity));
        assertThat(bought.status()).as(bought.toString()).isEqualTo(201);
        String orderNo = bought.text("orderNo");
        assertThat(rows.seckillStock(activity)).isEqualTo(4);
        long repeatedBefore = counter("data", "repeated_cancel");

        Response first = api.post("/api/orders/" + orderNo + "/cancel", buyer, null);
        Response second = api.post("/api/orders/" + orderNo + "/cancel", buyer, null);

        assertThat(first.status()).isEqualTo(200);
        assertThat(first.text("status")).isEqualTo("CANCELLED");
        assertThat(second.status()).isEqualTo(200);
        assertThat(second.body()).isEqualTo(first.body());
        assertThat(rows.seckillStock(activity)).isEqualTo(5);
        assertThat(counter("data", "repeated_cancel") - repeatedBefore).isEqualTo(1);

        // cancel and buy again, twice: cancelled orders never block a new one
        for (int i = 0; i < 2; i++) {
            nextWindow();
            Response again = api.seckill(buyer, activity, api.token(buyer, activity));
            assertThat(again.status()).as(again.toString()).isEqualTo(201);
            assertThat(rows.seckillStock(activity)).isEqualTo(4);
            String next = again.text("orderNo");
            List<Response> cancels = Concurrently.times(10, () -> api.post("/api/orders/" + next + "/cancel", buyer, null));
            assertThat(cancels).allSatisfy(r -> assertThat(r.text("status")).as(r.toString()).isEqualTo("CANCELLED"));
            assertThat(rows.seckillStock(activity)).isEqualTo(5);
        }
        assertThat(rows.count("SELECT COUNT(*) FROM orders WHERE activity_id = ? AND status = 'CANCELLED'", activity)).isEqualTo(3);

        // a payment that arrives after the cancel: SUCCESS to the platform, recorded once for a refund
        Response late = pay(orderNo, "50.00", "T-late");
        Response lateAgain = pay(orderNo, "50.00", "T-late");
        assertThat(late.status()).isEqualTo(200);
        assertThat(late.text("outcome")).isEqualTo("REFUND");
        assertThat(late.text("status")).isEqualTo("CANCELLED");
        assertThat(late.json().get("duplicate").asBoolean()).isFalse();
        assertThat(lateAgain.status()).isEqualTo(200);
        assertThat(lateAgain.json().get("duplicate").asBoolean()).isTrue();
        assertThat(rows.count("SELECT COUNT(*) FROM refunds WHERE order_no = ?", orderNo)).isEqualTo(1);
        assertThat(rows.count("SELECT COUNT(*) FROM payment_notifications WHERE order_no = ?", orderNo)).isEqualTo(1);
        assertThat(rows.status(orderNo)).isEqualTo("CANCELLED");
    }

    @Test
    void unpaidOrdersAreCancelledByTheSweeperAfterTheTimeout() {
        Session buyer = api.login(user("sw"));
        long product = rows.createProduct("8.00", 10);
        String unpaid = api.order(buyer, Api.businessId(buyer), product, 1).text("orderNo");
        String paid = api.order(buyer, Api.businessId(buyer), product, 1).text("orderNo");
        assertThat(pay(paid, "8.00", "T-sw").status()).isEqualTo(200);
        assertThat(rows.productStock(product)).isEqualTo(8);

        clock.advance(Duration.ofMinutes(14));
        sweeper.sweep();
        assertThat(rows.status(unpaid)).isEqualTo("UNPAID");

        clock.advance(Duration.ofMinutes(1).plusMillis(1));
        sweeper.sweep();
        assertThat(rows.status(unpaid)).isEqualTo("CANCELLED");
        assertThat(rows.status(paid)).isEqualTo("PAID");
        assertThat(rows.productStock(product)).isEqualTo(9);
        sweeper.sweep();
        assertThat(rows.productStock(product)).isEqualTo(9);
    }

    // ---------------------------------------------------------------- ownership

    @Test
    void usersSeeAndCancelOnlyTheirOwnOrders() {
        Session alice = api.login(user("alice"));
        Session bob = api.login(user("bob"));
        long product = rows.createProduct("3.00", 10);
        String aliceOrder = api.order(alice, Api.businessId(alice), product, 1).text("orderNo");
        String bobOrder = api.order(bob, Api.businessId(bob), product, 1).text("orderNo");

        Response peek = api.get("/api/orders/" + aliceOrder, bob);
        Response unknown = api.get("/api/orders/0ZZZZZZZZZZZZ", bob);
        Response cancel = api.post("/api/orders/" + aliceOrder + "/cancel", bob, null);

        assertThat(peek.status()).isEqualTo(404);
        assertThat(peek.problem()).isEqualTo("order-not-found");
        assertThat(peek.body()).doesNotContain(alice.username());
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(peek.json().path("detail")).isEqualTo(unknown.json().path("detail"));
        assertThat(cancel.status()).isEqualTo(404);
        assertThat(rows.status(aliceOrder)).isEqualTo("UNPAID");
        Response list = api.get("/api/orders", bob);
        List<String> listed = new ArrayList<>();
        list.json().forEach(o -> listed.add(o.path("orderNo").asString()));
        assertThat(listed).containsExactly(bobOrder);
    }

    // ---------------------------------------------------------------- bad input everywhere

    /** One bad request and what it must answer. */
    record Bad(String name, Callable<Response> request, int status, String problem) {
    }

    @Test
    void badInputToEveryEndpointIsA4xxProblemAndChangesNoRow() throws Exception {
        Session alice = api.login(user("bad"));
        Session bob = api.login(user("bad"));
        long product = rows.createProduct("12.00", 50);
        long activity = rows.createActivity(product, "6.00", 10);
        long otherActivity = rows.createActivity(product, "6.00", 10);
        String aliceOrder = api.order(alice, Api.businessId(alice), product, 1).text("orderNo");
        String aliceToken = api.token(alice, activity);
        String bobToken = api.token(bob, activity);
        nextWindow();
        String otherActivityToken = api.token(alice, otherActivity);
        String huge = "{\"productId\":" + product + ",\"quantity\":1,\"pad\":\"" + "x".repeat(17_000) + "\"}";
        String order = "{\"productId\":" + product + ",\"quantity\":1}";
        String id = Api.businessId(alice);
        String sale = "/api/seckill/activities/" + activity + "/orders";
        String notice = "{\"outTradeNo\":\"" + aliceOrder + "\",\"amount\":\"twelve\",\"tradeNo\":\"T\"}";
        nextWindow();
        Map<String, Long> before = rows.snapshot();

        List<Bad> cases = List.of(
                new Bad("no token", () -> api.get("/api/products", null), 401, "unauthorized"),
                new Bad("garbage token", () -> api.get("/api/orders", new Session("x.y.z", 0, "x")), 401, "access-token-invalid"),
                new Bad("login malformed", () -> api.post("/api/login", null, "{\"username\":"), 400, "malformed-request"),
                new Bad("login wrong type", () -> api.post("/api/login", null, "{\"username\":[1]}"), 400, "malformed-request"),
                new Bad("login bad name", () -> api.post("/api/login", null, "{\"username\":\"a b;--\"}"), 400, "validation-failed"),
                new Bad("login long name", () -> api.post("/api/login", null, "{\"username\":\"" + "a".repeat(33) + "\"}"), 400, "validation-failed"),
                new Bad("login empty", () -> api.post("/api/login", null, "{}"), 400, "validation-failed"),
                new Bad("order malformed", () -> api.post("/api/orders", alice, "{\"productId\":", "Idempotency-Key", id), 400, "malformed-request"),
                new Bad("order wrong type", () -> api.post("/api/orders", alice, "{\"productId\":\"one\",\"quantity\":1}", "Idempotency-Key", id), 400, "malformed-request"),
                new Bad("order array", () -> api.post("/api/orders", alice, "[1,2]", "Idempotency-Key", id), 400, "malformed-request"),
                new Bad("order huge", () -> api.post("/api/orders", alice, huge, "Idempotency-Key", id), 413, "payload-too-large"),
                new Bad("order no body", () -> api.post("/api/orders", alice, "", "Idempotency-Key", id), 400, "malformed-request"),
                new Bad("order text", () -> api.send(api.request("POST", "/api/orders", alice, "x", "Idempotency-Key", id, "Content-Type", "text/plain")), 415, "unsupported-media-type"),
                new Bad("order quantity 0", () -> api.order(alice, id, product, 0), 400, "validation-failed"),
                new Bad("order quantity 11", () -> api.order(alice, id, product, 11), 400, "validation-failed"),
                new Bad("order unknown product", () -> api.order(alice, id, 987_654_321L, 1), 404, "product-not-found"),
                new Bad("order no key", () -> api.post("/api/orders", alice, order), 400, "idempotency-key-missing"),
                new Bad("order two keys", () -> api.send(api.request("POST", "/api/orders", alice, order).header("Idempotency-Key", id).header("Idempotency-Key", id)), 400, "idempotency-key-invalid"),
                new Bad("order bad business id", () -> api.order(alice, "order-1", product, 1), 400, "business-id-invalid"),
                new Bad("order business id too long", () -> api.order(alice, "u" + alice.userId() + "_1700000000000_abcdefg", product, 1), 400, "business-id-invalid"),
                new Bad("order business id of bob", () -> api.order(alice, Api.businessId(bob), product, 1), 403, "business-id-forbidden"),
                new Bad("seckill no token", () -> api.post(sale, alice, "{\"quantity\":1}"), 400, "idempotency-token-missing"),
                new Bad("seckill forged token", () -> api.seckill(alice, activity, "A".repeat(98)), 400, "idempotency-token-invalid"),
                new Bad("seckill bob's token", () -> api.seckill(alice, activity, bobToken), 403, "idempotency-token-mismatch"),
                new Bad("seckill other activity's token", () -> api.seckill(alice, activity, otherActivityToken), 403, "idempotency-token-mismatch"),
                new Bad("seckill malformed", () -> api.post(sale, alice, "{\"quantity\":", "Idempotency-Token", aliceToken), 400, "malformed-request"),
                new Bad("seckill quantity 2", () -> api.post(sale, alice, "{\"quantity\":2}", "Idempotency-Token", aliceToken), 400, "validation-failed"),
                new Bad("seckill wrong type", () -> api.post(sale, alice, "{\"productId\":true}", "Idempotency-Token", aliceToken), 400, "malformed-request"),
                new Bad("seckill huge", () -> api.post(sale, alice, huge, "Idempotency-Token", aliceToken), 413, "payload-too-large"),
                new Bad("seckill unknown activity", () -> api.seckill(alice, 987_654_321L, aliceToken), 403, "idempotency-token-mismatch"),
                new Bad("token unknown activity", () -> api.post("/api/seckill/activities/987654321/tokens", alice, null), 404, "activity-not-found"),
                new Bad("token activity not a number", () -> api.post("/api/seckill/activities/abc/tokens", alice, null), 400, "malformed-request"),
                new Bad("activity unknown", () -> api.get("/api/seckill/activities/987654321", alice), 404, "activity-not-found"),
                new Bad("order of bob", () -> api.get("/api/orders/" + aliceOrder, bob), 404, "order-not-found"),
                new Bad("order unknown", () -> api.get("/api/orders/NOSUCHORDER", alice), 404, "order-not-found"),
                new Bad("cancel bob's", () -> api.post("/api/orders/" + aliceOrder + "/cancel", bob, null), 404, "order-not-found"),
                new Bad("cancel unknown", () -> api.post("/api/orders/" + "9".repeat(40) + "/cancel", alice, null), 404, "order-not-found"),
                new Bad("list limit not a number", () -> api.get("/api/orders?limit=lots", alice), 400, "malformed-request"),
                new Bad("order gzip-encoded", () -> api.send(api.request("POST", "/api/orders", alice, order,
                        "Idempotency-Key", Api.businessId(alice), "Content-Encoding", "gzip")), 415, "unsupported-media-type"),
                new Bad("list limit 0", () -> api.get("/api/orders?limit=0", alice), 400, "validation-failed"),
                new Bad("list limit 101", () -> api.get("/api/orders?limit=101", alice), 400, "validation-failed"),
                new Bad("list limit beyond an int", () -> api.get("/api/orders?limit=99999999999", alice), 400, "validation-failed"),
                new Bad("activity id beyond a long", () -> api.get("/api/seckill/activities/99999999999999999999", alice), 400,
                        "validation-failed"),
                new Bad("payment unsigned", () -> api.post("/api/payments/callback", null, notice), 401, "signature-invalid"),
                new Bad("payment wrong type", () -> api.post("/api/payments/callback", null, notice, "X-Signature", sign(notice)), 400, "malformed-request"),
                new Bad("payment malformed", () -> api.post("/api/payments/callback", null, "{", "X-Signature", sign("{")), 400, "malformed-request"),
                new Bad("payment missing fields", () -> api.post("/api/payments/callback", null, "{}", "X-Signature", sign("{}")), 400, "validation-failed"),
                new Bad("payment huge", () -> api.post("/api/payments/callback", null, huge, "X-Signature", sign(huge)), 413, "payload-too-large"),
                new Bad("unknown path", () -> api.get("/api/nothing-here", alice), 404, "not-found"),
                new Bad("wrong method", () -> api.send(api.request("DELETE", "/api/products", alice, null)), 405, "method-not-allowed"));

        nextWindow();
        Response emptyName = api.post("/api/login", null, "{\"username\":\"\"}");
        assertThat(emptyName.problem()).isEqualTo("validation-failed");
        assertThat(emptyName.json().path("errors")).as("one error for one wrong field").hasSize(1);
        Response hugeLimit = api.send(api.request("GET", "/api/orders?limit=99999999999", alice, null, "Accept-Language", "zh-CN"));
        assertThat(hugeLimit.json().path("errors").toString()).isEqualTo("[{\"field\":\"limit\",\"message\":\"不能大于 100\"}]");
        assertThat(api.get("/api/orders?limit=-99999999999", alice).json().path("errors").toString())
                .isEqualTo("[{\"field\":\"limit\",\"message\":\"must be at least 1\"}]");
        assertThat(api.get("/api/orders?limit=0x1FFFFFFFF", alice).json().path("errors").toString())
                .as("hexadecimal, which Spring reads too").isEqualTo("[{\"field\":\"limit\",\"message\":\"must be at most 100\"}]");
        assertThat(api.get("/api/orders?limit=0x10", alice).status()).isEqualTo(200);
        assertThat(api.get("/api/seckill/activities/99999999999999999999", alice).json().path("errors").toString())
                .isEqualTo("[{\"field\":\"activityId\",\"message\":\"is outside the range of numbers this field accepts\"}]");
        Response gzipAnonymous = api.send(api.request("POST", "/api/orders", null, order, "Content-Encoding", "gzip"));
        assertThat(gzipAnonymous.status()).as("authentication first").isEqualTo(401);
        Response gzipped = api.send(api.request("POST", "/api/orders", alice, order, "Idempotency-Key", Api.businessId(alice),
                "Content-Encoding", "gzip"));
        assertThat(gzipped.header("Accept-Encoding")).isEqualTo("identity");
        assertThat(gzipped.header("X-Content-Type-Options")).as("the security headers too").isEqualTo("nosniff");
        Response noBody = api.send(api.request("GET", "/api/products", alice, null, "Content-Encoding", "gzip"));
        assertThat(noBody.status()).as("a request without a body passes whatever its Content-Encoding says").isEqualTo(200);
        for (Bad bad : cases) {
            nextWindow();
            Response response = bad.request().call();
            assertThat(response.status()).as(bad.name() + ": " + response).isEqualTo(bad.status());
            assertThat(response.header("Content-Type")).as(bad.name()).startsWith("application/problem+json");
            assertThat(response.problem()).as(bad.name() + ": " + response).isEqualTo(bad.problem());
            assertThat(response.json().path("title").asString()).as(bad.name()).isNotBlank();
            assertThat(response.json().path("status").asInt()).as(bad.name()).isEqualTo(bad.status());
            assertThat(response.body()).as(bad.name())
                    .doesNotContainIgnoringCase("exception").doesNotContainIgnoringCase("sql")
                    .doesNotContain("org.springframework").doesNotContain("java.").doesNotContain("\tat ");
            assertThat(response.header("X-Request-ID")).as(bad.name()).isNotBlank();
        }
        assertThat(rows.snapshot()).isEqualTo(before);

        // the tokens that met a refused request were not consumed: they still buy
        nextWindow();
        Response bought = api.seckill(alice, activity, aliceToken);
        assertThat(bought.status()).as(bought.toString()).isEqualTo(201);
    }

    @Test
    void problemsSpeakTheCallersLanguageAndCarryTheRequestId() {
        Response zh = api.send(api.request("GET", "/api/products", null, null, "Accept-Language", "zh-CN,zh;q=0.9",
                "X-Request-ID", "trace-42"));
        Response en = api.send(api.request("GET", "/api/products", null, null, "X-Request-ID", "x".repeat(65)));

        assertThat(zh.status()).isEqualTo(401);
        assertThat(zh.json().path("title").asString()).isEqualTo("需要登录");
        assertThat(zh.header("X-Request-ID")).isEqualTo("trace-42");
        assertThat(en.json().path("title").asString()).isEqualTo("Authentication required");
        assertThat(en.header("X-Request-ID")).hasSize(36).isNotEqualTo("x".repeat(65));
        // the first accepted language the service speaks, not the first accepted language
        Response frenchFirst = api.send(api.request("GET", "/api/products", null, null,
                "Accept-Language", "fr-FR, fr;q=0.9, zh;q=0.5"));
        assertThat(frenchFirst.json().path("title").asString()).isEqualTo("需要登录");

        Session buyer = api.login(user("zh"));
        Response soldOutZh = api.send(api.request("POST", "/api/orders", buyer, "{\"productId\":1,\"quantity\":0}",
                "Idempotency-Key", Api.businessId(buyer), "Accept-Language", "zh"));
        assertThat(soldOutZh.json().path("title").asString()).isEqualTo("请求无效");
        assertThat(soldOutZh.json().path("errors").get(0).path("message").asString()).isEqualTo("不能小于 1");
    }
}
