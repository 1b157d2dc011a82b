package io.onlyonce.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.TestPropertySource;

/**
 * PERMISSIVE: the application starts while Redis is down; a protected request runs unprotected,
 * within the store's budget, and the health indicator is DOWN. Once Redis comes up, requests are
 * protected again without a restart and the indicator is UP.
 */
@TestPropertySource(properties = "onlyonce.key.store-failure-policy=permissive")
class RedisStartsDownPermissiveIT extends AbstractRedisDefaultSettingsIT {

    @Test
    void startsWhileRedisIsDownRunsUnprotectedWithinTheBudgetAndRecoversOnceRedisIsUp() throws Exception {
        HttpResponse<String> executed = orderWhileRedisIsDown().response();

        assertThat(executed.statusCode()).as(executed.body()).isEqualTo(201);
        assertThat(executed.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(orders.executions("orders")).isEqualTo(1);

        assertRecoversOnceRedisIsUp();
    }
}
