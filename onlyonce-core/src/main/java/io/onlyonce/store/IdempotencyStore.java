package io.onlyonce.store;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.StoredResponse;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Where idempotency records live. Implementations are thread-safe and keep these rules, each
 * operation in one atomic step (one Lua script, one conditional SQL statement, one
 * {@code compute}); none of them checks and then writes.
 *
 * <h2>Claim</h2>
 * {@link #claim} succeeds only if the key is absent, or its record has expired: a COMPLETED record
 * whose retention has passed, or an IN_PROGRESS record whose holder's lease has passed. A successful
 * claim writes an IN_PROGRESS record that expires after {@code lease} and returns a fresh
 * {@link OwnerToken} (the fencing token). Otherwise the live record is returned and nothing is
 * written.
 *
 * <h2>Complete and release</h2>
 * Both are accepted only from the current holder: the record exists, is IN_PROGRESS, carries the
 * same owner token, and its lease has not passed. A holder that lost its lease (expired, taken
 * over, or released) is refused with {@code false}, and nothing changes.
 *
 * <h2>Time: one clock</h2>
 * Every expiry is decided on the store's own clock, the one that all instances sharing the store
 * share: Redis's (key expiry), the database server's (its current time in SQL), this JVM's for an
 * in-memory store. Callers pass durations, never instants, so an instance whose clock runs ahead
 * can neither take over a running claim nor end a retention early.
 *
 * <h2>Failures</h2>
 * When the backing server cannot be reached, or holds a value these stores did not write, every
 * method throws {@link StoreUnavailableException}; none returns a made-up answer.
 */
public interface IdempotencyStore {

    /**
     * Claims {@code key} for the caller, or returns the live record that holds it.
     *
     * @param lease how long the caller may hold the key before another caller may take it over
     */
    ClaimResult claim(IdempotencyKey key, Fingerprint fingerprint, Duration lease);

    /**
     * Turns the caller's IN_PROGRESS record into COMPLETED, kept for {@code retention}.
     *
     * @param response the response to replay, or {@code null} when the work ran but its response
     *     cannot be kept: the key then stays taken, and retries are told so instead of running again
     * @return {@code false} when the caller is no longer the holder (nothing changed)
     */
    boolean complete(IdempotencyKey key, OwnerToken owner, @Nullable StoredResponse response, Duration retention);

    /**
     * Deletes the caller's IN_PROGRESS record, so that a retry executes again.
     *
     * @return {@code false} when the caller is no longer the holder (nothing changed)
     */
    boolean release(IdempotencyKey key, OwnerToken owner);

    /** The live record under {@code key}: empty when absent or expired. */
    Optional<IdempotencyRecord> find(IdempotencyKey key);
}
