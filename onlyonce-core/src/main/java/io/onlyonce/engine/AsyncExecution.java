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
}
