package io.onlyonce.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/** STRICT (the default): with Redis gone, a protected request is refused with 503 and does not run. */
class RedisOutageStrictIT extends AbstractRedisOutageIT {

    @Test
    void whenRedisDiesAProtectedPostIs503AndTheMethodDoesNotRun() throws Exception {
        assertThat(order().statusCode()).isEqualTo(201);
        assertThat(orders.executions("orders")).isEqualTo(1);
        double errors = storeErrors();

        killRedis();
        HttpResponse<String> refused = order();

        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(503);
        assertThat(refused.headers().firstValue("Retry-After")).contains("5");
        assertThat(refused.headers().firstValue("Content-Type")).hasValueSatisfying(
                t -> assertThat(t).startsWith("application/problem+json"));
        JsonDoc problem = JsonDoc.parse(refused.body());
        assertThat(problem.get("type").asString()).isEqualTo("urn:onlyonce:problem:idempotency-store-unavailable");
        assertThat(problem.get("status").asInt()).isEqualTo(503);
        assertThat(refused.body()).doesNotContainIgnoringCase("redis").doesNotContainIgnoringCase("lettuce")
                .doesNotContainIgnoringCase("connection").doesNotContain("Exception");
        assertThat(orders.executions("orders")).as("the method did not run").isEqualTo(1);
        assertThat(storeErrors()).isEqualTo(errors + 1);

        HttpResponse<String> token = http.send(http.post("/idempotency/tokens?scope=seckill", "alice", ""));
        assertThat(token.statusCode()).as("issuing a token needs the store too").isEqualTo(503);
        assertThat(token.headers().firstValue("Retry-After")).isPresent();
        assertThat(token.body()).doesNotContainIgnoringCase("redis").doesNotContainIgnoringCase("connection")
                .doesNotContain("Exception");
    }
}
