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
}
