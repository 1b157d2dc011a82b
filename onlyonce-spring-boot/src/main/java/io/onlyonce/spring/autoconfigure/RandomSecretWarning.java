package io.onlyonce.spring.autoconfigure;

import io.onlyonce.token.OneTimeToken;
import io.onlyonce.token.TokenStore;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The token store of a {@code TokenService} that signs with a random secret of this instance (no
 * {@code onlyonce.token.secrets}, a store of one instance): logs the one WARN that says so when the
 * first token is issued, so that an application that never issues a token never reads it.
 */
final class RandomSecretWarning implements TokenStore {

    private static final Logger log = LoggerFactory.getLogger(OnlyOnceAutoConfiguration.class);

    private final TokenStore delegate;
    private final AtomicBoolean warned = new AtomicBoolean();

    RandomSecretWarning(TokenStore delegate) {
        this.delegate = delegate;
    }

    @Override
    public boolean save(OneTimeToken token, Duration ttl) {
        if (warned.compareAndSet(false, true)) {
            log.warn("onlyonce.token.secrets is not set: one-time tokens are signed with a random secret of this"
                    + " instance only, and become invalid when it restarts (set onlyonce.token.secrets, at least 32"
                    + " bytes, to keep them valid across restarts)");
        }
        return delegate.save(token, ttl);
    }

    @Override
    public boolean consume(OneTimeToken token) {
        return delegate.consume(token);
    }

    @Override
    public boolean restore(OneTimeToken token) {
        return delegate.restore(token);
    }
}
