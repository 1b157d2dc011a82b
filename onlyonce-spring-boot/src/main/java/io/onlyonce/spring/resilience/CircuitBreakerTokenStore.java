package io.onlyonce.spring.resilience;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.onlyonce.token.OneTimeToken;
import io.onlyonce.token.TokenStore;
import java.time.Duration;

/** A {@link TokenStore} whose calls go through a circuit breaker. */
public final class CircuitBreakerTokenStore implements TokenStore {

    private final TokenStore delegate;
    private final CircuitBreaker breaker;

    public CircuitBreakerTokenStore(TokenStore delegate, CircuitBreaker breaker) {
        this.delegate = delegate;
        this.breaker = breaker;
    }

    @Override
    public boolean save(OneTimeToken token, Duration ttl) {
        return CircuitBreakers.call(breaker, "save token", () -> delegate.save(token, ttl));
    }

    @Override
    public boolean consume(OneTimeToken token) {
        return CircuitBreakers.call(breaker, "consume token", () -> delegate.consume(token));
    }

    @Override
    public boolean restore(OneTimeToken token) {
        return CircuitBreakers.attempt(breaker, () -> delegate.restore(token)); // puts back what a failed call took
    }
}
