package io.onlyonce.example.seckill.stats;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * Gauges read from the database at scrape time: {@code seckill.stock.left{activity, product}} for
 * the flash sales present at start-up, and {@code seckill.orders{status}}. The per-layer duplicate
 * counts are the counter {@code onlyonce.requests{layer, outcome, endpoint}}.
 */
@Component
class SeckillMetrics {

    private final MeterRegistry registry;
    private final JdbcClient jdbc;

    SeckillMetrics(MeterRegistry registry, JdbcClient jdbc) {
        this.registry = registry;
        this.jdbc = jdbc;
    }

    @EventListener(ApplicationReadyEvent.class)
    void register() {
        jdbc.sql("SELECT activity_id, product_id FROM seckill_stock").query((rs, row) -> new long[] {rs.getLong(1), rs.getLong(2)})
                .list()
                .forEach(key -> Gauge.builder("seckill.stock.left", () -> stockLeft(key[0], key[1]))
                        .description("Flash-sale stock left")
                        .tags(Tags.of("activity", Long.toString(key[0]), "product", Long.toString(key[1])))
                        .register(registry));
        for (String status : new String[] {"UNPAID", "PAID", "CANCELLED"}) {
            Gauge.builder("seckill.orders", () -> jdbc.sql("SELECT COUNT(*) FROM orders WHERE status = ?").param(status)
                            .query(Long.class).single())
                    .description("Orders in the database").tag("status", status).register(registry);
        }
    }

    private Number stockLeft(long activityId, long productId) {
        return jdbc.sql("SELECT stock FROM seckill_stock WHERE activity_id = ? AND product_id = ?")
                .params(activityId, productId).query(Integer.class).optional().orElse(0);
    }
}
