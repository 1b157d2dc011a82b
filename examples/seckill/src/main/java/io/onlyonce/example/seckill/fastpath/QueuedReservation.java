package io.onlyonce.example.seckill.fastpath;

/**
 * A reservation as a consumer took it from a sale's queue.
 *
 * @param streamId its entry in the Redis stream (acknowledged once it is decided)
 * @param id the reservation
 * @param productId the product
 * @param quantity how many units Redis took for it
 */
public record QueuedReservation(String streamId, ReservationId id, long productId, int quantity) {
}
