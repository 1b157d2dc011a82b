package io.onlyonce.spring.resilience;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.onlyonce.token.OneTimeToken;
import io.onlyonce.token.TokenStore;
import java.time.Instant;

/** A {@link TokenStore} whose calls go through a circuit breaker. */
public final class CircuitBreakerTokenStore implements TokenStore {

    private final TokenStore delegate;
    private final CircuitBreaker breaker;

    public CircuitBreakerTokenStore(TokenStore delegate, CircuitBreaker breaker) {
        this.delegate = delegate;
        this.breaker = breaker;
    }

    @Override
    public void save(OneTimeToken token, Instant now) {
        CircuitBreakers.call(breaker, "save token", () -> {
            delegate.save(token, now);
            return null;
        });
    }

    @Override
    public boolean consume(OneTimeToken token, Instant now) {
        return CircuitBreakers.call(breaker, "consume token", () -> delegate.consume(token, now));
    }

    @Override
    public boolean restore(OneTimeToken token, Instant now) {
        return CircuitBreakers.call(breaker, "restore token", () -> delegate.restore(token, now));
    }
}
