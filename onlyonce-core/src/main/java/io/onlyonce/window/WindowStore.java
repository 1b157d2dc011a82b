package io.onlyonce.window;

import io.onlyonce.Fingerprint;
import io.onlyonce.StoreUnavailableException;
import java.time.Duration;
import java.time.Instant;

/**
 * Remembers request fingerprints for a short window. Thread-safe and atomic: of any number of
 * concurrent calls with one fingerprint inside a window, exactly one gets {@code true}.
 *
 * <p>Infrastructure faults surface as {@link StoreUnavailableException}; the caller decides to
 * fail open or closed.
 */
public interface WindowStore {

    /**
     * Opens a window of length {@code window} for {@code fingerprint} at {@code now}, unless one
     * is still open ({@code now < end}).
     *
     * @return {@code true} if this call is the first in the window
     */
    boolean firstInWindow(Fingerprint fingerprint, Duration window, Instant now);
}
