package io.onlyonce.example.seckill.product;

import java.math.BigDecimal;

/**
 * A product of the regular catalogue.
 *
 * @param id the product id
 * @param name the display name
 * @param price the regular price
 * @param stock the regular stock (flash-sale stock is separate, per activity)
 */
public record Product(long id, String name, BigDecimal price, int stock) {
}
