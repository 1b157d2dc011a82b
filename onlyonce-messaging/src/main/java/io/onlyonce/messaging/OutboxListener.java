package io.onlyonce.messaging;

import java.time.Duration;

/**
 * Hooks of an {@link OutboxRelay} for metrics, logs and alerts. Every method has an empty
 * default; implementations must be fast and must not throw (a failure is logged and changes
 * nothing). Called on the relay's thread, after the row was marked.
 */
public interface OutboxListener {

    /** A listener that does nothing. */
    OutboxListener NONE = new OutboxListener() {
    };

    /** The broker confirmed {@code message}. */
    default void onSent(OutboxMessage message) {
    }

    /**
     * Publishing {@code message} failed (nack, unroutable, no confirm in time, transport error);
     * it goes back to PREPARED and is tried again after {@code nextAttemptIn}.
     *
     * @param attempt the attempt that failed, 1 for the first
     * @param error what went wrong
     */
    default void onRetry(OutboxMessage message, int attempt, Throwable error, Duration nextAttemptIn) {
    }

    /**
     * {@code message} is FAILED after {@code attempts} attempts: the alert hook. An operator fixes
     * the cause and calls {@link OutboxRelay#resubmit}.
     *
     * @param error the last failure
     */
    default void onFailed(OutboxMessage message, int attempts, Throwable error) {
    }

    /**
     * A poll failed before it could publish anything (the database could not be reached); the relay
     * tries again after its poll interval.
     */
    default void onPollFailed(RuntimeException error) {
    }
}
