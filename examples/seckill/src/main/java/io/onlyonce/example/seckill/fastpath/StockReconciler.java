package io.onlyonce.example.seckill.fastpath;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
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
    private final Counter loads;
    private final Counter corrected;

    public StockReconciler(RedisStock stock, ReservationRepository repository, Clock clock, MeterRegistry registry) {
        this.stock = stock;
        this.repository = repository;
        this.clock = clock;
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
        if (units > 0) {
            corrected.increment(units);
            log.warn("flash sale {}: Redis stock differed from the database by {} units; corrected", activityId, units);
        }
        return units;
    }
}
