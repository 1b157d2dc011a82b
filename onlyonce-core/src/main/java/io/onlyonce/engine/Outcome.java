package io.onlyonce.engine;

import io.onlyonce.StoreUnavailableException;
import io.onlyonce.StoredResponse;
import java.time.Duration;

/**
 * What {@link IdempotencyEngine#execute} did with one request. Ordered as the engine decides:
 * a different fingerprint is reported before "in progress", because clients retry every 409.
 */
public sealed interface Outcome {

    /**
     * The action ran in this call.
     *
     * @param response what it returned
     * @param recording what became of the key afterwards
     */
    record Executed(StoredResponse response, Recording recording) implements Outcome {
    }

    /**
     * An earlier execution completed; its response is returned unchanged.
     *
     * @param response the stored response
     */
    record Replayed(StoredResponse response) implements Outcome {
    }

    /**
     * The same request is running elsewhere; retry after the suggested delay.
     *
     * @param retryAfter time until the holder's lease ends (at least one second)
     */
    record InProgress(Duration retryAfter) implements Outcome {
    }

    /** The key was used for a request with another fingerprint. Nothing ran. */
    record FingerprintMismatch() implements Outcome {
    }

    /**
     * STRICT policy and the store is unreachable: nothing ran.
     *
     * @param retryAfter the suggested delay
     * @param cause the store's failure (not for clients' eyes)
     */
    record StoreUnavailable(Duration retryAfter, StoreUnavailableException cause) implements Outcome {
    }

    /** What became of the key after an execution. */
    enum Recording {
        /** Stored as COMPLETED: retries replay it. */
        STORED,
        /** Released by the response policy: a retry executes again. */
        RELEASED,
        /** The holder's lease had passed before completion; the store refused the late write. */
        LEASE_LOST,
        /** The store failed after the claim; the record stays IN_PROGRESS until its lease ends. */
        NOT_RECORDED,
        /** PERMISSIVE policy and the store was down: executed without protection. */
        UNPROTECTED
    }
}
