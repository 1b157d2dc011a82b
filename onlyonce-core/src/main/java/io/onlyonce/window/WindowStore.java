package io.onlyonce.window;

import io.onlyonce.Fingerprint;
import io.onlyonce.StoreUnavailableException;
import java.time.Duration;

/**
 * Counts requests per fingerprint in short fixed windows: the request de-dup window (the first hit
 * passes, the others inside the window are duplicates) and per-caller rate limits (at most N hits
 * per window). Thread-safe and atomic: of any number of concurrent hits on one fingerprint, exactly
 * one is the first of its window, and no two get the same count.
 *
 * <p>A window opens at the first hit and lasts {@code window}, measured on the store's own clock
 * (Redis's key expiry, the database server's time, this JVM's); later hits do not extend it.
 * Infrastructure faults surface as {@link StoreUnavailableException}; the caller decides to fail
 * open or closed.
 */
public interface WindowStore {

    /**
     * Counts one hit on {@code key}, opening a window of length {@code window} unless one is open.
     *
     * @return this hit's number within its window, and the time left in the window
     */
    WindowHit hit(Fingerprint key, Duration window);

    /**
     * Takes back one hit of the window open on {@code key}: the caller's own, for a request that was
     * refused before it did anything (bad input, no token), so that the corrected request that
     * follows at once counts as if the refused one had never come. The last hit taken back closes
     * the window. Does nothing when no window is open on {@code key}. Should the caller's window have
     * ended and another caller's opened since, that one loses a hit: one more request passes the
     * window, and the layers behind it still judge it.
     */
    void release(Fingerprint key);
}
