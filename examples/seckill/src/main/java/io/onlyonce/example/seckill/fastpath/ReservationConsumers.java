package io.onlyonce.example.seckill.fastpath;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.onlyonce.example.seckill.SeckillProperties;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.EventListener;

/**
 * The queue's consumers in this instance: for every running sale, {@code consumers} threads that
 * take a batch from the sale's stream (entries a dead consumer left first), write it
 * ({@link ReservationWriter}) and then acknowledge it ({@link RedisStock#settle}). An entry is
 * acknowledged only after its decision is committed, so a consumer killed in between leaves it to
 * be taken again, and the reservation id makes the second write a no-op. The reconciler runs on
 * the same schedule.
 */
public class ReservationConsumers implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(ReservationConsumers.class);

    private final RedisStock stock;
    private final ReservationWriter writer;
    private final StockReconciler reconciler;
    private final ReservationRepository repository;
    private final SeckillProperties.FastPath settings;
    private final Clock clock;
    private final String instance = UUID.randomUUID().toString().substring(0, 8);
    private final Map<Long, List<Thread>> running = new ConcurrentHashMap<>();
    private final Counter ordered;
    private final Counter failed;
    private final Counter returned;
    private volatile boolean started;
    private ScheduledExecutorService scheduler;

    public ReservationConsumers(RedisStock stock, ReservationWriter writer, StockReconciler reconciler,
            ReservationRepository repository, SeckillProperties.FastPath settings, Clock clock, MeterRegistry registry) {
        this.stock = stock;
        this.writer = writer;
        this.reconciler = reconciler;
        this.repository = repository;
        this.settings = settings;
        this.clock = clock;
        this.ordered = Counter.builder("seckill.fastpath.reservations.decided").tag("outcome", "ordered")
                .description("reservations written by the queue's consumers").register(registry);
        this.failed = Counter.builder("seckill.fastpath.reservations.decided").tag("outcome", "failed")
                .description("reservations written by the queue's consumers").register(registry);
        this.returned = Counter.builder("seckill.fastpath.units.returned").tag("cause", "failed-reservation")
                .description("units given back to the Redis stock").register(registry);
    }

    @Override
    public void start() {
        started = true;
        if (settings.consumers() == 0) {
            log.info("fast path: this instance decides purchases only (seckill.fast-path.consumers=0); "
                    + "instances with consumers write the queued reservations as orders");
        }
        scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "seckill-fastpath-reconciler");
            t.setDaemon(true);
            return t;
        });
        long period = settings.reconcileInterval().toMillis();
        scheduler.scheduleWithFixedDelay(this::round, 0, period, TimeUnit.MILLISECONDS);
    }

    /**
     * Starts consumers for every running sale that has none and loads or corrects each one in Redis;
     * run on the schedule and once the application is ready (the demo data is created then).
     */
    @EventListener(ApplicationReadyEvent.class)
    public void round() {
        try {
            for (long activityId : repository.runningActivities(clock.millis())) {
                // a consumer thread that died (an Error) is replaced here
                running.compute(activityId, (id, threads) -> threads != null && threads.stream().allMatch(Thread::isAlive)
                        ? threads : startConsumers(id));
            }
            reconciler.reconcileRunning();
        } catch (RuntimeException e) {
            log.warn("fast path: consumers/reconciler round failed, tried again in {}: {}", settings.reconcileInterval(),
                    e.toString());
        }
    }

    private List<Thread> startConsumers(long activityId) {
        return java.util.stream.IntStream.range(0, settings.consumers()).mapToObj(i -> {
            String name = instance + "-" + i;
            Thread thread = new Thread(() -> consume(activityId, name), "seckill-fastpath-" + activityId + "-" + i);
            thread.setDaemon(true);
            thread.start();
            return thread;
        }).toList();
    }

    private void consume(long activityId, String consumer) {
        long idle = settings.claimIdle().toMillis();
        while (started) {
            try {
                List<QueuedReservation> batch = stock.take(activityId, consumer, idle, settings.batchSize());
                if (batch.isEmpty()) {
                    Thread.sleep(settings.pollInterval().toMillis());
                    continue;
                }
                List<Decision> decisions = writer.write(activityId, batch);
                long back = stock.settle(activityId, decisions);
                long done = decisions.stream().filter(Decision::ordered).count();
                ordered.increment(done);
                failed.increment(decisions.size() - done);
                returned.increment(back);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                // Redis or the database unavailable: what was taken stays unacknowledged and is taken again
                log.warn("fast path: consumer {} of sale {} failed, retrying: {}", consumer, activityId, e.toString());
                try {
                    Thread.sleep(1_000);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    @Override
    public void stop() {
        started = false;
        if (scheduler != null) {
            scheduler.shutdownNow();
        }
        running.values().forEach(threads -> threads.forEach(t -> {
            try {
                t.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        running.clear();
    }

    @Override
    public boolean isRunning() {
        return started;
    }
}
