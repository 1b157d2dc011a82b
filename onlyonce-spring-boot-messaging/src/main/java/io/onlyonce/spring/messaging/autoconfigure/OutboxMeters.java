package io.onlyonce.spring.messaging.autoconfigure;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.onlyonce.messaging.OutboxBacklog;
import io.onlyonce.messaging.OutboxRelay;
import io.onlyonce.spring.metrics.PeriodicSample;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * The outbox's backlog as gauges, per destination (tags {@code exchange}, {@code routing_key}):
 * {@code onlyonce.outbox.waiting} (rows still to be sent), {@code onlyonce.outbox.oldest.age} (how
 * long the oldest of them has waited, seconds) and {@code onlyonce.outbox.failed} (FAILED rows).
 * The table is read every interval in the background ({@link OutboxRelay#backlog}, bounded by the
 * interval), never at scrape time; while a read fails or has not come back, every gauge reads NaN. A
 * destination keeps its gauges once seen (0 when nothing waits), so that a rate or a comparison over
 * time has a series to work on.
 */
public final class OutboxMeters implements AutoCloseable {

    private record Destination(String exchange, String routingKey) {
    }

    private static final OutboxBacklog NOTHING = new OutboxBacklog("", "", 0, 0, 0);

    private final MeterRegistry registry;
    private final PeriodicSample<Map<Destination, OutboxBacklog>> sample;
    private final Set<Destination> registered = ConcurrentHashMap.newKeySet();

    private OutboxMeters(OutboxRelay relay, MeterRegistry registry, Duration interval) {
        this.registry = registry;
        this.sample = new PeriodicSample<>("outbox", interval,
                () -> relay.backlog(interval).stream().collect(Collectors.toMap(
                        b -> new Destination(b.exchange(), b.routingKey()), b -> b)),
                backlog -> backlog.keySet().forEach(this::register));
    }

    /**
     * Binds the gauges of {@code relay}'s outbox to {@code registry} and starts reading it every
     * {@code interval}.
     *
     * @param known destinations registered at once, as {@code [exchange, routingKey]} (those the
     *     application's consumers listen to, say)
     */
    public static OutboxMeters bind(OutboxRelay relay, MeterRegistry registry, Duration interval, List<List<String>> known) {
        OutboxMeters meters = new OutboxMeters(relay, registry, interval);
        known.forEach(d -> meters.register(new Destination(d.get(0), d.get(1))));
        meters.sample.start();
        return meters;
    }

    private void register(Destination destination) {
        if (!registered.add(destination)) {
            return;
        }
        Tags tags = Tags.of("exchange", destination.exchange(), "routing_key", destination.routingKey());
        Gauge.builder("onlyonce.outbox.waiting", this, gauge(destination, OutboxBacklog::waiting))
                .description("Outbox rows waiting to be sent (PREPARED and SENDING)").tags(tags).register(registry);
        TimeGauge.builder("onlyonce.outbox.oldest.age", this, TimeUnit.MILLISECONDS,
                        gauge(destination, OutboxBacklog::oldestWaitingAgeMillis))
                .description("How long the oldest outbox row waiting to be sent has waited").tags(tags).register(registry);
        Gauge.builder("onlyonce.outbox.failed", this, gauge(destination, OutboxBacklog::failed))
                .description("Outbox rows given up on (FAILED), waiting for a resubmit").tags(tags).register(registry);
    }

    private static ToDoubleFunction<OutboxMeters> gauge(Destination destination, ToDoubleFunction<OutboxBacklog> value) {
        return meters -> meters.sample.gauge(backlog -> value.applyAsDouble(backlog.getOrDefault(destination, NOTHING)));
    }

    @Override
    public void close() {
        sample.close();
    }
}
