package io.onlyonce.engine;

import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoreUnavailableException;
import java.time.Duration;

/**
 * Hooks for metrics and logs. Every method has an empty default; implementations must be fast
 * and should not throw: an exception is logged and never changes an outcome or strands a key. The
 * Spring Boot starter binds one to Micrometer.
 */
public interface IdempotencyListener {

    /** A listener that does nothing. */
    IdempotencyListener NONE = new IdempotencyListener() {
    };

    /** The engine decided an outcome for {@code key}. */
    default void onOutcome(IdempotencyKey key, Outcome outcome) {
    }

    /** A store call finished (successfully or not) after {@code elapsed}. */
    default void onStoreCall(String operation, Duration elapsed) {
    }

    /** A store call failed. */
    default void onStoreError(String operation, StoreUnavailableException error) {
    }
}
