package io.onlyonce.spring;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * STRICT, Spring Boot's default Redis settings, Redis killed after the connection was made (Lettuce
 * then queues commands while it reconnects, and would answer after 60 s): twelve requests at once
 * are each refused with 503 within the budget. The log says once that the store is unavailable,
 * with no stack trace and no claim that a key was completed.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedisOutageDefaultSettingsStrictIT extends AbstractRedisDefaultSettingsIT {

    @Test
    void twelveParallelRequestsAre503WithinTheBudgetAndTheLogSaysSoOnce(CapturedOutput output) throws Exception {
        Outage outage = ordersAfterRedisDies(12, output);

        assertAllWithinBudget(outage.answers(), 503);
        assertThat(outage.answers()).allSatisfy(answer -> assertThat(answer.response().body())
                .contains("urn:onlyonce:problem:idempotency-store-unavailable"));
        assertThat(orders.executions("orders")).as("only the request before the outage ran").isEqualTo(1);
        assertOutageLog(outage.log());
    }
}
