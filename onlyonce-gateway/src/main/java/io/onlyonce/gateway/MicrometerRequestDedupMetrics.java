package io.onlyonce.gateway;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * {@link RequestDedupMetrics} in Micrometer: the counter {@code onlyonce.gateway.requests} (tags
 * {@code route}, {@code outcome}: passed, duplicate, keyed_retry, fail_open, too_large,
 * business_id_invalid) and
 * the timer {@code onlyonce.gateway.store.calls} (tags {@code route}, {@code result}: ok, error). Each
 * meter is looked up in the registry once and kept (one removed from the registry afterwards is not
 * registered again).
 */
public final class MicrometerRequestDedupMetrics implements RequestDedupMetrics {

    private record Decision(String routeId, Outcome outcome) {
    }

    private record StoreCall(String routeId, boolean success) {
    }

    private final MeterRegistry registry;
    private final ConcurrentMap<Decision, Counter> requests = new ConcurrentHashMap<>();
    private final ConcurrentMap<StoreCall, Timer> storeCalls = new ConcurrentHashMap<>();

    public MicrometerRequestDedupMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void count(String routeId, Outcome outcome) {
        requests.computeIfAbsent(new Decision(routeId, outcome), d -> Counter.builder("onlyonce.gateway.requests")
                .description("Requests decided by the gateway de-dup window")
                .tag("route", d.routeId()).tag("outcome", d.outcome().tag())
                .register(registry)).increment();
    }

    @Override
    public void storeCall(String routeId, Duration elapsed, boolean success) {
        storeCalls.computeIfAbsent(new StoreCall(routeId, success), c -> Timer.builder("onlyonce.gateway.store.calls")
                .description("Window store (Redis) calls of the gateway")
                .tag("route", c.routeId()).tag("result", c.success() ? "ok" : "error")
                .register(registry)).record(elapsed);
    }
}
