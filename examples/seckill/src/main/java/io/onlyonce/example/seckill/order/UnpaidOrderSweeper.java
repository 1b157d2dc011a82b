package io.onlyonce.example.seckill.order;

import io.onlyonce.example.seckill.SeckillProperties;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Cancels orders left unpaid longer than {@code seckill.order.unpaid-timeout} (default 15 minutes),
 * returning their stock, every {@code seckill.order.sweep-interval}. Each cancel is the same
 * state-machine UPDATE as a user's, so a sweep racing a payment or a cancel changes nothing twice;
 * several instances may sweep at once. Time comes from the injected {@link Clock}.
 */
@Component
public class UnpaidOrderSweeper {

    private static final Logger log = LoggerFactory.getLogger(UnpaidOrderSweeper.class);

    private final OrderRepository orders;
    private final OrderService service;
    private final SeckillProperties.Order settings;
    private final Clock clock;

    public UnpaidOrderSweeper(OrderRepository orders, OrderService service, SeckillProperties properties, Clock clock) {
        this.orders = orders;
        this.service = service;
        this.settings = properties.order();
        this.clock = clock;
    }

    @Scheduled(fixedDelayString = "${seckill.order.sweep-interval:30s}", initialDelayString = "${seckill.order.sweep-interval:30s}")
    public void scheduledSweep() {
        if (settings.sweeperEnabled()) {
            sweep();
        }
    }

    /**
     * Cancels every order unpaid since before now minus the timeout (at most one batch).
     *
     * @return how many orders this call cancelled
     */
    public int sweep() {
        Instant cutoff = clock.instant().minus(settings.unpaidTimeout());
        List<String> expired = orders.findUnpaidPlacedBefore(cutoff, settings.sweepBatchSize());
        int cancelled = 0;
        for (String orderNo : expired) {
            try {
                if (service.cancelExpired(orderNo, cutoff)) {
                    cancelled++;
                }
            } catch (RuntimeException e) {
                log.warn("could not cancel unpaid order {}", orderNo, e);
            }
        }
        if (cancelled > 0) {
            log.info("cancelled {} orders unpaid for more than {}", cancelled, settings.unpaidTimeout());
        }
        return cancelled;
    }
}
