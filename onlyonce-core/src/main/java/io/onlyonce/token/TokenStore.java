package io.onlyonce.token;

import io.onlyonce.StoreUnavailableException;
import java.time.Duration;

/**
 * Where issued tokens wait to be consumed. Implementations are thread-safe and atomic:
 * {@link #consume} of one token succeeds for exactly one caller, however many race, and never
 * for a token that was not saved or whose life has ended. A token's life is decided on the store's
 * own clock (Redis's, the database server's, this JVM's), never on a caller's, so instances whose
 * clocks differ agree. Every entry is dropped by the store some time after its life ended, never
 * before. A store never drops a live token to make room for another: when full, it refuses the new one.
 *
 * <p>Infrastructure faults surface as {@link StoreUnavailableException}.
 */
public interface TokenStore {

    /**
     * Records a newly issued token as CREATED, usable for {@code ttl}.
     *
     * @return {@code false} when the store refused the token because it is full (nothing changed)
     */
    boolean save(OneTimeToken token, Duration ttl);

    /**
     * Moves a CREATED, unexpired token to CONSUMED in one atomic step.
     *
     * @return {@code true} for exactly one caller; {@code false} if consumed, unknown or expired
     */
    boolean consume(OneTimeToken token);

    /**
     * Puts a consumed, unexpired token back to CREATED, for the opt-in "restore on failure" policy.
     * The only backward step of the lifecycle; never revives an expired token.
     *
     * @return {@code true} if the token is usable again
     */
    boolean restore(OneTimeToken token);
}
