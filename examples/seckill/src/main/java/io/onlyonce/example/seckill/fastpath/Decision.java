package io.onlyonce.example.seckill.fastpath;

import org.jspecify.annotations.Nullable;

/**
 * What the database decided for one reservation.
 *
 * @param reservation the reservation
 * @param orderNo its order, when it was ordered
 * @param reason why it failed, when it did
 */
public record Decision(QueuedReservation reservation, @Nullable String orderNo, @Nullable String reason) {

    /** The reason of a reservation the database had no stock for: Redis sold a unit it did not have. */
    public static final String SOLD_OUT = "sold-out";
    /** The reason of a reservation whose buyer already holds a live order of the sale. */
    public static final String LIVE_ORDER_EXISTS = "live-order-exists";
    /** The reason of a reservation Redis lost before any consumer wrote it (Redis restarted without persistence). */
    public static final String LOST = "reservation-lost";

    public boolean ordered() {
        return orderNo != null;
    }

    /**
     * Whether the unit Redis took for this reservation goes back to the Redis stock: yes for a buyer
     * refused by the database, no when the database had no unit (Redis counted one too many) and no
     * for a lost reservation (its unit went with the Redis that lost it).
     */
    public boolean returnsUnit() {
        return !ordered() && !SOLD_OUT.equals(reason) && !LOST.equals(reason);
    }
}
