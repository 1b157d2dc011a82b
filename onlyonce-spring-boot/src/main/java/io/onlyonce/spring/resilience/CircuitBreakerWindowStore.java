package io.onlyonce.spring.resilience;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.onlyonce.Fingerprint;
import io.onlyonce.window.WindowHit;
import io.onlyonce.window.WindowStore;
import java.time.Duration;

/** A {@link WindowStore} whose calls go through a circuit breaker. */
public final class CircuitBreakerWindowStore implements WindowStore {

    private final WindowStore delegate;
    private final CircuitBreaker breaker;

    public CircuitBreakerWindowStore(WindowStore delegate, CircuitBreaker breaker) {
        this.delegate = delegate;
        this.breaker = breaker;
    }

    @Override
    public WindowHit hit(Fingerprint key, Duration window) {
        return CircuitBreakers.call(breaker, "window", () -> delegate.hit(key, window));
    }

    /** Sent also while the circuit is open (it frees a window, never opens one), and counted toward the breaker. */
    @Override
    public void release(Fingerprint key) {
        CircuitBreakers.attempt(breaker, () -> {
            delegate.release(key);
            return null;
        });
    }
}
