package io.onlyonce.example.seckill.stats;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.onlyonce.spring.metrics.PeriodicSample;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * Gauges of the database: {@code seckill.stock.left{activity, product}} for every flash sale and
 * {@code seckill.orders{status}}. The tables are read every {@code seckill.metrics-interval} (5 s)
 * in the background, two statements bounded by that interval, so that a scrape reads memory and
 * never waits for the database; while it cannot be read, the gauges read NaN. The per-layer
 * duplicate counts are the counter {@code onlyonce.requests{layer, outcome, endpoint}}.
 */
@Component
class SeckillMetrics implements AutoCloseable {

    private static final List<String> STATUSES = List.of("UNPAID", "PAID", "CANCELLED");

    /** What one read found. */
    private record Figures(Map<List<Long>, Integer> stockLeft, Map<String, Long> orders) {
    }

    private final MeterRegistry registry;
    private final PeriodicSample<Figures> sample;
    private final Set<List<Long>> registered = ConcurrentHashMap.newKeySet();

    SeckillMetrics(MeterRegistry registry, JdbcClient jdbc, @Value("${seckill.metrics-interval:5s}") Duration interval) {
        this.registry = registry;
        int timeout = (int) Math.max(1, interval.toSeconds());
        this.sample = new PeriodicSample<>("seckill-database", interval, () -> {
            Map<List<Long>, Integer> stock = new HashMap<>();
            jdbc.sql("SELECT activity_id, product_id, stock FROM seckill_stock").withQueryTimeout(timeout)
                    .query(rs -> {
                        stock.put(List.of(rs.getLong(1), rs.getLong(2)), rs.getInt(3));
                    });
            Map<String, Long> orders = new HashMap<>();
            STATUSES.forEach(status -> orders.put(status, 0L));
            jdbc.sql("SELECT status, COUNT(*) FROM orders GROUP BY status").withQueryTimeout(timeout)
                    .query(rs -> {
                        orders.put(rs.getString(1), rs.getLong(2));
                    });
            return new Figures(stock, orders);
        }, figures -> figures.stockLeft().keySet().forEach(this::registerStock));
    }

    @EventListener(ApplicationReadyEvent.class)
    void register() {
        for (String status : STATUSES) {
            Gauge.builder("seckill.orders", this, m -> m.sample.gauge(f -> f.orders().getOrDefault(status, 0L)))
                    .description("Orders in the database").tag("status", status).register(registry);
        }
        sample.start();
    }

    private void registerStock(List<Long> key) {
        if (registered.add(key)) {
            Gauge.builder("seckill.stock.left", this, m -> m.sample.gauge(f -> f.stockLeft().getOrDefault(key, 0)))
                    .description("Flash-sale stock left")
                    .tags(Tags.of("activity", Long.toString(key.get(0)), "product", Long.toString(key.get(1))))
                    .register(registry);
        }
    }

    @Override
    public void close() {
        sample.close();
    }
}
