package io.onlyonce.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class MicrometerRequestDedupMetricsTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MicrometerRequestDedupMetrics metrics = new MicrometerRequestDedupMetrics(registry);

    @Test
    void decisionsAreCountedPerRouteAndOutcome() {
        metrics.count("orders", RequestDedupMetrics.Outcome.PASSED);
        metrics.count("orders", RequestDedupMetrics.Outcome.PASSED);
        metrics.count("orders", RequestDedupMetrics.Outcome.DUPLICATE);
        metrics.count("payments", RequestDedupMetrics.Outcome.PASSED);

        assertThat(registry.get("onlyonce.gateway.requests").tags("route", "orders", "outcome", "passed").counter().count())
                .isEqualTo(2.0);
        assertThat(registry.get("onlyonce.gateway.requests").tags("route", "orders", "outcome", "duplicate").counter().count())
                .isEqualTo(1.0);
        assertThat(registry.get("onlyonce.gateway.requests").tags("route", "payments", "outcome", "passed").counter().count())
                .isEqualTo(1.0);
        assertThat(registry.get("onlyonce.gateway.requests").counters()).hasSize(3);
    }

    @Test
    void storeCallsAreTimedPerRouteAndResult() {
        metrics.storeCall("orders", Duration.ofMillis(2), true);
        metrics.storeCall("orders", Duration.ofMillis(4), true);
        metrics.storeCall("orders", Duration.ofMillis(2000), false);
        metrics.storeCall("payments", Duration.ofMillis(3), true);

        assertThat(registry.get("onlyonce.gateway.store.calls").tags("route", "orders", "result", "ok").timer().count())
                .isEqualTo(2);
        assertThat(registry.get("onlyonce.gateway.store.calls").tags("route", "orders", "result", "error").timer().count())
                .isEqualTo(1);
        assertThat(registry.get("onlyonce.gateway.store.calls").tags("route", "payments", "result", "ok").timer().count())
                .isEqualTo(1);
    }
}
