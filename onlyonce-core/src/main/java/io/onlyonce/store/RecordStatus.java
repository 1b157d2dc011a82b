package io.onlyonce.store;

/**
 * The state of an idempotency record. A record whose lease or retention has passed is gone: stores
 * never return it, and the key may be claimed again.
 */
public enum RecordStatus {
    /** A holder is executing the request; its lease ends when the record expires. */
    IN_PROGRESS,
    /**
     * The work ran. Its response is replayed until the record expires, or, where the response could
     * not be kept, every retry is told so instead of running the work again.
     */
    COMPLETED
}
