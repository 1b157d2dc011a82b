package io.onlyonce.example.seckill.fastpath;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.onlyonce.spring.metrics.PeriodicSample;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * The fast path's queue per running sale (tag {@code activity}): {@code seckill.fastpath.queue.length}
 * (reservations queued or being written), {@code seckill.fastpath.queue.pending} (taken by a
 * consumer, not settled yet) and {@code seckill.fastpath.queue.lag} (how long the oldest has waited,
 * seconds, on the Redis server's clock). Read in the background every interval, one read-only script
 * per sale; a scrape reads memory, and reads NaN while Redis or the database cannot be read. A sale
 * keeps its gauges once seen (0 when its queue is empty or the sale is over).
 */
public class QueueMeters implements AutoCloseable {

    private static final RedisStock.QueueState EMPTY = new RedisStock.QueueState(0, 0, 0);

    private final MeterRegistry registry;
    private final PeriodicSample<Map<Long, RedisStock.QueueState>> sample;
    private final Set<Long> registered = ConcurrentHashMap.newKeySet();

    public QueueMeters(RedisStock stock, ReservationRepository repository, Clock clock, MeterRegistry registry,
            Duration interval) {
        this.registry = registry;
        this.sample = new PeriodicSample<>("fast-path-queue", interval, () -> {
            Map<Long, RedisStock.QueueState> states = new LinkedHashMap<>();
            for (long activity : repository.runningActivities(clock.millis())) {
                states.put(activity, stock.queueState(activity));
            }
            return states;
        }, states -> states.keySet().forEach(this::register));
        sample.start();
    }

    private void register(long activity) {
        if (!registered.add(activity)) {
            return;
        }
        String tag = Long.toString(activity);
        Gauge.builder("seckill.fastpath.queue.length", this, gauge(activity, RedisStock.QueueState::length))
                .description("Reservations queued or being written").tag("activity", tag).register(registry);
        Gauge.builder("seckill.fastpath.queue.pending", this, gauge(activity, RedisStock.QueueState::pending))
                .description("Reservations a consumer has taken and not settled yet").tag("activity", tag).register(registry);
        TimeGauge.builder("seckill.fastpath.queue.lag", this, TimeUnit.MILLISECONDS,
                        gauge(activity, RedisStock.QueueState::oldestAgeMillis))
                .description("How long the oldest reservation of the queue has waited").tag("activity", tag)
                .register(registry);
    }

    private static ToDoubleFunction<QueueMeters> gauge(long activity, ToDoubleFunction<RedisStock.QueueState> value) {
        return meters -> meters.sample.gauge(states -> value.applyAsDouble(states.getOrDefault(activity, EMPTY)));
    }

    @Override
    public void close() {
        sample.close();
    }
}
