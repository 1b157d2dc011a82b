package io.onlyonce.token;

import io.onlyonce.StoreUnavailableException;
import java.time.Instant;

/**
 * Where issued tokens wait to be consumed. Implementations are thread-safe and atomic:
 * {@link #consume} of one token succeeds for exactly one caller, however many race, and never
 * for a token that was not saved or whose {@code expiresAt <= now}. Every entry is dropped by the
 * store at the latest some time after its expiry (a TTL), never before.
 *
 * <p>Infrastructure faults surface as {@link StoreUnavailableException}.
 */
public interface TokenStore {

    /** Records a newly issued token as CREATED. */
    void save(OneTimeToken token, Instant now);

    /**
     * Moves a CREATED, unexpired token to CONSUMED in one atomic step.
     *
     * @return {@code true} for exactly one caller; {@code false} if consumed, unknown or expired
     */
    boolean consume(OneTimeToken token, Instant now);

    /**
     * Puts a consumed, unexpired token back to CREATED, for the opt-in "restore on failure" policy.
     * The only backward step of the lifecycle; never revives an expired token.
     *
     * @return {@code true} if the token is usable again
     */
    boolean restore(OneTimeToken token, Instant now);
}
