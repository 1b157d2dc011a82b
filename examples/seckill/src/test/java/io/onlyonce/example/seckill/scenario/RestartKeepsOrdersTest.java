package io.onlyonce.example.seckill.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.example.seckill.SeckillApplication;
import io.onlyonce.example.seckill.support.Api.Response;
import io.onlyonce.example.seckill.support.Api.Session;
import io.onlyonce.example.seckill.support.Api;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The embedded default keeps its orders across a restart (H2 file database); the in-memory
 * idempotency store does not, and the database still refuses the same business id again.
 */
class RestartKeepsOrdersTest {

    @TempDir
    Path directory;

    private ConfigurableApplicationContext start() {
        return new SpringApplicationBuilder(SeckillApplication.class).run(
                "--server.port=0",
                "--spring.datasource.url=jdbc:h2:file:" + directory.resolve("seckill").toAbsolutePath(),
                "--seckill.order.sweeper-enabled=false");
    }

    private static Api api(ConfigurableApplicationContext context) {
        return new Api(Integer.parseInt(context.getEnvironment().getProperty("local.server.port")));
    }

    @Test
    void ordersSurviveARestartAndTheirBusinessIdsStayTaken() {
        String orderNo;
        String businessId;
        Session first;
        try (ConfigurableApplicationContext context = start()) {
            Api api = api(context);
            first = api.login("restart");
            businessId = Api.businessId(first);
            Response created = api.order(first, businessId, 2, 1);
            assertThat(created.status()).as(created.toString()).isEqualTo(201);
            orderNo = created.text("orderNo");
            assertThat(api.get("/api/seckill/activities/1", first).status()).isEqualTo(200);
        }

        try (ConfigurableApplicationContext context = start()) {
            Api api = api(context);
            Session again = api.login("restart");
            assertThat(again.userId()).isEqualTo(first.userId());
            Response order = api.get("/api/orders/" + orderNo, again);
            assertThat(order.status()).isEqualTo(200);
            assertThat(order.text("businessId")).isEqualTo(businessId);
            assertThat(order.text("status")).isEqualTo("UNPAID");
            assertThat(api.get("/api/products", again).json().get(1).path("stock").asInt()).isEqualTo(999);

            Response retry = api.order(again, businessId, 2, 1);
            assertThat(retry.status()).isEqualTo(409);
            assertThat(retry.problem()).isEqualTo("order-exists");
            assertThat(retry.text("orderNo")).isEqualTo(orderNo);
            assertThat(api.get("/api/orders", again).json()).hasSize(1);
        }
    }
}
