package io.onlyonce.redis;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/** Waits for the stores' asynchronous calls in tests, failing as their blocking twins throw. */
final class Futures {

    private Futures() {
    }

    /** The answer of {@code call} within 10 s, or what it failed with, unwrapped. */
    static <T> T join(CompletionStage<T> call) throws Exception {
        try {
            return call.toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }
}
