package io.onlyonce.example.seckill.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.example.seckill.SeckillApplication;
import io.onlyonce.example.seckill.support.Api.Response;
import io.onlyonce.example.seckill.support.Api.Session;
import io.onlyonce.example.seckill.support.Api;
import io.onlyonce.example.seckill.support.Concurrently;
import io.onlyonce.example.seckill.support.Rows;
import io.onlyonce.example.seckill.support.TestClockConfiguration;
import io.onlyonce.spring.metrics.OnlyOnceStatistics;
import io.onlyonce.testing.MutableClock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.annotation.DirtiesContext;

/**
 * The idempotency store loses every record in the middle of a run (Redis FLUSHALL, a restarted
 * memory store): requests it no longer recognises execute again, and the database's unique
 * business id turns each into 409 {@code order-exists} with the existing order number. Never a
 * second order, never a 500.
 */
@SpringBootTest(classes = SeckillApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "seckill.order.sweeper-enabled=false")
@Import(TestClockConfiguration.class)
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
public abstract class AbstractStoreFlushScenario {

    @LocalServerPort
    int port;

    @Autowired
    MutableClock clock;

    @Autowired
    JdbcClient jdbc;

    @Autowired
    OnlyOnceStatistics statistics;

    /** Drops every record of the idempotency store. */
    protected abstract void flushIdempotencyStore();

    @Test
    void flushingTheIdempotencyStoreMidRunNeverMakesASecondOrder() throws Exception {
        Api api = new Api(port);
        Rows rows = new Rows(jdbc, clock);
        Session buyer = api.login("flush-" + UUID.randomUUID().toString().substring(0, 8));
        long product = rows.createProduct("5.00", 10_000);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            ids.add(Api.businessId(buyer));
        }
        record Sent(String businessId, Response response) {
        }
        List<Callable<Sent>> tasks = new ArrayList<>();
        for (String id : ids) {
            for (int copy = 0; copy < 4; copy++) {
                tasks.add(() -> new Sent(id, api.order(buyer, id, product, 1)));
            }
        }
        Collections.shuffle(tasks, new Random(7));
        AtomicInteger done = new AtomicInteger();
        List<Callable<Sent>> flushing = tasks.stream().<Callable<Sent>>map(task -> () -> {
            Sent sent = task.call();
            if (done.incrementAndGet() == tasks.size() / 2) {
                flushIdempotencyStore();
            }
            return sent;
        }).toList();
        long duplicatesBefore = statistics.count("data", "duplicate_business_id");

        List<Sent> sent = Concurrently.run(50, flushing);

        Map<String, String> stored = new HashMap<>();
        for (String id : ids) {
            assertThat(rows.count("SELECT COUNT(*) FROM orders WHERE business_id = ?", id)).as(id).isEqualTo(1);
            stored.put(id, jdbc.sql("SELECT order_no FROM orders WHERE business_id = ?").param(id).query(String.class).single());
        }
        assertThat(rows.productStock(product)).isEqualTo(10_000 - 100);
        for (Sent s : sent) {
            Response r = s.response();
            assertThat(r.status()).as(r.toString()).isIn(201, 409);
            if (r.status() == 201) {
                assertThat(r.text("orderNo")).isEqualTo(stored.get(s.businessId()));
            } else if (r.problem().equals("order-exists")) {
                assertThat(r.text("orderNo")).isEqualTo(stored.get(s.businessId()));
            } else {
                assertThat(r.problem()).as(r.toString()).isEqualTo("idempotency-request-in-progress");
            }
        }

        // the store forgets everything once more: every retry now reaches the database, which says 409 with the order
        flushIdempotencyStore();
        List<Response> retries = Concurrently.map(50, ids, id -> api.order(buyer, id, product, 1));
        for (int i = 0; i < ids.size(); i++) {
            Response r = retries.get(i);
            assertThat(r.status()).as(r.toString()).isEqualTo(409);
            assertThat(r.problem()).isEqualTo("order-exists");
            assertThat(r.text("orderNo")).isEqualTo(stored.get(ids.get(i)));
        }
        assertThat(rows.count("SELECT COUNT(*) FROM orders WHERE user_id = ?", buyer.userId())).isEqualTo(100);
        assertThat(rows.productStock(product)).isEqualTo(10_000 - 100);
        assertThat(statistics.count("data", "duplicate_business_id") - duplicatesBefore).isGreaterThanOrEqualTo(100);
    }
}
