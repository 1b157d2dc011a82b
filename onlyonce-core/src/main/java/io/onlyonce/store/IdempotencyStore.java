package io.onlyonce.store;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.StoredResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Where idempotency records live. Implementations are thread-safe and keep these rules, each
 * operation in one atomic step (one Lua script, one conditional SQL statement, one
 * {@code compute}); none of them checks and then writes.
 *
 * <h2>Claim</h2>
 * {@link #claim} succeeds only if the key is
 * <ol>
 *   <li>absent, or</li>
 *   <li>{@link RecordStatus#COMPLETED} with {@code expiresAt <= now} (retention over), or</li>
 *   <li>{@link RecordStatus#IN_PROGRESS} with {@code expiresAt <= now} (its holder's lease passed).</li>
 * </ol>
 * A successful claim writes an IN_PROGRESS record whose {@code expiresAt} is {@code now + lease}
 * and returns a fresh {@link OwnerToken} (the fencing token). Otherwise the record found is
 * returned unchanged and nothing is written.
 *
 * <h2>Complete and release</h2>
 * Both are accepted only from the current holder: the record exists, is IN_PROGRESS, carries the
 * same owner token, and its lease has not passed ({@code now < expiresAt}). A holder that lost its
 * lease (expired, taken over, or released) is refused with {@code false}, and nothing changes.
 *
 * <h2>Time and expiry</h2>
 * {@code now} is the caller's clock; all decisions compare against it. A store may also let its
 * server drop keys at the same deadline (TTL), but never earlier. EXPIRED is not stored: it is
 * derived from {@code expiresAt} (see {@link IdempotencyRecord#statusAt}).
 *
 * <h2>Failures</h2>
 * When the backing server cannot be reached every method throws
 * {@link StoreUnavailableException}; none returns a made-up answer.
 */
public interface IdempotencyStore {

    /**
     * Claims {@code key} for the caller, or returns the live record that holds it.
     *
     * @param lease how long the caller may hold the key before another caller may take it over
     */
    ClaimResult claim(IdempotencyKey key, Fingerprint fingerprint, Instant now, Duration lease);

    /**
     * Turns the caller's IN_PROGRESS record into COMPLETED with the response, kept until
     * {@code now + retention}.
     *
     * @return {@code false} when the caller is no longer the holder (nothing changed)
     */
    boolean complete(IdempotencyKey key, OwnerToken owner, StoredResponse response, Instant now, Duration retention);

    /**
     * Deletes the caller's IN_PROGRESS record, so that a retry executes again.
     *
     * @return {@code false} when the caller is no longer the holder (nothing changed)
     */
    boolean release(IdempotencyKey key, OwnerToken owner, Instant now);

    /** The live record under {@code key}: empty when absent or expired at {@code now}. */
    Optional<IdempotencyRecord> find(IdempotencyKey key, Instant now);
}
