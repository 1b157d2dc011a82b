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
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
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
 * {@link Outcome.Replayed}, a running one is {@link Outcome.InProgress}. After the action, the
 * {@link ResponsePolicy} decides between complete and release; an exception releases the key
 * (unless configured otherwise) and is rethrown unchanged.
 *
 * <p>{@link #execute} wraps the whole run; {@link #admit} splits it in two for callers that see
 * the response only later. Thread-safe.
 */
public final class IdempotencyEngine {

    private static final Duration MIN_RETRY_AFTER = Duration.ofSeconds(1);

    private final IdempotencyStore store;
    private final Clock clock;
    private final IdempotencyListener listener;
    private final LongSupplier nanoTime;

    private IdempotencyEngine(Builder builder) {
        this.store = builder.store;
        this.clock = builder.clock;
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
        Instant now = clock.instant();
        ClaimResult claim;
        try {
            claim = timed("claim", () -> store.claim(key, fingerprint, now, config.lease()));
        } catch (StoreUnavailableException e) {
            if (config.storeFailurePolicy() == StoreFailurePolicy.STRICT) {
                return new Admission.Decided(report(key, new Outcome.StoreUnavailable(config.unavailableRetryAfter(), e)));
            }
            return new Admission.Admitted(new HeldExecution(key, null, config));
        }
        if (claim instanceof ClaimResult.Existing existing) {
            return new Admission.Decided(report(key, decide(existing.record(), fingerprint, now)));
        }
        return new Admission.Admitted(new HeldExecution(key, ((ClaimResult.Claimed) claim).owner(), config));
    }

    private Outcome decide(IdempotencyRecord record, Fingerprint fingerprint, Instant now) {
        if (!record.fingerprint().equals(fingerprint)) {
            return new Outcome.FingerprintMismatch();
        }
        if (record.status() == RecordStatus.COMPLETED) {
            return new Outcome.Replayed(Objects.requireNonNull(record.response()));
        }
        Duration left = Duration.between(now, record.expiresAt());
        Duration rounded = Duration.ofSeconds(left.getSeconds() + (left.getNano() > 0 ? 1 : 0));
        return new Outcome.InProgress(rounded.compareTo(MIN_RETRY_AFTER) < 0 ? MIN_RETRY_AFTER : rounded);
    }

    private <T> T timed(String operation, Supplier<T> call) {
        long start = nanoTime.getAsLong();
        try {
            return call.get();
        } catch (StoreUnavailableException e) {
            listener.onStoreError(operation, e);
            throw e;
        } finally {
            listener.onStoreCall(operation, Duration.ofNanos(nanoTime.getAsLong() - start));
        }
    }

    private <O extends Outcome> O report(IdempotencyKey key, O outcome) {
        listener.onOutcome(key, outcome);
        return outcome;
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
            return report(key, new Outcome.Executed(response, record(response)));
        }

        private Outcome.Recording record(StoredResponse response) {
            OwnerToken holder = owner;
            if (holder == null) {
                return Outcome.Recording.UNPROTECTED;
            }
            try {
                if (config.responsePolicy().store(response)) {
                    Instant now = clock.instant();
                    boolean stored = timed("complete", () -> store.complete(key, holder, response, now, config.retention()));
                    return stored ? Outcome.Recording.STORED : Outcome.Recording.LEASE_LOST;
                }
                return release(holder) ? Outcome.Recording.RELEASED : Outcome.Recording.LEASE_LOST;
            } catch (StoreUnavailableException e) {
                return Outcome.Recording.NOT_RECORDED;
            } catch (RuntimeException unstorable) {
                // the response could not be encoded (a store limit, say): free the key so a retry
                // executes rather than waiting for the lease
                try {
                    release(holder);
                } catch (StoreUnavailableException e) {
                    unstorable.addSuppressed(e);
                }
                return Outcome.Recording.NOT_RECORDED;
            }
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
            Instant now = clock.instant();
            return timed("release", () -> store.release(key, holder, now));
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
        private Clock clock = Clock.systemUTC();
        private IdempotencyListener listener = IdempotencyListener.NONE;
        private LongSupplier nanoTime = System::nanoTime;

        private Builder(IdempotencyStore store) {
            this.store = Objects.requireNonNull(store, "store");
        }

        /** The clock that decides leases and retention (default: system UTC). */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock);
            return this;
        }

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
