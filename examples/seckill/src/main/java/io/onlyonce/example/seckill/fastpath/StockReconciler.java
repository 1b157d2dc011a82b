package io.onlyonce.example.seckill.fastpath;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the Redis stock equal to the database's, which stays the source of truth:
 * <ul>
 *   <li>loads a sale that Redis does not hold (first start, or Redis restarted without persistence
 *     or flushed) from one database snapshot, under a new epoch, with the buyers that hold a live
 *     order, so nobody buys twice and no unit is lost for good;</li>
 *   <li>when nothing is queued and nothing moved while the database was read, sets each product's
 *     Redis stock to the database's (drift after a lost Redis, a restock, a unit given back by a
 *     message still in flight when Redis was reloaded).</li>
 * </ul>
 * Safe on every instance at once: a load happens once per epoch, a correction only when the
 * sale's version did not change between the read and the write.
 */
public class StockReconciler {

    private static final Logger log = LoggerFactory.getLogger(StockReconciler.class);

    private final RedisStock stock;
    private final ReservationRepository repository;
    private final Clock clock;
    private final MeterRegistry registry;
    private final Counter loads;
    private final Counter corrected;
    private final Map<Long, Drift> drifts = new ConcurrentHashMap<>();

    /** The last drift found in one sale, and the corrections made there. */
    private record Drift(AtomicLong units, Counter corrections) {
    }

    public StockReconciler(RedisStock stock, ReservationRepository repository, Clock clock, MeterRegistry registry) {
        this.stock = stock;
        this.repository = repository;
        this.clock = clock;
        this.registry = registry;
        this.loads = Counter.builder("seckill.fastpath.loads").description("sales loaded into Redis from the database")
                .register(registry);
        this.corrected = Counter.builder("seckill.fastpath.reconciled.units")
                .description("units of Redis stock the reconciler corrected to the database's").register(registry);
    }

    /** The sale's epoch in Redis, loading the sale first when Redis does not hold it. */
    public long ensureLoaded(long activityId) {
        Long epoch = stock.epoch(activityId);
        if (epoch != null) {
            return epoch;
        }
        long next = clock.millis();
        if (stock.rebuild(activityId, next, repository.snapshot(activityId))) {
            loads.increment();
            log.info("flash sale {} loaded into Redis from the database (epoch {})", activityId, next);
        }
        Long now = stock.epoch(activityId);
        if (now == null) {
            throw new IllegalStateException("flash sale " + activityId + " could not be loaded into Redis");
        }
        return now;
    }

    /** Every running sale: loaded if missing, corrected if it drifted. */
    public void reconcileRunning() {
        for (long activityId : repository.runningActivities(clock.millis())) {
            try {
                reconcile(activityId);
            } catch (RuntimeException e) {
                log.warn("flash sale {}: reconciliation failed, tried again in the next round: {}", activityId, e.toString());
            }
        }
    }

    /**
     * Loads or corrects one sale.
     *
     * @return units corrected; 0 when equal; -1 when something was queued or moved (the next round tries again)
     */
    public long reconcile(long activityId) {
        @Nullable Long epoch = stock.epoch(activityId);
        if (epoch == null) {
            ensureLoaded(activityId);
            return 0;
        }
        String version = stock.version(activityId);
        if (stock.queued(activityId) > 0) {
            return -1;
        }
        long units = stock.reconcile(activityId, epoch, version, repository.snapshot(activityId));
        if (units < 0) {
            return units;
        }
        Drift drift = drift(activityId);
        drift.units().set(units);
        if (units > 0) {
            drift.corrections().increment();
            corrected.increment(units);
            log.warn("flash sale {}: Redis stock differed from the database by {} units; corrected", activityId, units);
        }
        return units;
    }

    /**
     * The meters of one sale, registered at its first comparison: {@code seckill.fastpath.stock.drift}
     * (units by which Redis differed from the database at the last comparison, 0 when equal) and
     * {@code seckill.fastpath.stock.corrections} (comparisons that found a difference and corrected it).
     */
    private Drift drift(long activityId) {
        return drifts.computeIfAbsent(activityId, id -> {
            String tag = Long.toString(id);
            AtomicLong units = new AtomicLong();
            Gauge.builder("seckill.fastpath.stock.drift", units, AtomicLong::get)
                    .description("Units by which the Redis stock differed from the database's at the last comparison")
                    .tag("activity", tag).strongReference(true).register(registry);
            Counter corrections = Counter.builder("seckill.fastpath.stock.corrections")
                    .description("Comparisons that found the Redis stock drifted from the database's and corrected it")
                    .tag("activity", tag).register(registry);
            return new Drift(units, corrections);
        });
    }
}
