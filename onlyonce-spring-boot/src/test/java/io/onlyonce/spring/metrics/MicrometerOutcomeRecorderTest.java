package io.onlyonce.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.onlyonce.StoreUnavailableException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class MicrometerOutcomeRecorderTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MicrometerOutcomeRecorder recorder = new MicrometerOutcomeRecorder(registry);

    @Test
    void everyOutcomeIsCountedUnderItsOwnTags() {
        recorder.record("business", "executed", "POST /orders");
        recorder.record("business", "executed", "POST /orders");
        recorder.record("business", "replayed", "POST /orders");
        recorder.record("window", "executed", "POST /orders");
        recorder.record("business", "executed", "POST /payments");

        assertThat(registry.get("onlyonce.requests").tags("layer", "business", "outcome", "executed", "endpoint", "POST /orders")
                .counter().count()).isEqualTo(2.0);
        assertThat(registry.get("onlyonce.requests").tags("layer", "business", "outcome", "replayed").counter().count())
                .isEqualTo(1.0);
        assertThat(registry.get("onlyonce.requests").tags("layer", "window").counter().count()).isEqualTo(1.0);
        assertThat(registry.get("onlyonce.requests").tags("layer", "business", "outcome", "executed", "endpoint", "POST /payments")
                .counter().count()).isEqualTo(1.0);
        assertThat(registry.get("onlyonce.requests").counters()).hasSize(4);
    }

    @Test
    void storeCallsAndErrorsArePerOperation() {
        recorder.onStoreCall("claim", Duration.ofMillis(3));
        recorder.onStoreCall("claim", Duration.ofMillis(5));
        recorder.onStoreCall("complete", Duration.ofMillis(1));
        recorder.onStoreError("claim", new StoreUnavailableException("claim", new IllegalStateException("down")));

        assertThat(registry.get("onlyonce.store.calls").tag("operation", "claim").timer().count()).isEqualTo(2);
        assertThat(registry.get("onlyonce.store.calls").tag("operation", "claim").timer().totalTime(TimeUnit.MILLISECONDS))
                .isEqualTo(8.0);
        assertThat(registry.get("onlyonce.store.calls").tag("operation", "complete").timer().count()).isEqualTo(1);
        assertThat(registry.get("onlyonce.store.errors").tag("operation", "claim").counter().count()).isEqualTo(1.0);
        assertThat(registry.find("onlyonce.store.errors").tag("operation", "complete").counter()).isNull();
    }
}
