package io.onlyonce.spring.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.engine.IdempotencyListener;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Micrometer binding: counter {@code onlyonce.requests} tagged {@code layer}, {@code outcome},
 * {@code endpoint}; timer {@code onlyonce.store.calls} tagged {@code operation}; counter
 * {@code onlyonce.store.errors} tagged {@code operation}. Each meter is looked up in the registry once
 * and kept: a request records several outcomes and store calls, and a registry lookup builds and
 * filters the meter's id every time. Tags are layers, outcomes, route templates and store
 * operations, so the meters are few; one removed from the registry afterwards is not registered again.
 */
public final class MicrometerOutcomeRecorder implements OutcomeRecorder, IdempotencyListener {

    private record Outcome(String layer, String outcome, String endpoint) {
    }

    private final MeterRegistry registry;
    private final ConcurrentMap<Outcome, Counter> requests = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Timer> storeCalls = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Counter> storeErrors = new ConcurrentHashMap<>();

    public MicrometerOutcomeRecorder(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void record(String layer, String outcome, String endpoint) {
        requests.computeIfAbsent(new Outcome(layer, outcome, endpoint), o -> Counter.builder("onlyonce.requests")
                .description("Requests decided by each OnlyOnce layer")
                .tag("layer", o.layer()).tag("outcome", o.outcome()).tag("endpoint", o.endpoint())
                .register(registry)).increment();
    }

    @Override
    public void onStoreCall(String operation, Duration elapsed) {
        storeCalls.computeIfAbsent(operation, o -> Timer.builder("onlyonce.store.calls")
                .description("Idempotency store calls").tag("operation", o).register(registry)).record(elapsed);
    }

    @Override
    public void onStoreError(String operation, StoreUnavailableException error) {
        storeErrors.computeIfAbsent(operation, o -> Counter.builder("onlyonce.store.errors")
                .description("Failed idempotency store calls").tag("operation", o).register(registry)).increment();
    }
}
