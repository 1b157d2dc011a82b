package io.onlyonce.spring.web;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.engine.IdempotencyConfig;
import io.onlyonce.token.OneTimeToken;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

/**
 * An argument of an {@code @Idempotent} handler method that decides the request itself, in the same
 * store call as the method's effect ({@code io.onlyonce.spring.atomic.AtomicIdempotency}): for such a
 * method OnlyOnce verifies the key or token, resolves the record's key and binds it here, but claims
 * nothing, consumes nothing and records nothing; the argument does all of that in its one call.
 */
public interface SelfDecided {

    /**
     * What OnlyOnce resolved for the request.
     *
     * @param request the request
     * @param exchange its idempotency state, which answers a refusal or replay the argument decides
     * @param endpoint its route, as OnlyOnce's metrics name it
     * @param key the record's key (from the {@code Idempotency-Key}, or derived from the token)
     * @param fingerprint the request's fingerprint, as the two-step path computes it
     * @param token the verified one-time token of a TOKEN method, else null
     * @param config the method's settings (retention, the Retry-After of a store outage)
     */
    record Binding(HttpServletRequest request, IdempotentExchange exchange, String endpoint, IdempotencyKey key, Fingerprint fingerprint,
            @Nullable OneTimeToken token, IdempotencyConfig config) {
    }

    /** Called by OnlyOnce before the method runs. */
    void bind(Binding binding);
}
