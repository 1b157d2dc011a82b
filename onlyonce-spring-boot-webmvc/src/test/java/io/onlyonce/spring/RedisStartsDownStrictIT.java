package io.onlyonce.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * STRICT: the application starts while Redis is down; a protected request is refused with 503
 * within the store's budget and does not run, and the health indicator is DOWN. Once Redis comes
 * up, requests are protected again without a restart and the indicator is UP.
 */
class RedisStartsDownStrictIT extends AbstractRedisDefaultSettingsIT {

    @Test
    void startsWhileRedisIsDownRefusesWithinTheBudgetAndRecoversOnceRedisIsUp() throws Exception {
        HttpResponse<String> refused = orderWhileRedisIsDown().response();

        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(503);
        assertThat(refused.body()).contains("urn:onlyonce:problem:idempotency-store-unavailable");
        assertThat(orders.executions("orders")).as("nothing ran").isZero();

        assertRecoversOnceRedisIsUp();
    }
}
