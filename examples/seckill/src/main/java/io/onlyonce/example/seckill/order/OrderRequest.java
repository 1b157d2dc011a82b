package io.onlyonce.example.seckill.order;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;

/**
 * {@code POST /api/orders} body.
 *
 * @param productId the product
 * @param quantity 1 to 10
 */
public record OrderRequest(@NotNull @Positive Long productId, @NotNull @Min(1) @Max(10) Integer quantity) {
}
