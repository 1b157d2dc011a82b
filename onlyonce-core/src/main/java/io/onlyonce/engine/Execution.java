package io.onlyonce.engine;

import io.onlyonce.StoredResponse;

/**
 * An admitted execution that must be finished exactly once: {@link #complete} with the response,
 * or {@link #fail} when the action threw. Not thread-safe; belongs to the request that was admitted.
 */
public interface Execution {

    /** Whether the key is held in a store (false when running unprotected under PERMISSIVE). */
    boolean isProtected();

    /** Records the response according to the {@link ResponsePolicy} and reports the outcome. */
    Outcome.Executed complete(StoredResponse response);

    /** The action threw: releases the key unless {@link IdempotencyConfig#releaseOnException()} is off. */
    void fail(Throwable failure);
}
