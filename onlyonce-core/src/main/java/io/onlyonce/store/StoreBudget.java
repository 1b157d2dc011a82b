package io.onlyonce.store;

import io.onlyonce.StoreUnavailableException;
import java.time.Duration;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * How long the store calls of one unit of work (an HTTP request, say) may wait in all, on the
 * thread that runs it: one budget for every call, not one per call. Each call a store makes while a
 * budget is open waits at most {@linkplain #deadline what is left of it} (or its own timeout, when
 * that is shorter), and the time it took is taken off the budget. Once nothing is left, further
 * calls fail at once with {@link StoreUnavailableException}. Time spent outside store calls (the
 * business method itself) is not counted.
 *
 * <pre>{@code
 * try (StoreBudget.Scope scope = StoreBudget.open(Duration.ofSeconds(2))) {
 *     handle(request); // every store call in here shares the 2 s
 * }
 * }</pre>
 *
 * <p>A call that records work already done (a completion, a release) runs {@linkplain #outside
 * outside} the budget, on its own timeout: refusing it would leave the work's record in progress.
 * Without an open budget every call has its own timeout only. Budgets are per thread; opening one
 * inside another replaces it until the inner scope closes.
 */
public final class StoreBudget {

    private static final ThreadLocal<@Nullable StoreBudget> CURRENT = new ThreadLocal<>();

    private final long totalNanos;
    private final LongSupplier nanoTime;
    private long spentNanos;
    private int depth;

    private StoreBudget(long totalNanos, LongSupplier nanoTime) {
        this.totalNanos = totalNanos;
        this.nanoTime = nanoTime;
    }

    /** The open scope of a budget; closing it restores the budget that was open before (if any). */
    public interface Scope extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Opens {@code budget} on this thread.
     *
     * @throws IllegalArgumentException if {@code budget} is negative or zero
     */
    public static Scope open(Duration budget) {
        return open(budget, System::nanoTime);
    }

    static Scope open(Duration budget, LongSupplier nanoTime) {
        if (budget == null || budget.isNegative() || budget.isZero()) {
            throw new IllegalArgumentException("budget must be positive");
        }
        StoreBudget previous = CURRENT.get();
        CURRENT.set(new StoreBudget(budget.toNanos(), nanoTime));
        return () -> restore(previous);
    }

    private static void restore(@Nullable StoreBudget previous) {
        if (previous == null) {
            CURRENT.remove();
        } else {
            CURRENT.set(previous);
        }
    }

    /** What is left of this thread's budget, if one is open. */
    public static @Nullable Duration remaining() {
        StoreBudget budget = CURRENT.get();
        return budget == null ? null : Duration.ofNanos(Math.max(0, budget.totalNanos - budget.spentNanos));
    }

    /**
     * The {@link System#nanoTime()} by which a call whose own timeout is {@code ownTimeoutNanos}
     * must have its answer: {@code now + min(own timeout, what is left)}.
     *
     * @throws StoreUnavailableException at once when nothing is left
     */
    public static long deadline(String operation, long ownTimeoutNanos) {
        long now = System.nanoTime();
        StoreBudget budget = CURRENT.get();
        if (budget == null) {
            return now + ownTimeoutNanos;
        }
        return now + Math.min(ownTimeoutNanos, budget.left(operation));
    }

    /**
     * Runs one store call within this thread's budget, if one is open: refused at once when nothing
     * is left, and its duration taken off what is left. A call inside another (a store under a
     * wrapper that also calls this) is counted once, by the outer one.
     *
     * @throws StoreUnavailableException when nothing is left, or as the call throws it
     */
    public static <T> T call(String operation, Supplier<T> call) {
        StoreBudget budget = CURRENT.get();
        if (budget == null) {
            return call.get();
        }
        budget.left(operation);
        if (budget.depth > 0) {
            return call.get();
        }
        long start = budget.nanoTime.getAsLong();
        budget.depth++;
        try {
            return call.get();
        } finally {
            budget.depth--;
            budget.spentNanos += budget.nanoTime.getAsLong() - start;
        }
    }

    /**
     * Runs a call outside this thread's budget, on the store's own timeout, and takes nothing off
     * the budget: for calls that record work already done.
     */
    public static <T> T outside(Supplier<T> call) {
        StoreBudget budget = CURRENT.get();
        if (budget == null) {
            return call.get();
        }
        CURRENT.remove();
        try {
            return call.get();
        } finally {
            CURRENT.set(budget);
        }
    }

    private long left(String operation) {
        long left = totalNanos - spentNanos;
        if (left <= 0) {
            throw new StoreUnavailableException(operation + " (request budget spent)",
                    new IllegalStateException("no time left for store calls in this request"));
        }
        return left;
    }
}
