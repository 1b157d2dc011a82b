package io.onlyonce.example.seckill.demo;

import io.onlyonce.example.seckill.seckill.ActivityController;
import io.onlyonce.example.seckill.seckill.DemoSale;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /api/demo/flash-sale/restock}, in demo mode only (logged-in users): reopens the demo
 * flash sale (activity 1) and fills its stock up again, and answers the sale as
 * {@code GET /api/seckill/activities/1} shows it. Outside demo mode the address does not exist (404).
 */
@RestController
@ConditionalOnBooleanProperty("seckill.demo.enabled")
public class DemoController {

    private final DemoSale sale;
    private final ActivityController activities;

    public DemoController(DemoSale sale, ActivityController activities) {
        this.sale = sale;
        this.activities = activities;
    }

    @PostMapping("/api/demo/flash-sale/restock")
    public ActivityController.ActivityView restock() {
        sale.reopenAndRestock();
        return activities.get(DemoSale.ACTIVITY_ID);
    }
}
