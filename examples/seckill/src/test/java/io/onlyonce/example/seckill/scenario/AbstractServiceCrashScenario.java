package io.onlyonce.example.seckill.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.onlyonce.example.seckill.support.ServiceProcess;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The message layer when the service dies: 500 orders are paid, 30 % of the payment notifications
 * twice, and the service process is killed with SIGKILL while notices and messages are in flight,
 * then started again; the payment platform (this test) keeps resending what got no answer. After
 * the outbox drains, every user's points equal the sum of their paid orders' amounts and every paid
 * order has exactly one shipment: nothing lost, nothing twice.
 */
abstract class AbstractServiceCrashScenario {

    static final int ORDERS = 500;
    static final JsonMapper JSON = JsonMapper.builder().build();
    static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** The service's arguments (profiles, database, broker, secrets). */
    protected abstract List<String> arguments();

    /** A JDBC connection to the service's database, for the test's own reads and setup. */
    protected abstract Connection connect() throws Exception;

    /** The payment platform's signing secret the service is started with. */
    protected abstract String paymentSecret();

    /** A name for the log file. */
    protected abstract String name();

    /** Checks, after the run, that the {@code orders} "order paid" messages went through the broker. */
    protected void assertTheBrokerCarried(int orders) throws Exception {
    }

    private static HttpResponse<String> send(HttpRequest request) throws Exception {
        return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static String sign(String secret, String body) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        return HexFormat.of().formatHex(mac.doFinal(body.getBytes(StandardCharsets.UTF_8)));
    }

    record Buyer(long userId, String token) {
    }

    record Placed(String orderNo, BigDecimal amount) {
    }

    @Test
    void killedMidRunTheServiceCreditsEveryPaidOrderOnceAndShipsItOnce() throws Exception {
        String run = UUID.randomUUID().toString().substring(0, 6);
        List<String> arguments = new ArrayList<>(arguments());
        arguments.addAll(List.of("--seckill.limits.enabled=false", "--onlyonce.messaging.relay.lease=5s",
                "--onlyonce.messaging.relay.publish-timeout=3s", "--onlyonce.messaging.relay.poll-interval=500ms",
                "--onlyonce.dedup.enabled=false", "--logging.level.root=WARN"));
        try (ServiceProcess service = ServiceProcess.of(name(), arguments, Map.of())) {
            service.start();
            long productId = Math.abs(new Random().nextLong() % 1_000_000_000L) + 1_000_000L;
            try (Connection db = connect(); Statement sql = db.createStatement()) {
                sql.executeUpdate("INSERT INTO products (id, name, price, stock, version) VALUES (" + productId
                        + ", 'crash test " + run + "', 3.10, 100000, 0)");
            }
            List<Buyer> buyers = new ArrayList<>();
            for (int i = 0; i < 25; i++) {
                HttpResponse<String> login = send(HttpRequest.newBuilder(URI.create(service.baseUrl() + "/api/login"))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"username\":\"crash" + run + "u" + i + "\"}")).build());
                assertThat(login.statusCode()).as(login.body()).isEqualTo(200);
                JsonNode body = JSON.readTree(login.body());
                buyers.add(new Buyer(body.get("userId").asLong(), body.get("accessToken").asString()));
            }
            List<Placed> orders = new ArrayList<>();
            for (int i = 0; i < ORDERS; i++) {
                Buyer buyer = buyers.get(i % buyers.size());
                int quantity = 1 + i % 3;
                String key = "u" + buyer.userId() + "_" + (System.currentTimeMillis() + i) + "_" + String.format("%06d", i).replace('0', 'a');
                HttpResponse<String> placed = send(HttpRequest.newBuilder(URI.create(service.baseUrl() + "/api/orders"))
                        .header("Authorization", "Bearer " + buyer.token()).header("Idempotency-Key", key)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"productId\":" + productId + ",\"quantity\":" + quantity + "}"))
                        .build());
                assertThat(placed.statusCode()).as(placed.body()).isEqualTo(201);
                JsonNode order = JSON.readTree(placed.body());
                orders.add(new Placed(order.get("orderNo").asString(), order.get("amount").decimalValue()));
            }

            // the payment platform: every order once, 30 % twice, in random order, until each notice got a 2xx
            List<String> notices = new ArrayList<>();
            for (int i = 0; i < orders.size(); i++) {
                Placed order = orders.get(i);
                String body = "{\"outTradeNo\":\"" + order.orderNo() + "\",\"amount\":" + order.amount().toPlainString()
                        + ",\"tradeNo\":\"T" + order.orderNo() + "\"}";
                notices.add(body);
                if (i % 10 < 3) {
                    notices.add(body);
                }
            }
            Collections.shuffle(notices, new Random(42));
            ConcurrentLinkedQueue<String> pending = new ConcurrentLinkedQueue<>(notices);
            AtomicInteger answered = new AtomicInteger();
            ExecutorService platform = Executors.newFixedThreadPool(8);
            for (int t = 0; t < 8; t++) {
                platform.submit(() -> {
                    String body;
                    while ((body = pending.poll()) != null) {
                        while (true) {
                            try {
                                HttpResponse<String> response = send(HttpRequest.newBuilder(
                                                URI.create(service.baseUrl() + "/api/payments/callback"))
                                        .timeout(Duration.ofSeconds(10))
                                        .header("Content-Type", "application/json")
                                        .header("X-Signature", sign(paymentSecret(), body))
                                        .POST(HttpRequest.BodyPublishers.ofString(body)).build());
                                if (response.statusCode() == 200) {
                                    answered.incrementAndGet();
                                    break;
                                }
                            } catch (Exception serviceDown) {
                                // the platform retries until it gets an answer
                            }
                            Thread.sleep(200);
                        }
                    }
                    return null;
                });
            }
            await().atMost(Duration.ofMinutes(2)).until(() -> answered.get() >= notices.size() * 2 / 5);
            service.kill();
            Thread.sleep(1_000);
            service.start();
            platform.shutdown();
            assertThat(platform.awaitTermination(5, TimeUnit.MINUTES)).as("every notice answered").isTrue();
            assertThat(answered.get()).isEqualTo(notices.size());

            try (Connection db = connect()) {
                await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofSeconds(1)).until(() ->
                        count(db, "SELECT COUNT(*) FROM onlyonce_message_log WHERE status <> 'SUCCESS'") == 0
                                && count(db, "SELECT COUNT(*) FROM shipments s JOIN orders o ON o.order_no = s.order_no"
                                        + " WHERE o.product_id = " + productId) == ORDERS);
                assertThat(count(db, "SELECT COUNT(*) FROM orders WHERE product_id = " + productId + " AND status = 'PAID'"))
                        .isEqualTo(ORDERS);
                assertThat(count(db, "SELECT COUNT(*) FROM onlyonce_message_log m JOIN orders o ON m.id = "
                        + concat(db, "o.order_no", "'_paid'") + " WHERE o.product_id = " + productId)).isEqualTo(ORDERS);
                assertThat(count(db, "SELECT COUNT(*) FROM (SELECT s.order_no FROM shipments s JOIN orders o ON o.order_no = s.order_no"
                        + " WHERE o.product_id = " + productId + " GROUP BY s.order_no HAVING COUNT(*) > 1) doubled")).isZero();
                for (Buyer buyer : buyers) {
                    BigDecimal paid = decimal(db, "SELECT COALESCE(SUM(amount), 0) FROM orders WHERE status = 'PAID' AND user_id = "
                            + buyer.userId());
                    BigDecimal points = decimal(db, "SELECT points FROM users WHERE id = " + buyer.userId());
                    assertThat(points).as("points of user %d", buyer.userId()).isEqualByComparingTo(paid);
                }
            }
            assertTheBrokerCarried(ORDERS);
        }
    }

    private static String concat(Connection db, String a, String b) throws Exception {
        return db.getMetaData().getDatabaseProductName().toLowerCase().contains("maria")
                || db.getMetaData().getDatabaseProductName().toLowerCase().contains("mysql")
                ? "CONCAT(" + a + ", " + b + ")" : a + " || " + b;
    }

    private static long count(Connection db, String query) throws Exception {
        try (Statement sql = db.createStatement(); ResultSet row = sql.executeQuery(query)) {
            row.next();
            return row.getLong(1);
        }
    }

    private static BigDecimal decimal(Connection db, String query) throws Exception {
        try (Statement sql = db.createStatement(); ResultSet row = sql.executeQuery(query)) {
            row.next();
            return row.getBigDecimal(1);
        }
    }

    /** A plain JDBC connection. */
    protected static Connection jdbc(String url, String user, String password) throws Exception {
        return DriverManager.getConnection(url, user, password);
    }
}
