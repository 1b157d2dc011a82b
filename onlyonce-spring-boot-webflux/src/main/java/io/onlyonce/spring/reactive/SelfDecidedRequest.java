package io.onlyonce.spring.reactive;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.engine.IdempotencyConfig;
import io.onlyonce.spring.http.AtomicAnswers;
import io.onlyonce.token.OneTimeToken;
import org.jspecify.annotations.Nullable;
import org.springframework.web.server.ServerWebExchange;

/**
 * What {@link ReactiveIdempotency} resolved for a request to a handler method that decides it
 * itself ({@link ReactiveAtomicIdempotency}): the record's key, the fingerprint the two-step path
 * computes, the verified token; and the refusal the handler's argument decided, which the web
 * filter answers instead of whatever the handler made of it. Kept as an attribute of the exchange.
 *
 * @see SelfDeciding
 */
final class SelfDecidedRequest {

    private static final String ATTRIBUTE = SelfDecidedRequest.class.getName();

    private final String endpoint;
    private final IdempotencyKey key;
    private final Fingerprint fingerprint;
    private final @Nullable OneTimeToken token;
    private final IdempotencyConfig config;
    private volatile AtomicAnswers.@Nullable Refusal refusal;

    SelfDecidedRequest(String endpoint, IdempotencyKey key, Fingerprint fingerprint, @Nullable OneTimeToken token,
            IdempotencyConfig config) {
        this.endpoint = endpoint;
        this.key = key;
        this.fingerprint = fingerprint;
        this.token = token;
        this.config = config;
    }

    /** The request resolved for {@code exchange}, or null when its handler is not protected so. */
    static @Nullable SelfDecidedRequest of(ServerWebExchange exchange) {
        return exchange.getAttribute(ATTRIBUTE) instanceof SelfDecidedRequest request ? request : null;
    }

    void attachTo(ServerWebExchange exchange) {
        exchange.getAttributes().put(ATTRIBUTE, this);
    }

    String endpoint() {
        return endpoint;
    }

    IdempotencyKey key() {
        return key;
    }

    Fingerprint fingerprint() {
        return fingerprint;
    }

    @Nullable OneTimeToken token() {
        return token;
    }

    IdempotencyConfig config() {
        return config;
    }

    /** Has the web filter answer {@code decided} instead of the handler. */
    void refuse(AtomicAnswers.Refusal decided) {
        refusal = decided;
    }

    /** The refusal decided for the request, or null. */
    AtomicAnswers.@Nullable Refusal refusal() {
        return refusal;
    }
}
