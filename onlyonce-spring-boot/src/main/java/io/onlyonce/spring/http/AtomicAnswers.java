package io.onlyonce.spring.http;

import io.onlyonce.Fingerprint;
import io.onlyonce.StoredResponse;
import io.onlyonce.engine.IdempotencyConfig;
import io.onlyonce.engine.Outcome;
import io.onlyonce.redis.AtomicOutcome;
import io.onlyonce.token.OneTimeToken;
import io.onlyonce.token.TokenService;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseEntity;

/**
 * What every web stack decides alike about an {@code @Idempotent} handler whose effect ran as one
 * Redis script with its record ({@code RedisAtomicExecutor}, through {@code AtomicIdempotency} on
 * WebMVC and {@code ReactiveAtomicIdempotency} on WebFlux): the refusal of each outcome that lets
 * the handler not answer, as the two-step path refuses the same request, and the handler's answer
 * of a completed call.
 */
public final class AtomicAnswers {

    private AtomicAnswers() {
    }

    /** How the request is answered instead of by its handler. */
    public sealed interface Refusal permits Decided, Refused {
    }

    /**
     * A live record under the key: the outcome a two-step claim would have had (a replay, in
     * progress, a reused key, a response not kept), answered as that platform answers it.
     *
     * @param outcome the decided outcome
     */
    public record Decided(Outcome outcome) implements Refusal {

        public Decided {
            Objects.requireNonNull(outcome, "outcome");
        }
    }

    /**
     * A refusal of its own (a used or expired token, Redis that cannot decide).
     *
     * @param rejection the problem to answer
     * @param metric its name in OnlyOnce's metrics
     */
    public record Refused(OnlyOnceRejection rejection, String metric) implements Refusal {

        public Refused {
            Objects.requireNonNull(rejection, "rejection");
            Objects.requireNonNull(metric, "metric");
        }
    }

    /**
     * The refusal of an outcome that is neither {@link AtomicOutcome.Completed} nor
     * {@link AtomicOutcome.Declined} (the handler's to answer) nor {@link AtomicOutcome.InWindow}
     * (the request window's, which the platform answers).
     *
     * @param fingerprint the request's fingerprint, which the record's is compared with
     * @param config the method's settings (its lease, for a record in progress)
     * @param token the call's one-time token, or null
     * @throws IllegalArgumentException for any other outcome, or a refused token without a token
     */
    public static Refusal refusal(AtomicOutcome outcome, Fingerprint fingerprint, IdempotencyConfig config,
            TokenService tokens, @Nullable OneTimeToken token) {
        if (outcome instanceof AtomicOutcome.TokenRefused refused) {
            if (token == null) {
                throw new IllegalArgumentException("a token was refused to a call without one");
            }
            OnlyOnceRejection rejection = IdempotentRequests.refusedToken(tokens, token, refused.first());
            return new Refused(rejection, IdempotentRequests.refusedTokenMetric(rejection));
        }
        if (outcome instanceof AtomicOutcome.Existing existing) {
            // the same decision as the two-step path's claim
            return new Decided(Outcome.of(existing.record(), fingerprint, config.lease()));
        }
        throw new IllegalArgumentException("not an outcome OnlyOnce answers: " + outcome);
    }

    /** Redis that could not be reached, answered late or an open circuit: 503 with the method's {@code Retry-After}. */
    public static Refused storeUnavailable(IdempotencyConfig config) {
        return new Refused(OnlyOnceRejection.problem(ProblemType.STORE_UNAVAILABLE, config.unavailableRetryAfter()),
                "store_error");
    }

    /** A stored response as the handler's answer: the first answer and every replay carry the same bytes. */
    public static ResponseEntity<byte[]> respond(StoredResponse response) {
        HttpHeaders headers = new HttpHeaders();
        response.headers().forEach(h -> headers.add(h.name(), h.value()));
        return ResponseEntity.status(response.status()).headers(headers).body(response.body());
    }
}
