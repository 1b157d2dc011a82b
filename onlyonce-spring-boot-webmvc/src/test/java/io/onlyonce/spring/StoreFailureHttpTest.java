package io.onlyonce.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.onlyonce.spring.testapp.OrderController;
import java.net.http.HttpResponse;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

/** STRICT store failures over HTTP without a real server: the stores fail on demand. */
@SwitchableStoresHttpTest
class StoreFailureHttpTest {


    @LocalServerPort
    int port;

    @Autowired
    OrderController orders;

    @Autowired
    MeterRegistry meters;

    Http http;

    @BeforeEach
    void setUp() {
        http = new Http(port);
        orders.reset();
    }

    @AfterEach
    void heal() {
        SwitchableStores.heal();
    }

    static String order() {
        return "{\"item\":\"" + UUID.randomUUID() + "\",\"quantity\":1,\"businessId\":\"b-1\"}";
    }

    double storeErrors(String endpoint) {
        Counter counter = meters.find("onlyonce.requests")
                .tags("layer", "business", "outcome", "store_error", "endpoint", endpoint).counter();
        return counter == null ? 0 : counter.count();
    }

    String token() {
        HttpResponse<String> issued = http.send(http.post("/idempotency/tokens?scope=seckill", "alice", ""));
        assertThat(issued.statusCode()).isEqualTo(201);
        return JsonDoc.parse(issued.body()).get("token").asString();
    }

    static void assertUnavailable(HttpResponse<String> response) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(503);
        assertThat(response.headers().firstValue("Retry-After")).contains("5");
        JsonDoc problem = JsonDoc.parse(response.body());
        assertThat(problem.get("type").asString()).isEqualTo("urn:onlyonce:problem:idempotency-store-unavailable");
        assertThat(response.body()).doesNotContainIgnoringCase("redis").doesNotContainIgnoringCase("connection")
                .doesNotContain("Exception").doesNotContain("6379");
    }

    @Test
    void aProtectedRequestIsRefusedWith503AndDoesNotRun() {
        double errors = storeErrors("POST /orders");
        SwitchableStores.RECORDS_FAILING.set(true);
        assertUnavailable(http.send(http.post("/orders", "alice", order()).header("Idempotency-Key", "k-" + UUID.randomUUID())));
        assertThat(orders.executions("orders")).isZero();
        assertThat(storeErrors("POST /orders")).isEqualTo(errors + 1);
    }

    @Test
    void issuingOrConsumingATokenWithoutItsStoreIs503() {
        String token = token();
        SwitchableStores.TOKENS_FAILING.set(true);
        assertUnavailable(http.send(http.post("/idempotency/tokens?scope=seckill", "alice", "")));
        assertUnavailable(http.send(http.post("/seckill", "alice", order()).header("Idempotency-Token", token)));
        assertThat(orders.executions("seckill")).isZero();
        SwitchableStores.heal();
        assertThat(http.send(http.post("/seckill", "alice", order()).header("Idempotency-Token", token)).statusCode())
                .as("the token was never consumed").isEqualTo(201);
    }

    @Test
    void aTokenConsumedForARequestThatCouldNotRunIsGivenBack() {
        String token = token();
        SwitchableStores.RECORDS_FAILING.set(true);
        assertUnavailable(http.send(http.post("/seckill", "alice", order()).header("Idempotency-Token", token)));
        assertThat(orders.executions("seckill")).isZero();
        SwitchableStores.heal();
        HttpResponse<String> retry = http.send(http.post("/seckill", "alice", order()).header("Idempotency-Token", token));
        assertThat(retry.statusCode()).as("the retry that the 503 asked for runs").isEqualTo(201);
        assertThat(orders.executions("seckill")).isEqualTo(1);
    }
}
