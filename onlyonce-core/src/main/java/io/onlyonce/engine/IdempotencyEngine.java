package io.onlyonce.engine;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.StoredResponse;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.IdempotencyRecord;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.store.OwnerToken;
import io.onlyonce.store.RecordStatus;
import java.time.Duration;
import java.util.Objects;
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
 * the response only later. Listener failures are logged and never change an outcome. Thread-safe.
 */
public final class IdempotencyEngine {

    private static final System.Logger LOG = System.getLogger(IdempotencyEngine.class.getName());
    private static final Duration MIN_RETRY_AFTER = Duration.ofSeconds(1);

    private final IdempotencyStore store;
    private final IdempotencyListener listener;
    private final LongSupplier nanoTime;

    private IdempotencyEngine(Builder builder) {
        this.store = builder.store;
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
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(config, "config");
        ClaimResult claim;
        try {
            claim = timed("claim", () -> store.claim(key, fingerprint, config.lease()));
        } catch (StoreUnavailableException e) {
            if (config.storeFailurePolicy() == StoreFailurePolicy.STRICT) {
                return new Admission.Decided(report(key, new Outcome.StoreUnavailable(config.unavailableRetryAfter(), e)));
            }
            return new Admission.Admitted(new HeldExecution(key, null, config));
        }
        if (claim instanceof ClaimResult.Existing existing) {
            return new Admission.Decided(report(key, decide(existing.record(), fingerprint, config.lease())));
        }
        return new Admission.Admitted(new HeldExecution(key, ((ClaimResult.Claimed) claim).owner(), config));
    }

    private static Outcome decide(IdempotencyRecord record, Fingerprint fingerprint, Duration lease) {
        if (!record.fingerprint().equals(fingerprint)) {
            return new Outcome.FingerprintMismatch();
        }
        if (record.status() == RecordStatus.COMPLETED) {
            StoredResponse response = record.response();
            return response == null ? new Outcome.ResponseNotKept() : new Outcome.Replayed(response);
        }
        Duration left = record.expiresIn();
        Duration rounded = Duration.ofSeconds(left.getSeconds() + (left.getNano() > 0 ? 1 : 0));
        Duration running = lease.minus(left);
        return new Outcome.InProgress(rounded.compareTo(MIN_RETRY_AFTER) < 0 ? MIN_RETRY_AFTER : rounded,
                running.isNegative() ? Duration.ZERO : running);
    }

    private <T> T timed(String operation, Supplier<T> call) {
        long start = nanoTime.getAsLong();
        try {
            return call.get();
        } catch (StoreUnavailableException e) {
            notifyListener(() -> listener.onStoreError(operation, e));
            throw e;
        } finally {
            Duration elapsed = Duration.ofNanos(nanoTime.getAsLong() - start);
            notifyListener(() -> listener.onStoreCall(operation, elapsed));
        }
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

    /** An admitted execution; {@code owner} is null when running unprotected. */
    private final class HeldExecution implements Execution {
        private final IdempotencyKey key;
        private final @Nullable OwnerToken owner;
        private final IdempotencyConfig config;
        private boolean finished;

        HeldExecution(IdempotencyKey key, @Nullable OwnerToken owner, IdempotencyConfig config) {
            this.key = key;
            this.owner = owner;
            this.config = config;
        }

        @Override
        public boolean isProtected() {
            return owner != null;
        }

        @Override
        public Outcome.Executed complete(StoredResponse response) {
            markFinished();
            return report(key, new Outcome.Executed(response, record(response.status(), response)));
        }

        @Override
        public Outcome.Executed completeWithoutResponse(int status) {
            markFinished();
            return report(key, new Outcome.Executed(status, null, record(status, null)));
        }

        private Outcome.Recording record(int status, @Nullable StoredResponse response) {
            OwnerToken holder = owner;
            if (holder == null) {
                return Outcome.Recording.UNPROTECTED;
            }
            if (!config.responsePolicy().store(status)) {
                try {
                    return release(holder) ? Outcome.Recording.RELEASED : Outcome.Recording.LEASE_LOST;
                } catch (StoreUnavailableException e) {
                    return Outcome.Recording.NOT_RECORDED;
                }
            }
            if (response != null) {
                try {
                    return completed(holder, response) ? Outcome.Recording.STORED : Outcome.Recording.LEASE_LOST;
                } catch (StoreUnavailableException down) {
                    // the store is unreachable: a second write would fail alike (or wait out another
                    // budget); the key stays IN_PROGRESS until its lease ends
                    return Outcome.Recording.NOT_RECORDED;
                } catch (RuntimeException notKept) {
                    // the store refused this value (a server limit, say); the work ran, so the key
                    // must stay taken: complete it without the response below
                    LOG.log(System.Logger.Level.WARNING, "the response of an idempotent request could not be"
                            + " stored ({0}); keeping its key completed without the response", notKept.toString());
                }
            }
            try {
                return completed(holder, null) ? Outcome.Recording.STORED_WITHOUT_RESPONSE : Outcome.Recording.LEASE_LOST;
            } catch (RuntimeException e) {
                // the key stays IN_PROGRESS until its lease ends
                return Outcome.Recording.NOT_RECORDED;
            }
        }

        private boolean completed(OwnerToken holder, @Nullable StoredResponse response) {
            return timed("complete", () -> store.complete(key, holder, response, config.retention()));
        }

        @Override
        public void fail(Throwable failure) {
            markFinished();
            OwnerToken holder = owner;
            if (holder != null && config.releaseOnException()) {
                try {
                    release(holder);
                } catch (StoreUnavailableException e) {
                    failure.addSuppressed(e);
                }
            }
        }

        private boolean release(OwnerToken holder) {
            return timed("release", () -> store.release(key, holder));
        }

        private void markFinished() {
            if (finished) {
                throw new IllegalStateException("an execution is finished exactly once");
            }
            finished = true;
        }
    }

    /** Builds an engine; only the store is required. */
    public static final class Builder {
        private final IdempotencyStore store;
        private IdempotencyListener listener = IdempotencyListener.NONE;
        private LongSupplier nanoTime = System::nanoTime;

        private Builder(IdempotencyStore store) {
            this.store = Objects.requireNonNull(store, "store");
        }

        /** The listener told of every outcome and store call; its failures never change an outcome. */
        public Builder listener(IdempotencyListener listener) {
            this.listener = Objects.requireNonNull(listener);
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
