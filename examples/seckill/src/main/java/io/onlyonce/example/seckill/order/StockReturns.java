package io.onlyonce.example.seckill.order;

/**
 * Where a unit given back to the database's stock (an order cancelled, by its buyer or because it
 * stayed unpaid) leaves the order service, inside that transaction. With the flash-sale fast path,
 * {@link io.onlyonce.example.seckill.fastpath.StockReturnOutbox} records a message in the
 * transactional outbox so the unit also comes back to the Redis stock, once.
 */
public interface StockReturns {

    /** {@code order}'s units went back to the database's stock in the current transaction. */
    void returned(Order order);
}
