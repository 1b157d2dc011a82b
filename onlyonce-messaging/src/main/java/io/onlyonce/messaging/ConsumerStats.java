package io.onlyonce.messaging;

/**
 * What one consumer did since it was created. The counts are read one after another, not as one
 * snapshot.
 *
 * @param processed deliveries whose side effect committed ({@link Delivery.Processed})
 * @param duplicates deliveries of messages processed before, dropped ({@link Delivery.Duplicate})
 * @param retried failed attempts of the side effect that were tried again in process
 * @param requeued deliveries handed back for redelivery ({@link Delivery.Retry})
 * @param deadLettered deliveries dead-lettered ({@link Delivery.DeadLetter})
 */
public record ConsumerStats(long processed, long duplicates, long retried, long requeued, long deadLettered) {
}
