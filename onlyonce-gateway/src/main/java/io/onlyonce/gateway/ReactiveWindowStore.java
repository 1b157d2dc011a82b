package io.onlyonce.gateway;

import io.onlyonce.Fingerprint;
import io.onlyonce.window.WindowHit;
import java.time.Duration;
import reactor.core.publisher.Mono;

/**
 * The non-blocking form of {@link io.onlyonce.window.WindowStore}: counts one hit on a fingerprint,
 * opening a window of {@code window} unless one is open, on the store's own clock. Of any number of
 * concurrent hits on one fingerprint exactly one is the first of its window. Faults arrive as an
 * error signal; the caller decides to fail open.
 */
public interface ReactiveWindowStore {

    /** This hit's number within its window, and the time left in the window. */
    Mono<WindowHit> hit(Fingerprint key, Duration window);

    /**
     * Counts one hit of a request that carries an idempotency key, given as {@code opener} (lower-case
     * hex digits of its digest), in the same single step as {@link #hit(Fingerprint, Duration)}: the
     * window this hit opens records the opener; a later hit with the same opener within the window is
     * not counted and is answered as a {@linkplain KeyedWindowHit#retry() retry}; a hit with another
     * opener is counted like any other.
     *
     * <p>The default cannot record an opener: it counts every hit, so a retry is a repeat like any
     * other. {@link ReactiveRedisWindowStore} records it.
     */
    default Mono<KeyedWindowHit> hit(Fingerprint key, Duration window, String opener) {
        return hit(key, window).map(hit -> new KeyedWindowHit(hit, false));
    }
}
