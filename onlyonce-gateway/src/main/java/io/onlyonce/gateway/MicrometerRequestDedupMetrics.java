package io.onlyonce.gateway;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;

/**
 * {@link RequestDedupMetrics} in Micrometer: the counter {@code onlyonce.gateway.requests} (tags
 * {@code route}, {@code outcome}: passed, duplicate, fail_open, too_large, business_id_invalid) and
 * the timer {@code onlyonce.gateway.store.calls} (tags {@code route}, {@code result}: ok, error).
 */
public final class MicrometerRequestDedupMetrics implements RequestDedupMetrics {

    private final MeterRegistry registry;

    public MicrometerRequestDedupMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void count(String routeId, Outcome outcome) {
        Counter.builder("onlyonce.gateway.requests").description("Requests decided by the gateway de-dup window")
                .tag("route", routeId).tag("outcome", outcome.tag())
                .register(registry).increment();
    }

    @Override
    public void storeCall(String routeId, Duration elapsed, boolean success) {
        Timer.builder("onlyonce.gateway.store.calls").description("Window store (Redis) calls of the gateway")
                .tag("route", routeId).tag("result", success ? "ok" : "error")
                .register(registry).record(elapsed);
    }
}
