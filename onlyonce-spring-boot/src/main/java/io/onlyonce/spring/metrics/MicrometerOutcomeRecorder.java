package io.onlyonce.spring.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.engine.IdempotencyListener;
import java.time.Duration;

/**
 * Micrometer binding: counter {@code onlyonce.requests} tagged {@code layer}, {@code outcome},
 * {@code endpoint}; timer {@code onlyonce.store.calls} tagged {@code operation}; counter
 * {@code onlyonce.store.errors} tagged {@code operation}.
 */
public final class MicrometerOutcomeRecorder implements OutcomeRecorder, IdempotencyListener {

    private final MeterRegistry registry;

    public MicrometerOutcomeRecorder(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void record(String layer, String outcome, String endpoint) {
        Counter.builder("onlyonce.requests")
                .description("Requests decided by each OnlyOnce layer")
                .tag("layer", layer).tag("outcome", outcome).tag("endpoint", endpoint)
                .register(registry).increment();
    }

    @Override
    public void onStoreCall(String operation, Duration elapsed) {
        Timer.builder("onlyonce.store.calls").description("Idempotency store calls")
                .tag("operation", operation).register(registry).record(elapsed);
    }

    @Override
    public void onStoreError(String operation, StoreUnavailableException error) {
        Counter.builder("onlyonce.store.errors").description("Failed idempotency store calls")
                .tag("operation", operation).register(registry).increment();
    }
}
