package io.onlyonce.spring;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.test.context.TestPropertySource;

/**
 * PERMISSIVE, Spring Boot's default Redis settings, Redis killed after the connection was made:
 * twelve requests at once each run unprotected, answered within the budget rather than after
 * Lettuce's 60 s; the log says once that the store is unavailable, with no stack trace.
 */
@ExtendWith(OutputCaptureExtension.class)
@TestPropertySource(properties = "onlyonce.key.store-failure-policy=permissive")
class RedisOutageDefaultSettingsPermissiveIT extends AbstractRedisDefaultSettingsIT {

    @Test
    void twelveParallelRequestsRunWithinTheBudgetAndTheLogSaysSoOnce(CapturedOutput output) throws Exception {
        Outage outage = ordersAfterRedisDies(12, output);

        assertAllWithinBudget(outage.answers(), 201);
        assertThat(orders.executions("orders")).as("the one before the outage and the twelve unprotected").isEqualTo(13);
        assertOutageLog(outage.log());
    }
}
