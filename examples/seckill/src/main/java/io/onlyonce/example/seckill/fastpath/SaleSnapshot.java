package io.onlyonce.example.seckill.fastpath;

import java.util.List;
import java.util.Map;

/**
 * One sale as the database has it, read in one statement (one snapshot): the source of truth the
 * Redis stock is loaded from and reconciled with.
 *
 * @param stock units left per product
 * @param liveBuyers buyers holding a live (unpaid or paid) order of the sale: user → mark
 *     (the reservation id the order was made for, or {@code o:{orderNo}})
 * @param cancelledOrders cancelled orders of the sale, whose units the stock above holds again
 */
public record SaleSnapshot(Map<Long, Integer> stock, Map<Long, String> liveBuyers, List<String> cancelledOrders) {
}
