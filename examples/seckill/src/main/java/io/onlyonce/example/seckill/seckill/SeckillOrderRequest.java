package io.onlyonce.example.seckill.seckill;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.Positive;
import org.jspecify.annotations.Nullable;

/**
 * {@code POST /api/seckill/activities/{activityId}/orders} body.
 *
 * @param productId the product; the activity's first product when omitted
 * @param quantity always 1 in a flash sale (1 when omitted)
 */
public record SeckillOrderRequest(@Nullable @Positive Long productId, @Nullable @Min(1) @Max(1) Integer quantity) {

    public int quantityOrOne() {
        return quantity == null ? 1 : quantity;
    }
}
