package io.onlyonce.redis.script;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The threads on which a blocking {@link ScriptPort} answers its asynchronous calls: daemon
 * threads made as needed and kept a minute when idle. Each call holds one only until its own
 * deadline, and the port under it bounds how many run at once (the Spring Data port's pool), so
 * a stuck server costs threads for at most one budget, never an event loop.
 */
final class BlockingScriptCalls {

    private static final AtomicInteger THREADS = new AtomicInteger();
    private static final ExecutorService CALLS = Executors.newCachedThreadPool(task -> {
        Thread thread = new Thread(task, "onlyonce-redis-blocking-" + THREADS.incrementAndGet());
        thread.setDaemon(true);
        return thread;
    });

    private BlockingScriptCalls() {
    }

    static CompletableFuture<@Nullable Object> supply(Supplier<@Nullable Object> call) {
        return CompletableFuture.supplyAsync(call, CALLS);
    }
}
