package io.onlyonce.engine;

import io.onlyonce.StoredResponse;

/**
 * An admitted execution that must be finished exactly once: {@link #complete} with the response,
 * {@link #completeWithoutResponse} when the action answered but its response cannot be kept, or
 * {@link #fail} when the action threw. Not thread-safe; belongs to the request that was admitted.
 *
 * <p>Once the action has run, its key is never freed unless the {@link ResponsePolicy} says its
 * answer is a failure: a success that cannot be stored is completed without its response.
 */
public interface Execution {

    /** Whether the key is held in a store (false when running unprotected under PERMISSIVE). */
    boolean isProtected();

    /**
     * Records the response according to the {@link ResponsePolicy} and reports the outcome. A
     * response the store cannot keep is recorded as {@link Outcome.Recording#STORED_WITHOUT_RESPONSE}.
     */
    Outcome.Executed complete(StoredResponse response);

    /**
     * The action answered with {@code status}, but its response cannot be stored (larger than
     * allowed, not encodable, written where it cannot be captured). Kept as COMPLETED without a
     * response when the {@link ResponsePolicy} keeps {@code status}, released otherwise.
     */
    Outcome.Executed completeWithoutResponse(int status);

    /** The action threw: releases the key unless {@link IdempotencyConfig#releaseOnException()} is off. */
    void fail(Throwable failure);
}
