package io.onlyonce.example.seckill.seckill;

import java.math.BigDecimal;

/**
 * The flash-sale stock of one product in one activity.
 *
 * @param activityId the activity
 * @param productId the product
 * @param productName the product's name
 * @param price the flash-sale price
 * @param initialStock the stock the sale started with
 * @param stock what is left
 * @param regularPrice the product's price outside the sale
 */
public record SeckillStock(long activityId, long productId, String productName, BigDecimal price, int initialStock, int stock,
        BigDecimal regularPrice) {
}
