package io.onlyonce.example.seckill.limits;

import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.onlyonce.Fingerprint;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.example.seckill.SeckillProperties;
import io.onlyonce.example.seckill.web.ApiException;
import io.onlyonce.example.seckill.web.AppProblem;
import io.onlyonce.spring.autoconfigure.OnlyOnceAutoConfiguration;
import io.onlyonce.spring.autoconfigure.OnlyOnceProperties;
import io.onlyonce.spring.metrics.OnlyOnceStatistics;
import io.onlyonce.window.WindowHit;
import io.onlyonce.window.WindowStore;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Component;

/**
 * Per-user request rates on the token, order and business-id endpoints: at most
 * {@code seckill.limits.token-requests} token requests, {@code seckill.limits.order-requests} order
 * requests and {@code seckill.limits.id-requests} business ids per
 * {@code seckill.limits.window}, counted in the OnlyOnce {@link WindowStore} (one fixed window per
 * user and kind, measured on the store's clock), so the limit holds across every instance that
 * shares the store. Beyond it: 429 {@code too-many-requests} with {@code Retry-After} (the time
 * left in the window). A store fault lets the request through: the caps and the layers behind still hold.
 * The store is reached through OnlyOnce's window circuit breaker and within the request's store budget
 * ({@code onlyonce.redis.request-budget}), as the request window is.
 */
@Component
public class RequestRates {

    /** What is counted. */
    public enum Kind {
        TOKENS,
        ORDERS,
        IDS
    }

    /** The layer name of the limits' counters in {@code onlyonce.requests} and {@code GET /api/stats}. */
    public static final String LAYER = "limits";

    private static final Logger log = LoggerFactory.getLogger(RequestRates.class);

    private final @Nullable WindowStore windows;
    private final SeckillProperties.Limits limits;
    private final OnlyOnceStatistics statistics;

    public RequestRates(ObjectProvider<WindowStore> windows, SeckillProperties properties, OnlyOnceStatistics statistics,
            OnlyOnceProperties onlyOnce, CircuitBreakerRegistry breakers) {
        WindowStore store = windows.getIfAvailable();
        // behind OnlyOnce's window breaker: while Redis is down the limits are skipped at once
        this.windows = store == null ? null : OnlyOnceAutoConfiguration.guardedWindows(store, onlyOnce, breakers);
        this.limits = properties.limits();
        this.statistics = statistics;
    }

    /**
     * Counts one request of {@code userId}.
     *
     * @throws ApiException 429 {@code too-many-requests} with {@code Retry-After} beyond the limit
     */
    public void count(Kind kind, long userId, String endpoint) {
        int max = switch (kind) {
            case TOKENS -> limits.tokenRequests();
            case ORDERS -> limits.orderRequests();
            case IDS -> limits.idRequests();
        };
        if (!limits.enabled() || max == 0 || windows == null) {
            return;
        }
        WindowHit hit;
        try {
            hit = windows.hit(Fingerprint.of("seckill:rate", kind.name().toLowerCase(Locale.ROOT), Long.toString(userId)),
                    limits.window());
        } catch (StoreUnavailableException e) {
            log.debug("request rate of user {} not counted: {}", userId, e.getMessage()); // the breaker logs the outage once
            return;
        }
        if (hit.count() > max) {
            statistics.record(LAYER, "rate_limited", endpoint);
            throw new ApiException(AppProblem.TOO_MANY_REQUESTS, java.util.Map.<String, Object>of("limit", max,
                    "windowSeconds", limits.window().toSeconds()), max, limits.window().toSeconds())
                    .retryAfter(hit.retryAfterSeconds());
        }
    }
}
