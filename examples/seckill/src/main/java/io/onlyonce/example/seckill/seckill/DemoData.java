package io.onlyonce.example.seckill.seckill;

import io.onlyonce.example.seckill.SeckillProperties;
import io.onlyonce.example.seckill.product.Product;
import io.onlyonce.example.seckill.product.ProductRepository;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * On an empty database: three products and flash sale 1 (product 1, stock 100, running from now for
 * 30 days), so a newcomer can buy at once. A database that has products keeps everything (a restart
 * keeps the orders); in demo mode its flash sale 1 is reopened and restocked ({@link DemoSale}).
 */
@Component
class DemoData implements ApplicationRunner {

    private static final Logger log = LoggerFactory.getLogger(DemoData.class);

    private final ProductRepository products;
    private final ActivityRepository activities;
    private final SeckillProperties.DemoData settings;
    private final boolean demoMode;
    private final DemoSale demoSale;
    private final TransactionTemplate transactions;
    private final Clock clock;

    DemoData(ProductRepository products, ActivityRepository activities, SeckillProperties properties, DemoSale demoSale,
            TransactionTemplate transactions, Clock clock) {
        this.products = products;
        this.activities = activities;
        this.settings = properties.demoData();
        this.demoMode = properties.demo().enabled();
        this.demoSale = demoSale;
        this.transactions = transactions;
        this.clock = clock;
    }

    @Override
    public void run(ApplicationArguments args) {
        if (!settings.enabled()) {
            return;
        }
        if (products.count() > 0) {
            if (demoMode && activities.find(DemoSale.ACTIVITY_ID).isPresent()) {
                demoSale.reopenAndRestock();
            }
            return;
        }
        try {
            transactions.executeWithoutResult(status -> {
                products.insert(new Product(1, "Phone X", new BigDecimal("3999.00"), 1000));
                products.insert(new Product(2, "Earbuds", new BigDecimal("199.00"), 1000));
                products.insert(new Product(3, "Charger", new BigDecimal("59.00"), 1000));
                Instant start = clock.instant().minus(Duration.ofMinutes(1));
                activities.insert(new Activity(1, "Flash sale: Phone X", start, start.plus(settings.flashSaleLength())));
                activities.insertStock(1, 1, new BigDecimal("1999.00"), settings.flashSaleStock());
            });
        } catch (DataIntegrityViolationException e) {
            log.info("demo data already created by another instance");
            return;
        }
        log.info("demo data created: products 1-3, flash sale 1 (product 1, stock {})", settings.flashSaleStock());
    }
}
