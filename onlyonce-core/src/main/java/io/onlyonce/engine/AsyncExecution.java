package io.onlyonce.engine;

import io.onlyonce.StoredResponse;
import java.util.concurrent.CompletionStage;

/**
 * {@link Execution} for callers that must not block: the same rules, each finishing step answering
 * a stage that completes once the store has recorded it. Finished exactly once; the stages never
 * complete exceptionally with a {@link io.onlyonce.StoreUnavailableException} (an unreachable store
 * is {@link Outcome.Recording#NOT_RECORDED}, as on {@link Execution}).
 */
public interface AsyncExecution {

    /** Whether the key is held in a store (false when running unprotected under PERMISSIVE). */
    boolean isProtected();

    /** {@link Execution#complete}, without blocking. */
    CompletionStage<Outcome.Executed> complete(StoredResponse response);

    /** {@link Execution#completeWithoutResponse}, without blocking. */
    CompletionStage<Outcome.Executed> completeWithoutResponse(int status);

    /**
     * {@link Execution#fail}, without blocking: the stage completes once the key is released (or
     * could not be, which is then added to {@code failure} as suppressed).
     */
    CompletionStage<Void> fail(Throwable failure);

    /**
     * The action never started: its caller went away (a cancelled subscription) after the key was
     * claimed and before the action could begin. Releases the key whatever
     * {@link IdempotencyConfig#releaseOnException()} says, since nothing ran, so that a retry runs at
     * once. Never call it once the action may have started: its effect may then be under way, and the
     * key must stay taken until its lease ends.
     *
     * @return a stage that completes with whether the key was released: false when running
     *     unprotected, when the lease had already passed, or when the store could not be reached (the
     *     key then stays taken until its lease ends); it never completes exceptionally with a
     *     {@link io.onlyonce.StoreUnavailableException}
     */
    CompletionStage<Boolean> abandon();
}
