package io.onlyonce.example.seckill.fastpath;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.onlyonce.example.seckill.SeckillApplication;
import io.onlyonce.example.seckill.order.OrderService;
import io.onlyonce.example.seckill.support.Api;
import io.onlyonce.example.seckill.support.PostgresAndRedis;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The fast path over real HTTP on PostgreSQL (a database of this class alone) and the shared Redis
 * (a key prefix of its own): 202 and the reservation to follow, its owner only, sold out decided in
 * Redis without a database row, repeated purchases answered with the same reservation, and every
 * cancelled or timed-out order's unit back in Redis exactly once, also when its message is
 * delivered again past the inbox.
 */
@SpringBootTest(classes = SeckillApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"seckill.order.sweeper-enabled=false", "seckill.limits.enabled=false", "onlyonce.dedup.enabled=false",
            "seckill.fast-path.reconcile-interval=500ms", "onlyonce.messaging.relay.poll-interval=200ms"})
@ActiveProfiles({"postgres", "redis"})
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
class FastPathHttpIT {

    static final PostgresAndRedis SERVERS = PostgresAndRedis.fresh();
    static final AtomicLong ACTIVITIES = new AtomicLong(100);

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry registry) {
        SERVERS.register(registry);
    }

    @AfterAll
    static void drop() {
        SERVERS.drop();
    }

    @LocalServerPort
    int port;

    @Autowired
    JdbcClient jdbc;

    @Autowired
    StringRedisTemplate redis;

    @Autowired
    OrderService orders;

    Api api;

    @BeforeEach
    void api() {
        api = new Api(port);
    }

    long sale(int stock) {
        return runningSale(jdbc, ACTIVITIES.incrementAndGet(), stock);
    }

    /** Sale {@code id}, running now, of product 1 with {@code stock} units. */
    static long runningSale(JdbcClient jdbc, long id, int stock) {
        jdbc.sql("INSERT INTO seckill_activities (id, name, starts_at, ends_at) VALUES (?, ?, ?, ?)")
                .params(id, "fast " + id, Instant.now().minusSeconds(60).toEpochMilli(),
                        Instant.now().plus(Duration.ofDays(1)).toEpochMilli()).update();
        jdbc.sql("INSERT INTO seckill_stock (activity_id, product_id, price, initial_stock, stock) VALUES (?, 1, ?, ?, ?)")
                .params(id, new BigDecimal("9.90"), stock, stock).update();
        return id;
    }

    Api.Session user(String name) {
        return api.login(name + "-" + ACTIVITIES.get() + "-" + System.nanoTime() % 100_000);
    }

    String redisStock(long activity) {
        return String.valueOf(redis.opsForHash().get(SERVERS.prefix() + "fast:{a" + activity + "}:stock", "1"));
    }

    long dbStock(long activity) {
        return jdbc.sql("SELECT stock FROM seckill_stock WHERE activity_id = ?").param(activity).query(Long.class).single();
    }

    Api.Response buy(Api.Session user, long activity) {
        return api.seckill(user, activity, api.token(user, activity));
    }

    /** Follows the reservation until it is decided. */
    Api.Response decided(Api.Session user, String reservationId) {
        Api.Response[] last = new Api.Response[1];
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> {
            last[0] = api.get("/api/seckill/reservations/" + reservationId, user);
            return last[0].status() == 200 && !last[0].text("status").equals("QUEUED");
        });
        return last[0];
    }

    @Test
    void purchaseIsAcceptedWithAReservationThatBecomesTheOrder() {
        long sale = sale(10);
        Api.Session buyer = user("fp-buyer");
        Api.Response accepted = buy(buyer, sale);

        assertThat(accepted.status()).as(accepted.toString()).isEqualTo(202);
        String id = accepted.text("reservationId");
        assertThat(accepted.header("Location")).isEqualTo("/api/seckill/reservations/" + id);
        assertThat(accepted.text("status")).isEqualTo("QUEUED");
        assertThat(id).startsWith(sale + "-").contains("-" + buyer.userId() + "-");

        Api.Response ordered = decided(buyer, id);
        assertThat(ordered.text("status")).isEqualTo("ORDERED");
        String orderNo = ordered.text("orderNo");
        Api.Response order = api.get("/api/orders/" + orderNo, buyer);
        assertThat(order.status()).isEqualTo(200);
        assertThat(order.text("status")).isEqualTo("UNPAID");
        assertThat(order.json().get("activityId").asLong()).isEqualTo(sale);
        assertThat(dbStock(sale)).isEqualTo(9);
        assertThat(redisStock(sale)).isEqualTo("9");
        assertThat(jdbc.sql("SELECT business_id FROM orders WHERE order_no = ?").param(orderNo).query(String.class).single())
                .isEqualTo("rsv_" + id);
    }

    @Test
    void onlyItsOwnerSeesAReservation() {
        long sale = sale(10);
        Api.Session buyer = user("fp-owner");
        String id = buy(buyer, sale).text("reservationId");

        Api.Response other = api.get("/api/seckill/reservations/" + id, user("fp-other"));
        assertThat(other.status()).isEqualTo(404);
        assertThat(other.problem()).isEqualTo("reservation-not-found");
        assertThat(other.body()).doesNotContain("QUEUED").doesNotContain("status\":\"");
        assertThat(api.get("/api/seckill/reservations/not-a-reservation", buyer).problem()).isEqualTo("reservation-not-found");
        assertThat(api.get("/api/seckill/reservations/" + id, null).status()).isEqualTo(401);
        // a well-formed id of the buyer that was never made here
        String forged = sale + "-" + id.split("-")[1] + "-" + buyer.userId() + "-0AAAAAAAAAAAA";
        assertThat(api.get("/api/seckill/reservations/" + forged, buyer).problem()).isEqualTo("reservation-not-found");
    }

    @Test
    void aRepeatedPurchaseIsAnsweredWithTheSameReservationOrItsOrderAndTakesNoSecondUnit() {
        long sale = sale(10);
        Api.Session buyer = user("fp-repeat");
        String token = api.token(buyer, sale);
        Api.Response first = api.seckill(buyer, sale, token);
        Api.Response sameToken = api.seckill(buyer, sale, token);
        Api.Response newToken = buy(buyer, sale);

        assertThat(first.status()).isEqualTo(202);
        assertThat(sameToken.problem()).isEqualTo("duplicate-submission");
        String orderNo = decided(buyer, first.text("reservationId")).text("orderNo");
        if (newToken.status() == 202) {
            // still queued when it was asked: the same reservation
            assertThat(newToken.text("reservationId")).isEqualTo(first.text("reservationId"));
        } else {
            assertThat(newToken.problem()).as(newToken.toString()).isEqualTo("live-order-exists");
            assertThat(newToken.text("orderNo")).isEqualTo(orderNo);
        }
        Api.Response later = buy(buyer, sale);
        assertThat(later.problem()).isEqualTo("live-order-exists");
        assertThat(later.text("orderNo")).isEqualTo(orderNo);
        assertThat(api.get("/api/stats", buyer).json().path("duplicatesStopped").path("fastpath").asLong()).isPositive();
        assertThat(redisStock(sale)).isEqualTo("9");
        assertThat(dbStock(sale)).isEqualTo(9);
        assertThat(jdbc.sql("SELECT COUNT(*) FROM orders WHERE activity_id = ?").param(sale).query(Long.class).single()).isEqualTo(1);
    }

    @Test
    void soldOutIsDecidedInRedisWithoutADatabaseRow() {
        long sale = sale(2);
        List<Api.Response> answers = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            answers.add(buy(user("fp-sold" + i), sale));
        }
        assertThat(answers.stream().filter(a -> a.status() == 202)).hasSize(2);
        assertThat(answers.stream().filter(a -> a.status() == 409)).allSatisfy(a -> assertThat(a.problem()).isEqualTo("sold-out"))
                .hasSize(3);
        // the live stock shown is what Redis still sells, at once (the database follows as the queue drains)
        assertThat(api.get("/api/seckill/activities/" + sale, user("fp-viewer")).json().path("products").get(0).path("stock").asInt()).isZero();
        await().atMost(Duration.ofSeconds(30)).until(() -> dbStock(sale) == 0);
        assertThat(jdbc.sql("SELECT COUNT(*) FROM seckill_reservations WHERE activity_id = ?").param(sale).query(Long.class)
                .single()).isEqualTo(2);
        assertThat(redisStock(sale)).isEqualTo("0");
    }

    @Test
    void aCancelledOrderGivesItsUnitBackToRedisOnceAlsoWhenItsMessageComesAgain() {
        long sale = sale(5);
        Api.Session buyer = user("fp-cancel");
        String id = buy(buyer, sale).text("reservationId");
        String orderNo = decided(buyer, id).text("orderNo");
        assertThat(redisStock(sale)).isEqualTo("4");

        assertThat(api.post("/api/orders/" + orderNo + "/cancel", buyer, null).status()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(30)).until(() -> redisStock(sale).equals("5"));
        assertThat(api.post("/api/orders/" + orderNo + "/cancel", buyer, null).status()).isEqualTo(200);
        assertThat(dbStock(sale)).isEqualTo(5);

        // the message sent again: first the inbox stops it, then (inbox row gone) the Redis returned set does
        redeliver(orderNo + "_stock_returned", false);
        redeliver(orderNo + "_stock_returned", true);
        assertThat(redisStock(sale)).isEqualTo("5");
        assertThat(dbStock(sale)).isEqualTo(5);

        // the buyer's mark is free again: they may buy once more
        Api.Response again = buy(buyer, sale);
        assertThat(again.status()).as(again.toString()).isEqualTo(202);
        assertThat(again.text("reservationId")).isNotEqualTo(id);
        assertThat(decided(buyer, again.text("reservationId")).text("status")).isEqualTo("ORDERED");
        assertThat(redisStock(sale)).isEqualTo("4");
    }

    @Test
    void anUnpaidOrderThatTimesOutGivesItsUnitBackOnce() {
        long sale = sale(5);
        Api.Session buyer = user("fp-timeout");
        String orderNo = decided(buyer, buy(buyer, sale).text("reservationId")).text("orderNo");

        Instant cutoff = Instant.now().plus(Duration.ofHours(1));
        assertThat(orders.cancelExpired(orderNo, cutoff)).isTrue();
        assertThat(orders.cancelExpired(orderNo, cutoff)).isFalse();
        await().atMost(Duration.ofSeconds(30)).until(() -> redisStock(sale).equals("5"));
        redeliver(orderNo + "_stock_returned", true);
        assertThat(redisStock(sale)).isEqualTo("5");
        assertThat(dbStock(sale)).isEqualTo(5);
    }

    /** The relay sends message {@code id} again (with its consumer's inbox row deleted first, if {@code pastInbox}). */
    void redeliver(String id, boolean pastInbox) {
        long processed = inboxRows(id);
        assertThat(processed).isEqualTo(1);
        if (pastInbox) {
            jdbc.sql("DELETE FROM onlyonce_inbox WHERE message_id = ?").param(id).update();
        }
        jdbc.sql("UPDATE onlyonce_message_log SET status = 'PREPARED', sent_at_ms = NULL, next_attempt_at_ms = 0 WHERE id = ?")
                .param(id).update();
        await().atMost(Duration.ofSeconds(30)).until(() -> inboxRows(id) == 1
                && "SUCCESS".equals(jdbc.sql("SELECT status FROM onlyonce_message_log WHERE id = ?").param(id)
                        .query(String.class).single()));
    }

    long inboxRows(String id) {
        return jdbc.sql("SELECT COUNT(*) FROM onlyonce_inbox WHERE message_id = ?").param(id).query(Long.class).single();
    }
}
