package io.onlyonce.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.StoredResponse;
import io.onlyonce.engine.AsyncAdmission;
import io.onlyonce.engine.IdempotencyConfig;
import io.onlyonce.engine.IdempotencyEngine;
import io.onlyonce.engine.Outcome;
import io.onlyonce.store.AsyncIdempotencyStore;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.IdempotencyRecord;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.store.OwnerToken;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The rules every {@link AsyncIdempotencyStore} keeps: the whole {@link AbstractIdempotencyStoreContractTest}
 * run through the asynchronous methods only (each test waits for the stage it got), plus the
 * asynchronous engine on top. A store's test returns the store from {@link #createAsyncStore()};
 * the other hooks are the blocking suite's, in their asynchronous form.
 */
public abstract class AbstractAsyncIdempotencyStoreContractTest extends AbstractIdempotencyStoreContractTest {

    /** The longest a test waits for one stage. */
    private static final long WAIT_SECONDS = 30;

    /** A store on the real server, isolated from every other test. Called before each test. */
    protected abstract AsyncIdempotencyStore createAsyncStore() throws Exception;

    /** A second client of the same data; by default the same store. */
    protected AsyncIdempotencyStore createAsyncSecondClient() throws Exception {
        return createAsyncStore();
    }

    /** A store whose server is stopped or unreachable; empty where there is no server. */
    protected Optional<AsyncIdempotencyStore> createUnreachableAsyncStore() throws Exception {
        return Optional.empty();
    }

    @Override
    protected final IdempotencyStore createStore() throws Exception {
        return waitingFor(createAsyncStore());
    }

    @Override
    protected final IdempotencyStore createSecondClient() throws Exception {
        return waitingFor(createAsyncSecondClient());
    }

    @Override
    protected final Optional<IdempotencyStore> createUnreachableStore() throws Exception {
        return createUnreachableAsyncStore().map(AbstractAsyncIdempotencyStoreContractTest::waitingFor);
    }

    @Test
    void anUnreachableServerFailsTheStageAndNeverThrowsFromTheCall() throws Exception {
        Optional<AsyncIdempotencyStore> unreachable = createUnreachableAsyncStore();
        assumeTrue(unreachable.isPresent(), "no server to stop");
        CompletionStage<ClaimResult> claim = unreachable.get().claimAsync(key(), fingerprint("a"), LEASE);
        assertThat(failure(claim)).isInstanceOf(StoreUnavailableException.class);
    }

    @Test
    void theAsynchronousEngineRunsOnceAndReplays() throws Exception {
        AsyncIdempotencyStore async = createAsyncStore();
        IdempotencyEngine engine = IdempotencyEngine.builder(waitingFor(async)).async(async).build();
        IdempotencyKey key = key();
        IdempotencyConfig config = IdempotencyConfig.ofDefaults();
        AsyncAdmission first = value(engine.admitAsync(key, fingerprint("a"), config));
        assertThat(first).isInstanceOf(AsyncAdmission.Admitted.class);
        AsyncAdmission running = value(engine.admitAsync(key, fingerprint("a"), config));
        assertThat(((AsyncAdmission.Decided) running).outcome()).isInstanceOf(Outcome.InProgress.class);
        Outcome.Executed executed = value(((AsyncAdmission.Admitted) first).execution().complete(response()));
        assertThat(executed.recording()).isEqualTo(Outcome.Recording.STORED);
        AsyncAdmission again = value(engine.admitAsync(key, fingerprint("a"), config));
        Outcome replayed = ((AsyncAdmission.Decided) again).outcome();
        assertThat(replayed).isInstanceOf(Outcome.Replayed.class);
        assertThat(((Outcome.Replayed) replayed).response().body()).isEqualTo(response().body());
        AsyncAdmission other = value(engine.admitAsync(key, fingerprint("b"), config));
        assertThat(((AsyncAdmission.Decided) other).outcome()).isInstanceOf(Outcome.FingerprintMismatch.class);
    }

    @Test
    void aFailedAsynchronousExecutionReleasesItsKey() throws Exception {
        AsyncIdempotencyStore async = createAsyncStore();
        IdempotencyEngine engine = IdempotencyEngine.builder(waitingFor(async)).async(async).build();
        IdempotencyKey key = key();
        AsyncAdmission first = value(engine.admitAsync(key, fingerprint("a"), IdempotencyConfig.ofDefaults()));
        value(((AsyncAdmission.Admitted) first).execution().fail(new IllegalStateException("boom")));
        assertThat(value(async.findAsync(key))).isEmpty();
        assertThat(value(engine.admitAsync(key, fingerprint("a"), IdempotencyConfig.ofDefaults())))
                .isInstanceOf(AsyncAdmission.Admitted.class);
    }

    /** {@code async} as a blocking store that waits for each stage, rethrowing its failure as it was. */
    protected static IdempotencyStore waitingFor(AsyncIdempotencyStore async) {
        return new IdempotencyStore() {
            @Override
            public ClaimResult claim(IdempotencyKey key, Fingerprint fingerprint, Duration lease) {
                return value(async.claimAsync(key, fingerprint, lease));
            }

            @Override
            public boolean complete(IdempotencyKey key, OwnerToken owner, @Nullable StoredResponse response,
                    Duration retention) {
                return value(async.completeAsync(key, owner, response, retention));
            }

            @Override
            public boolean release(IdempotencyKey key, OwnerToken owner) {
                return value(async.releaseAsync(key, owner));
            }

            @Override
            public Optional<IdempotencyRecord> find(IdempotencyKey key) {
                return value(async.findAsync(key));
            }
        };
    }

    private static <T> T value(CompletionStage<T> stage) {
        CompletableFuture<T> future = stage.toCompletableFuture();
        try {
            return future.get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new AssertionError("the stage failed", e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError("the stage did not complete within " + WAIT_SECONDS + " s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static Throwable failure(CompletionStage<?> stage) throws InterruptedException, TimeoutException {
        try {
            stage.toCompletableFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        }
        throw new AssertionError("the stage completed normally");
    }
}
