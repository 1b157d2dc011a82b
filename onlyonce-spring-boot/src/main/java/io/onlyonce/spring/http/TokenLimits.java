package io.onlyonce.spring.http;

import io.onlyonce.Fingerprint;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.window.WindowHit;
import io.onlyonce.window.WindowStore;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How many one-time tokens one principal may have: at most {@code maxRequests} issued per
 * {@code window}, and at most {@code maxLive} issued within one token life ({@code ttl}), so no
 * caller can flood the token store or hoard tokens. Counted in the shared {@link WindowStore}, so
 * the limits hold across instances. A store fault lets the request through (the token store behind
 * refuses when it is down or full).
 *
 * @param windows where the counts live
 * @param maxRequests tokens one principal may request per {@code window}; 0 for no limit
 * @param window the rate window
 * @param maxLive tokens one principal may be issued within one token life; 0 for no limit
 * @param ttl the token life
 */
public record TokenLimits(WindowStore windows, int maxRequests, Duration window, int maxLive, Duration ttl) {

    private static final Logger log = LoggerFactory.getLogger(TokenLimits.class);

    /**
     * Counts one token request of {@code principal}.
     *
     * @throws OnlyOnceRejection 429 with {@code Retry-After} when a limit is reached
     */
    public void check(String principal) {
        hit("onlyonce:token-rate", principal, maxRequests, window);
        hit("onlyonce:token-live", principal, maxLive, ttl);
    }

    private void hit(String kind, String principal, int limit, Duration length) {
        if (limit <= 0) {
            return;
        }
        WindowHit hit;
        try {
            hit = windows.hit(Fingerprint.of(kind, principal), length);
        } catch (StoreUnavailableException e) {
            log.debug("token limit not checked: {}", e.getMessage());
            return;
        }
        if (hit.count() > limit) {
            throw OnlyOnceRejection.problem(ProblemType.TOKEN_RATE_LIMITED, Duration.ofSeconds(hit.retryAfterSeconds()));
        }
    }
}
