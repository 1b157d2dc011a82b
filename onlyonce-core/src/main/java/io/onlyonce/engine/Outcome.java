package io.onlyonce.engine;

import io.onlyonce.Fingerprint;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.StoredResponse;
import io.onlyonce.store.IdempotencyRecord;
import io.onlyonce.store.RecordStatus;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * What {@link IdempotencyEngine#execute} did with one request. Ordered as the engine decides:
 * a different fingerprint is reported before "in progress", because clients retry every 409.
 */
public sealed interface Outcome {

    /**
     * What a live record found under the key decides, for a request with {@code fingerprint} whose
     * own lease would be {@code lease}: the one rule for every path that meets an existing record
     * (the engine's claim, and an effect run in one store call with its record). A different
     * fingerprint is {@link FingerprintMismatch}, checked first; a completed record is
     * {@link Replayed}, or {@link ResponseNotKept} without its response; a record in progress is
     * {@link InProgress}, its {@code Retry-After} the time its holder's lease has left, rounded up to
     * whole seconds and at least one.
     *
     * @param record the live record under the key
     * @param fingerprint the request's fingerprint
     * @param lease the lease the request would have taken
     */
    static Outcome of(IdempotencyRecord record, Fingerprint fingerprint, Duration lease) {
        if (!record.fingerprint().equals(fingerprint)) {
            return new FingerprintMismatch();
        }
        if (record.status() == RecordStatus.COMPLETED) {
            StoredResponse response = record.response();
            return response == null ? new ResponseNotKept() : new Replayed(response);
        }
        Duration left = record.expiresIn();
        Duration rounded = Duration.ofSeconds(left.getSeconds() + (left.getNano() > 0 ? 1 : 0));
        Duration running = lease.minus(left);
        return new InProgress(rounded.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : rounded,
                running.isNegative() ? Duration.ZERO : running);
    }

    /**
     * The action ran in this call.
     *
     * @param status the status it answered with
     * @param response what it returned; null when its response could not be built for storing
     * @param recording what became of the key afterwards
     */
    record Executed(int status, @Nullable StoredResponse response, Recording recording) implements Outcome {

        /** The action ran and returned {@code response}. */
        public Executed(StoredResponse response, Recording recording) {
            this(response.status(), response, recording);
        }
    }

    /**
     * An earlier execution completed; its response is returned unchanged.
     *
     * @param response the stored response
     */
    record Replayed(StoredResponse response) implements Outcome {
    }

    /**
     * An earlier execution completed, but its response could not be kept (too large, not storable,
     * lost with an asynchronous answer). Nothing ran now: the work must not run twice, and the
     * caller has to find out its result another way.
     */
    record ResponseNotKept() implements Outcome {
    }

    /**
     * The same request is running elsewhere; retry after the suggested delay.
     *
     * @param retryAfter time until the holder's lease ends, rounded up to whole seconds (at least
     *     one second): the longest a retry may have to wait
     * @param running how long the holder has held the key, as far as the lease tells (the lease of
     *     this call's configuration less what is left of it; zero when the holder's lease is longer):
     *     a caller that knows how long the work usually takes subtracts this to suggest a shorter wait
     */
    record InProgress(Duration retryAfter, Duration running) implements Outcome {

        /** In progress, with nothing known of how long the holder has run. */
        public InProgress(Duration retryAfter) {
            this(retryAfter, Duration.ZERO);
        }
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
        /**
         * Stored as COMPLETED without its response, which could not be kept: retries are told the
         * request ran, and never run it again.
         */
        STORED_WITHOUT_RESPONSE,
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
