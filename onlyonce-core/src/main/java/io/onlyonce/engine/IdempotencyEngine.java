package io.onlyonce.engine;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.StoredResponse;
import io.onlyonce.store.AsyncIdempotencyStore;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.IdempotencyRecord;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.store.OwnerToken;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Runs an action at most once per {@link IdempotencyKey}, on any {@link IdempotencyStore}.
 *
 * <pre>{@code
 * IdempotencyEngine engine = IdempotencyEngine.builder(store).build();
 * Outcome outcome = engine.execute(key, fingerprint, config, () -> createOrder(request));
 * }</pre>
 *
 * <p>Order of decisions: claim the key; if another record holds it, a different fingerprint is a
 * {@link Outcome.FingerprintMismatch} (checked first), a completed record is
 * {@link Outcome.Replayed} (or {@link Outcome.ResponseNotKept} when its response could not be
 * kept), a running one is {@link Outcome.InProgress}. After the action, the {@link ResponsePolicy}
 * decides between complete and release; an exception releases the key (unless configured otherwise)
 * and is rethrown unchanged. A success is never released: when the store refuses its response, the
 * record is completed without it; when the store cannot be reached at all
 * ({@link StoreUnavailableException}), it is {@link Outcome.Recording#NOT_RECORDED} and its key stays
 * in progress until the lease ends.
 *
 * <p>The engine has no clock of its own: every lease and retention is measured by the store, on the
 * clock that all instances sharing it share.
 *
 * <p>{@link #execute} wraps the whole run; {@link #admit} splits it in two for callers that see
 * the response only later; {@link #admitAsync} is the same split for callers that must not block
 * (a reactive web stack), on an {@link AsyncIdempotencyStore}. Both share every decision above. Listener failures are logged and never change an outcome. Thread-safe.
 */
public final class IdempotencyEngine {

    private static final System.Logger LOG = System.getLogger(IdempotencyEngine.class.getName());

    private final AsyncIdempotencyStore direct;
    private final AsyncIdempotencyStore async;
    private final IdempotencyListener listener;
    private final LongSupplier nanoTime;

    private IdempotencyEngine(Builder builder) {
        this.direct = direct(builder.store);
        AsyncIdempotencyStore given = builder.async;
        this.async = given != null
                ? given
                : builder.store instanceof AsyncIdempotencyStore nativeAsync ? nativeAsync : this.direct;
        this.listener = builder.listener;
        this.nanoTime = builder.nanoTime;
    }

    public static Builder builder(IdempotencyStore store) {
        return new Builder(store);
    }

    /** The action protected by the engine; may throw anything, which the engine rethrows. */
    @FunctionalInterface
    public interface Action<E extends Throwable> {
        StoredResponse run() throws E;
    }

    /** Runs {@code action} under {@code key} unless a live record decides otherwise. */
    public <E extends Throwable> Outcome execute(IdempotencyKey key, Fingerprint fingerprint,
            IdempotencyConfig config, Action<E> action) throws E {
        Admission admission = admit(key, fingerprint, config);
        if (admission instanceof Admission.Decided decided) {
            return decided.outcome();
        }
        Execution execution = ((Admission.Admitted) admission).execution();
        StoredResponse response;
        try {
            response = action.run();
        } catch (Throwable failure) {
            execution.fail(failure);
            throw failure;
        }
        return execution.complete(response);
    }

    /**
     * Claims {@code key}: either decides at once (replay, in progress, mismatch, STRICT store
     * failure) or admits the caller, who must then finish the returned {@link Execution}.
     */
    public Admission admit(IdempotencyKey key, Fingerprint fingerprint, IdempotencyConfig config) {
        AsyncAdmission admission = join(admit(direct, key, fingerprint, config));
        if (admission instanceof AsyncAdmission.Decided decided) {
            return new Admission.Decided(decided.outcome());
        }
        return new Admission.Admitted(new JoinedExecution(((AsyncAdmission.Admitted) admission).execution()));
    }

    /**
     * {@link #admit} without blocking, on the engine's {@link Builder#async asynchronous store}: the
     * stage completes once the store answered the claim. The caller must then finish the admitted
     * {@link AsyncExecution}.
     */
    public CompletionStage<AsyncAdmission> admitAsync(IdempotencyKey key, Fingerprint fingerprint,
            IdempotencyConfig config) {
        return admit(async, key, fingerprint, config);
    }

    private CompletionStage<AsyncAdmission> admit(AsyncIdempotencyStore on, IdempotencyKey key, Fingerprint fingerprint,
            IdempotencyConfig config) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(config, "config");
        return timed("claim", () -> on.claimAsync(key, fingerprint, config.lease())).handle((claim, failure) -> {
            if (failure != null) {
                Throwable cause = unwrap(failure);
                if (!(cause instanceof StoreUnavailableException e)) {
                    throw failure instanceof CompletionException c ? c : new CompletionException(cause);
                }
                if (config.storeFailurePolicy() == StoreFailurePolicy.STRICT) {
                    return new AsyncAdmission.Decided(report(key, new Outcome.StoreUnavailable(config.unavailableRetryAfter(), e)));
                }
                return new AsyncAdmission.Admitted(new HeldExecution(on, key, null, config));
            }
            if (claim instanceof ClaimResult.Existing existing) {
                return new AsyncAdmission.Decided(report(key, Outcome.of(existing.record(), fingerprint, config.lease())));
            }
            return new AsyncAdmission.Admitted(new HeldExecution(on, key, ((ClaimResult.Claimed) claim).owner(), config));
        });
    }

    /**
     * One store call, timed and reported to the listener when it ends. A call that throws instead of
     * answering a stage is turned into a failed stage.
     */
    private <T> CompletionStage<T> timed(String operation, Supplier<CompletionStage<T>> call) {
        long start = nanoTime.getAsLong();
        return AsyncIdempotencyStore.stage(call).whenComplete((value, failure) -> {
            if (failure != null && unwrap(failure) instanceof StoreUnavailableException e) {
                notifyListener(() -> listener.onStoreError(operation, e));
            }
            Duration elapsed = Duration.ofNanos(nanoTime.getAsLong() - start);
            notifyListener(() -> listener.onStoreCall(operation, elapsed));
        });
    }

    private <O extends Outcome> O report(IdempotencyKey key, O outcome) {
        notifyListener(() -> listener.onOutcome(key, outcome));
        return outcome;
    }

    /** Calls the listener; a failing listener is logged and never changes what the engine does. */
    private static void notifyListener(Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "an IdempotencyListener failed; the outcome stands", e);
        }
    }

    private static Throwable unwrap(Throwable failure) {
        Throwable cause = failure;
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    /** The value of a stage that has completed (the direct store's always have), rethrowing its failure as it was thrown. */
    private static <T> T join(CompletionStage<T> stage) {
        try {
            return stage.toCompletableFuture().join();
        } catch (CompletionException e) {
            Throwable cause = unwrap(e);
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw e;
        }
    }

    /** The blocking store's calls, made on the caller's thread, as stages that are complete when returned. */
    private static AsyncIdempotencyStore direct(IdempotencyStore store) {
        return new AsyncIdempotencyStore() {
            @Override
            public CompletionStage<ClaimResult> claimAsync(IdempotencyKey key, Fingerprint fingerprint, Duration lease) {
                return AsyncIdempotencyStore.now(() -> store.claim(key, fingerprint, lease));
            }

            @Override
            public CompletionStage<Boolean> completeAsync(IdempotencyKey key, OwnerToken owner,
                    @Nullable StoredResponse response, Duration retention) {
                return AsyncIdempotencyStore.now(() -> store.complete(key, owner, response, retention));
            }

            @Override
            public CompletionStage<Boolean> releaseAsync(IdempotencyKey key, OwnerToken owner) {
                return AsyncIdempotencyStore.now(() -> store.release(key, owner));
            }

            @Override
            public CompletionStage<java.util.Optional<IdempotencyRecord>> findAsync(IdempotencyKey key) {
                return AsyncIdempotencyStore.now(() -> store.find(key));
            }
        };
    }

    /** An {@link Execution} on the direct store: each step has completed when its stage is returned. */
    private static final class JoinedExecution implements Execution {
        private final AsyncExecution execution;

        JoinedExecution(AsyncExecution execution) {
            this.execution = execution;
        }

        @Override
        public boolean isProtected() {
            return execution.isProtected();
        }

        @Override
        public Outcome.Executed complete(StoredResponse response) {
            return join(execution.complete(response));
        }

        @Override
        public Outcome.Executed completeWithoutResponse(int status) {
            return join(execution.completeWithoutResponse(status));
        }

        @Override
        public void fail(Throwable failure) {
            join(execution.fail(failure));
        }
    }

    /** An admitted execution; {@code owner} is null when running unprotected. */
    private final class HeldExecution implements AsyncExecution {
        private final AsyncIdempotencyStore store;
        private final IdempotencyKey key;
        private final @Nullable OwnerToken owner;
        private final IdempotencyConfig config;
        private final AtomicBoolean finished = new AtomicBoolean();

        HeldExecution(AsyncIdempotencyStore store, IdempotencyKey key, @Nullable OwnerToken owner, IdempotencyConfig config) {
            this.store = store;
            this.key = key;
            this.owner = owner;
            this.config = config;
        }

        @Override
        public boolean isProtected() {
            return owner != null;
        }

        @Override
        public CompletionStage<Outcome.Executed> complete(StoredResponse response) {
            markFinished();
            return record(response.status(), response)
                    .thenApply(recording -> report(key, new Outcome.Executed(response, recording)));
        }

        @Override
        public CompletionStage<Outcome.Executed> completeWithoutResponse(int status) {
            markFinished();
            return record(status, null).thenApply(recording -> report(key, new Outcome.Executed(status, null, recording)));
        }

        private CompletionStage<Outcome.Recording> record(int status, @Nullable StoredResponse response) {
            OwnerToken holder = owner;
            if (holder == null) {
                return CompletableFuture.completedFuture(Outcome.Recording.UNPROTECTED);
            }
            if (!config.responsePolicy().store(status)) {
                return release(holder).handle((released, failure) -> failure == null
                        ? (released ? Outcome.Recording.RELEASED : Outcome.Recording.LEASE_LOST)
                        : notRecorded(failure));
            }
            if (response == null) {
                return completedWithoutResponse(holder);
            }
            return completed(holder, response).handle((done, failure) -> {
                if (failure == null) {
                    return CompletableFuture.completedFuture(done ? Outcome.Recording.STORED : Outcome.Recording.LEASE_LOST);
                }
                Throwable cause = unwrap(failure);
                if (cause instanceof StoreUnavailableException) {
                    // the store is unreachable: a second write would fail alike (or wait out another
                    // budget); the key stays IN_PROGRESS until its lease ends
                    return CompletableFuture.completedFuture(Outcome.Recording.NOT_RECORDED);
                }
                if (!(cause instanceof RuntimeException)) {
                    throw failure instanceof CompletionException c ? c : new CompletionException(cause);
                }
                // the store refused this value (a server limit, say); the work ran, so the key
                // must stay taken: complete it without the response
                LOG.log(System.Logger.Level.WARNING, "the response of an idempotent request could not be"
                        + " stored ({0}); keeping its key completed without the response", cause.toString());
                return completedWithoutResponse(holder);
            }).thenCompose(recording -> recording);
        }

        private CompletionStage<Outcome.Recording> completedWithoutResponse(OwnerToken holder) {
            // any failure leaves the key IN_PROGRESS until its lease ends
            return completed(holder, null).handle((done, failure) -> failure == null
                    ? (done ? Outcome.Recording.STORED_WITHOUT_RESPONSE : Outcome.Recording.LEASE_LOST)
                    : Outcome.Recording.NOT_RECORDED);
        }

        /** NOT_RECORDED for an unreachable store; anything else is rethrown. */
        private Outcome.Recording notRecorded(Throwable failure) {
            if (unwrap(failure) instanceof StoreUnavailableException) {
                return Outcome.Recording.NOT_RECORDED;
            }
            throw failure instanceof CompletionException c ? c : new CompletionException(failure);
        }

        private CompletionStage<Boolean> completed(OwnerToken holder, @Nullable StoredResponse response) {
            return timed("complete", () -> store.completeAsync(key, holder, response, config.retention()));
        }

        @Override
        public CompletionStage<Void> fail(Throwable failure) {
            markFinished();
            OwnerToken holder = owner;
            if (holder == null || !config.releaseOnException()) {
                return CompletableFuture.completedFuture(null);
            }
            return release(holder).handle((released, releaseFailure) -> {
                if (releaseFailure != null) {
                    Throwable cause = unwrap(releaseFailure);
                    if (!(cause instanceof StoreUnavailableException)) {
                        throw releaseFailure instanceof CompletionException c ? c : new CompletionException(cause);
                    }
                    failure.addSuppressed(cause);
                }
                return null;
            });
        }

        @Override
        public CompletionStage<Boolean> abandon() {
            markFinished();
            OwnerToken holder = owner;
            if (holder == null) {
                return CompletableFuture.completedFuture(false);
            }
            return release(holder).handle((released, failure) -> {
                if (failure == null) {
                    return released;
                }
                notRecorded(failure); // rethrows anything but an unreachable store, which leaves the key to its lease
                return false;
            });
        }

        private CompletionStage<Boolean> release(OwnerToken holder) {
            return timed("release", () -> store.releaseAsync(key, holder));
        }

        private void markFinished() {
            if (!finished.compareAndSet(false, true)) {
                throw new IllegalStateException("an execution is finished exactly once");
            }
        }
    }

    /** Builds an engine; only the store is required. */
    public static final class Builder {
        private final IdempotencyStore store;
        private IdempotencyListener listener = IdempotencyListener.NONE;
        private @Nullable AsyncIdempotencyStore async;
        private LongSupplier nanoTime = System::nanoTime;

        private Builder(IdempotencyStore store) {
            this.store = Objects.requireNonNull(store, "store");
        }

        /** The listener told of every outcome and store call; its failures never change an outcome. */
        public Builder listener(IdempotencyListener listener) {
            this.listener = Objects.requireNonNull(listener);
            return this;
        }

        /**
         * The store {@link IdempotencyEngine#admitAsync} works on: the same records as the blocking
         * store's (the same store, or a view of it). Default: the blocking store itself when it
         * implements {@link AsyncIdempotencyStore}, otherwise its blocking calls made on the caller's
         * thread; give a store that blocks {@link AsyncIdempotencyStore#blocking} on a bounded executor.
         */
        public Builder async(AsyncIdempotencyStore async) {
            this.async = Objects.requireNonNull(async);
            return this;
        }

        /** The monotonic time source for store-call timings (default {@code System::nanoTime}). */
        public Builder nanoTime(LongSupplier nanoTime) {
            this.nanoTime = Objects.requireNonNull(nanoTime);
            return this;
        }

        public IdempotencyEngine build() {
            return new IdempotencyEngine(this);
        }
    }
}
