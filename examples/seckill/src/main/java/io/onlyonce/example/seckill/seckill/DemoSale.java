package io.onlyonce.example.seckill.seckill;

import io.onlyonce.example.seckill.SeckillProperties;
import io.onlyonce.example.seckill.web.ApiException;
import io.onlyonce.example.seckill.web.AppProblem;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/**
 * The demo flash sale (activity 1) for newcomers: reopened (running from a minute ago until
 * {@code seckill.demo-data.flash-sale-length} from now, at least) and restocked (every product
 * filled up to {@code seckill.demo-data.flash-sale-stock}), so a walk-through never meets a sale that
 * ended or ran dry. Done at every start-up in demo mode and by {@code POST /api/demo/flash-sale/restock}.
 */
@Component
public class DemoSale {

    /** The demo flash sale. */
    public static final long ACTIVITY_ID = 1;

    private static final Logger log = LoggerFactory.getLogger(DemoSale.class);

    private final ActivityRepository activities;
    private final SeckillProperties.DemoData settings;
    private final Clock clock;

    public DemoSale(ActivityRepository activities, SeckillProperties properties, Clock clock) {
        this.activities = activities;
        this.settings = properties.demoData();
        this.clock = clock;
    }

    /**
     * Reopens and restocks the demo sale.
     *
     * @throws ApiException 404 {@code activity-not-found} when there is no demo sale (demo data off)
     */
    @Transactional
    public void reopenAndRestock() {
        Instant now = clock.instant();
        if (!activities.reopen(ACTIVITY_ID, now.minus(Duration.ofMinutes(1)), now.plus(settings.flashSaleLength()))) {
            throw new ApiException(AppProblem.ACTIVITY_NOT_FOUND);
        }
        int restocked = activities.fillUp(ACTIVITY_ID, settings.flashSaleStock());
        log.info("demo flash sale {} reopened; {} products restocked to {}", ACTIVITY_ID, restocked, settings.flashSaleStock());
    }
}
