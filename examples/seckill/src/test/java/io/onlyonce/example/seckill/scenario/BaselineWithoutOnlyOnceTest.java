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
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.annotation.DirtiesContext;

/**
 * {@code seckill.onlyonce.enabled=false} (the benchmark's baseline): no request window, no
 * {@code @Idempotent}; duplicates reach the database, whose unique keys alone keep them out.
 */
@SpringBootTest(classes = SeckillApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"seckill.onlyonce.enabled=false", "onlyonce.dedup.enabled=false", "seckill.limits.enabled=false",
            "seckill.order.sweeper-enabled=false",
            "spring.datasource.url=jdbc:h2:mem:seckill-baseline;DB_CLOSE_DELAY=-1"})
@Import(TestClockConfiguration.class)
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
class BaselineWithoutOnlyOnceTest {

    @LocalServerPort
    int port;

    @Autowired
    MutableClock clock;

    @Autowired
    JdbcClient jdbc;

    @Autowired
    OnlyOnceStatistics statistics;

    @Test
    void onlyTheDataLayerStopsDuplicates() throws Exception {
        Api api = new Api(port);
        Rows rows = new Rows(jdbc, clock);
        Session buyer = api.login("baseline");
        long product = rows.createProduct("9.00", 100);
        long activity = rows.createActivity(product, "1.00", 10);
        String businessId = Api.businessId(buyer);
        String token = api.token(buyer, activity);

        List<Response> orders = Concurrently.times(20, () -> api.order(buyer, businessId, product, 1));
        List<Response> buys = Concurrently.times(20, () -> api.seckill(buyer, activity, token));

        assertThat(orders.stream().filter(r -> r.status() == 201)).hasSize(1);
        assertThat(orders.stream().filter(r -> r.status() != 201))
                .allSatisfy(r -> assertThat(r.problem()).as(r.toString()).isIn("order-exists", "order-conflict"));
        assertThat(buys.stream().filter(r -> r.status() == 201)).hasSize(1);
        assertThat(buys.stream().filter(r -> r.status() != 201))
                .allSatisfy(r -> assertThat(r.problem()).as(r.toString()).isIn("order-exists", "live-order-exists", "order-conflict"));
        assertThat(rows.count("SELECT COUNT(*) FROM orders WHERE user_id = ?", buyer.userId())).isEqualTo(2);
        assertThat(rows.productStock(product)).isEqualTo(99);
        assertThat(rows.seckillStock(activity)).isEqualTo(9);
        assertThat(statistics.count("gateway", "window_duplicate") + statistics.count("business", "executed")).isZero();
        assertThat(statistics.count("data", "duplicate_business_id") + statistics.count("data", "live_order_conflict"))
                .isGreaterThanOrEqualTo(1);
        assertThat(api.order(buyer, businessId, product, 1).problem()).isEqualTo("order-exists");
    }
}
