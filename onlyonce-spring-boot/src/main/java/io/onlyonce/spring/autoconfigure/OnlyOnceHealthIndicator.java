package io.onlyonce.spring.autoconfigure;

import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.token.OneTimeToken;
import io.onlyonce.token.TokenStore;
import java.time.Instant;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * {@code onlyonce} in {@code /actuator/health}: DOWN while the idempotency store (or the token
 * store, when tokens are on) cannot be reached. Each check is one cheap read through the store's
 * circuit breaker, within the store's own budget: a lookup of a key nobody uses, and a consume of
 * a token that was never issued, neither of which writes anything. An open breaker reads DOWN
 * without a store call. While the idempotency store is down the token store is not asked (on one
 * server they share its fate), so a check never waits more than one store call's budget, nor more
 * than the request's ({@code onlyonce.redis.request-budget}) when it is an HTTP request. Include
 * it in the readiness group ({@code management.endpoint.health.group.readiness.include=readinessState,onlyonce})
 * to take an instance out of its load balancer while the store its writes need is down. The
 * details name the stores and whether they answered, nothing more.
 */
final class OnlyOnceHealthIndicator implements HealthIndicator {

    private static final IdempotencyKey PROBE_KEY = new IdempotencyKey("onlyonce:health", "probe");
    private static final OneTimeToken PROBE_TOKEN = new OneTimeToken("AAAAAAAAAAAAAAAAAAAAAA", Instant.EPOCH);

    private final IdempotencyStore idempotency;
    private final @Nullable TokenStore tokens;

    OnlyOnceHealthIndicator(IdempotencyStore idempotency, @Nullable TokenStore tokens) {
        this.idempotency = idempotency;
        this.tokens = tokens;
    }

    @Override
    public Health health() {
        boolean idempotencyUp = answers(() -> idempotency.find(PROBE_KEY));
        TokenStore tokenStore = tokens;
        boolean tokensUp = tokenStore == null || idempotencyUp && answers(() -> tokenStore.consume(PROBE_TOKEN));
        Health.Builder health = idempotencyUp && tokensUp ? Health.up() : Health.down();
        health.withDetail("idempotencyStore", idempotencyUp ? "reachable" : "unreachable");
        if (tokenStore != null) {
            health.withDetail("tokenStore", !idempotencyUp ? "not checked" : tokensUp ? "reachable" : "unreachable");
        }
        return health.build();
    }

    private static boolean answers(Supplier<?> probe) {
        try {
            probe.get();
            return true;
        } catch (StoreUnavailableException e) {
            return false;
        }
    }
}
