package io.onlyonce.store;

/** The state of an idempotency record. Only IN_PROGRESS and COMPLETED are ever stored. */
public enum RecordStatus {
    /** A holder is executing the request; its lease ends at the record's {@code expiresAt}. */
    IN_PROGRESS,
    /** The response is stored and replayed until the record's {@code expiresAt}. */
    COMPLETED,
    /** Derived: the lease or the retention has passed; the key may be claimed again. */
    EXPIRED
}
