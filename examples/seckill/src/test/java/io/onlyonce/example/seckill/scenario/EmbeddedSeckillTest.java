package io.onlyonce.example.seckill.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.example.seckill.support.Api.Response;
import io.onlyonce.example.seckill.support.Api.Session;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.TestPropertySource;

/** The scenarios on the embedded default: H2 and the in-memory OnlyOnce stores. */
// the scenarios drive the layers behind the abuse limits (one user sending 100 requests at once, tokens
// fetched after a sale sold out): AbstractSafetyScenarios tests the limits
@TestPropertySource(properties = {"spring.datasource.url=jdbc:h2:mem:seckill-embedded;DB_CLOSE_DELAY=-1",
    "seckill.limits.enabled=false"})
class EmbeddedSeckillTest extends AbstractSeckillScenarios {

    @Override
    protected boolean windowsFollowTheClock() {
        return true;
    }

    @Test
    void prometheusShowsWhatEachLayerStoppedAndTheStockLeft() {
        Session buyer = api.login(user("metrics"));
        long product = rows.createProduct("2.00", 0);
        long activity = rows.createActivity(product, "1.00", 1);
        String token = api.token(buyer, activity);
        assertThat(api.seckill(buyer, activity, token).status()).isEqualTo(201);
        assertThat(api.seckill(buyer, activity, token).status()).isEqualTo(429);
        nextWindow();
        assertThat(api.seckill(buyer, activity, token).problem()).isEqualTo("duplicate-submission");
        nextWindow();
        assertThat(api.seckill(buyer, activity, api.token(buyer, activity)).problem()).isEqualTo("live-order-exists");

        Response scrape = api.get("/actuator/prometheus", null);

        assertThat(scrape.status()).isEqualTo(200);
        assertThat(scrape.body().lines().filter(l -> l.startsWith("onlyonce_requests_total{")))
                .anySatisfy(l -> assertThat(l).contains("layer=\"gateway\"", "outcome=\"window_duplicate\"").doesNotEndWith(" 0.0"))
                .anySatisfy(l -> assertThat(l).contains("layer=\"business\"", "outcome=\"duplicate_token\"").doesNotEndWith(" 0.0"))
                .anySatisfy(l -> assertThat(l).contains("layer=\"data\"", "outcome=\"live_order_conflict\"").doesNotEndWith(" 0.0"));
        assertThat(scrape.body()).contains("seckill_orders{status=\"UNPAID\"}", "seckill_stock_left{activity=\"1\",product=\"1\"}");
        Response stats = api.get("/api/stats", buyer);
        assertThat(stats.json().path("duplicatesStopped").path("gateway").asLong()).isPositive();
        assertThat(stats.json().path("duplicatesStopped").path("business").asLong()).isPositive();
        assertThat(stats.json().path("duplicatesStopped").path("data").asLong()).isPositive();
    }
}
