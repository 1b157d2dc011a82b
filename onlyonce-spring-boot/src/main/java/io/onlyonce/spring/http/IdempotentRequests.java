package io.onlyonce.spring.http;

import io.onlyonce.IdempotencyKey;
import io.onlyonce.InvalidIdempotencyKeyException;
import io.onlyonce.StoredResponse;
import io.onlyonce.engine.Outcome;
import io.onlyonce.support.StrictUtf8;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.engine.IdempotencyConfig;
import io.onlyonce.engine.StoreFailurePolicy;
import io.onlyonce.store.IdempotencyRecord;
import io.onlyonce.store.RecordStatus;
import io.onlyonce.token.IssuedToken;
import io.onlyonce.token.OneTimeToken;
import io.onlyonce.token.TokenService;
import io.onlyonce.token.TokenVerification;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;

/**
 * What every web stack (servlet and reactive) decides alike about a protected request, from plain
 * values: its record scope, its key from the {@code Idempotency-Key} header, and the refusal that
 * answers an outcome that lets nothing run. Refusals are {@link OnlyOnceRejection}s.
 */
public final class IdempotentRequests {

    private IdempotentRequests() {
    }

    /**
     * The record scope: route template and principal. A principal that is not well-formed text is
     * refused (it would alias another); a scope too long for a key holds the principal's hash.
     */
    public static String scope(String endpoint, @Nullable String principal) {
        String name = principal == null ? "" : principal;
        if (!StrictUtf8.isWellFormed(name) || !StrictUtf8.isWellFormed(endpoint)) {
            throw OnlyOnceRejection.problem(ProblemType.PRINCIPAL_REQUIRED);
        }
        String scope = endpoint + " " + name;
        boolean control = scope.chars().anyMatch(Character::isISOControl);
        if (scope.length() <= IdempotencyKey.MAX_SCOPE_LENGTH && !control) {
            return scope;
        }
        String hashed = IdempotencyKey.derivedName(scope);
        String head = control ? "" : endpoint.substring(0, Math.min(endpoint.length(), 200));
        return head + " " + hashed;
    }

    /**
     * The key name in the values of the request's key header: an RFC 8941 sf-string or a bare
     * value; null when there is none and none is {@code required}.
     *
     * @throws OnlyOnceRejection missing (none, but required) or invalid (malformed, or two headers)
     */
    public static @Nullable String headerKey(List<String> values, boolean required) {
        if (values.isEmpty()) {
            if (!required) {
                return null;
            }
            throw OnlyOnceRejection.problem(ProblemType.IDEMPOTENCY_KEY_MISSING);
        }
        String raw = values.get(0).strip();
        if (values.size() > 1 || (!raw.startsWith("\"") && raw.contains(","))) {
            throw OnlyOnceRejection.problem(ProblemType.IDEMPOTENCY_KEY_INVALID);
        }
        try {
            return IdempotencyKey.parseHeaderValue(values.get(0));
        } catch (InvalidIdempotencyKeyException e) {
            throw OnlyOnceRejection.problem(ProblemType.IDEMPOTENCY_KEY_INVALID);
        }
    }

    /** The key of {@code name} in {@code scope}. @throws OnlyOnceRejection invalid */
    public static IdempotencyKey key(String scope, String name) {
        try {
            return new IdempotencyKey(scope, name);
        } catch (InvalidIdempotencyKeyException e) {
            throw OnlyOnceRejection.problem(ProblemType.IDEMPOTENCY_KEY_INVALID);
        }
    }

    /** The outcome's name in OnlyOnce's metrics ({@code executed}, {@code replayed}, {@code in_progress}...). */
    public static String metricName(Outcome outcome) {
        if (outcome instanceof Outcome.Replayed) {
            return "replayed";
        }
        if (outcome instanceof Outcome.ResponseNotKept) {
            return "response_not_kept";
        }
        if (outcome instanceof Outcome.InProgress) {
            return "in_progress";
        }
        if (outcome instanceof Outcome.FingerprintMismatch) {
            return "mismatch";
        }
        if (outcome instanceof Outcome.StoreUnavailable) {
            return "store_error";
        }
        return "executed";
    }

    /**
     * The refusal of a decided outcome other than a replay: 422 for a reused key or a result not
     * kept, 409 with {@code inProgressRetryAfter} for a request in progress, 503 for a store that
     * cannot be reached.
     */
    public static OnlyOnceRejection refusal(Outcome outcome, Duration inProgressRetryAfter) {
        if (outcome instanceof Outcome.Replayed replayed) {
            return OnlyOnceRejection.replay(replayed.response());
        }
        if (outcome instanceof Outcome.ResponseNotKept) {
            return OnlyOnceRejection.problem(ProblemType.IDEMPOTENCY_RESPONSE_NOT_KEPT);
        }
        if (outcome instanceof Outcome.InProgress) {
            return OnlyOnceRejection.problem(ProblemType.IDEMPOTENCY_REQUEST_IN_PROGRESS, inProgressRetryAfter);
        }
        if (outcome instanceof Outcome.FingerprintMismatch) {
            return OnlyOnceRejection.problem(ProblemType.IDEMPOTENCY_KEY_REUSED);
        }
        if (outcome instanceof Outcome.StoreUnavailable unavailable) {
            return OnlyOnceRejection.problem(ProblemType.STORE_UNAVAILABLE, unavailable.retryAfter());
        }
        throw new IllegalArgumentException("not a decided outcome: " + outcome);
    }

    /** Whether a stored response may answer a request with these {@code Accept} values (else 406). */
    public static boolean acceptable(List<String> accept, StoredResponse response) {
        Optional<String> stored = response.header("Content-Type");
        if (stored.isEmpty() || accept.isEmpty()) {
            return true;
        }
        MediaType type;
        List<MediaType> acceptable;
        try {
            type = MediaType.parseMediaType(stored.get());
            acceptable = MediaType.parseMediaTypes(accept);
        } catch (InvalidMediaTypeException e) {
            return true;
        }
        MediaType bare = new MediaType(type.getType(), type.getSubtype());
        return acceptable.isEmpty() || acceptable.stream().anyMatch(a -> a.includes(bare));
    }

    /**
     * The verified token in the values of the request's token header, bound to {@code principal}
     * and {@code scope}.
     *
     * @throws OnlyOnceRejection missing (400), malformed or forged (400), bound to another principal or scope (403)
     */
    public static OneTimeToken verifiedToken(TokenService tokens, List<String> values, @Nullable String principal,
            String scope) {
        if (values.isEmpty()) {
            throw OnlyOnceRejection.problem(ProblemType.IDEMPOTENCY_TOKEN_MISSING);
        }
        TokenVerification verification = values.size() > 1
                ? new TokenVerification.Malformed()
                : tokens.verify(values.get(0).strip(), principal == null ? "" : principal, scope);
        if (verification instanceof TokenVerification.Valid valid) {
            return valid.token();
        }
        throw OnlyOnceRejection.problem(verification instanceof TokenVerification.WrongBinding
                ? ProblemType.IDEMPOTENCY_TOKEN_MISMATCH
                : ProblemType.IDEMPOTENCY_TOKEN_INVALID);
    }

    /** The key under which a token request's result is kept, to answer its duplicates. */
    public static IdempotencyKey tokenResultKey(String scope, OneTimeToken token) {
        return new IdempotencyKey(scope, TOKEN_RESULT_PREFIX + token.id());
    }

    /** Prefix of the key under which a token request's result is kept. */
    public static final String TOKEN_RESULT_PREFIX = "token:";

    /**
     * Consumes {@code token} (consume first, then execute). A store that cannot be reached refuses
     * the request under STRICT (503) and lets it run under PERMISSIVE.
     *
     * @return whether this request consumed it; false for a duplicate submission
     * @throws OnlyOnceRejection 503 under STRICT when the token store cannot be reached
     */
    public static boolean consume(TokenService tokens, OneTimeToken token, IdempotencyConfig config, Runnable onStoreError) {
        try {
            return tokens.consume(token);
        } catch (StoreUnavailableException e) {
            onStoreError.run();
            if (config.storeFailurePolicy() == StoreFailurePolicy.STRICT) {
                throw OnlyOnceRejection.problem(ProblemType.STORE_UNAVAILABLE, config.unavailableRetryAfter());
            }
            return true;
        }
    }

    /** Gives a consumed token back; a store that cannot be reached leaves it consumed (the client fetches a new one). */
    public static void restoreQuietly(TokenService tokens, OneTimeToken token) {
        try {
            tokens.restore(token);
        } catch (StoreUnavailableException e) {
            // the token stays consumed
        }
    }

    /**
     * The problem for a verified token that the store refused to consume: {@code idempotency-token-expired}
     * when no request ran with it (no record under its result key) and it passed its signed expiry;
     * otherwise {@code duplicate-submission}, with what the first request answered.
     *
     * @param first the record under the token's result key, if any
     */
    public static OnlyOnceRejection refusedToken(TokenService tokens, OneTimeToken token, Optional<IdempotencyRecord> first) {
        if (first.isEmpty() && tokens.expired(token)) {
            return OnlyOnceRejection.problem(ProblemType.IDEMPOTENCY_TOKEN_EXPIRED);
        }
        return OnlyOnceRejection.problem(ProblemType.DUPLICATE_SUBMISSION, firstResult(first));
    }

    /**
     * The name in OnlyOnce's metrics of a {@link #refusedToken} refusal: {@code token_expired} or
     * {@code duplicate_token}.
     */
    public static String refusedTokenMetric(OnlyOnceRejection refused) {
        return refused.problemType() == ProblemType.IDEMPOTENCY_TOKEN_EXPIRED ? "token_expired" : "duplicate_token";
    }

    /**
     * The first request's answer, for the problem of a duplicate: empty unless the record of
     * the first request completed with a response: {@code firstStatus} and {@code firstResult}.
     */
    public static Map<String, Object> firstResult(Optional<IdempotencyRecord> record) {
        if (record.isEmpty() || record.get().status() != RecordStatus.COMPLETED || record.get().response() == null) {
            return Map.of();
        }
        StoredResponse first = record.get().response();
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("firstStatus", first.status());
        result.put("firstResult", FirstResult.body(first));
        return result;
    }

    /**
     * Issues a token to {@code principal} for {@code scope} after checking both and the
     * principal's limits. Blocks on the token and window stores.
     *
     * @throws OnlyOnceRejection principal required or scope invalid (400), limit reached (429), store down (503)
     */
    public static IssuedToken issue(TokenService tokens, TokenLimits limits, @Nullable String principal,
            boolean principalRequired, String scope, Duration unavailableRetryAfter) {
        if (principal == null && principalRequired) {
            throw OnlyOnceRejection.problem(ProblemType.PRINCIPAL_REQUIRED);
        }
        String name = principal == null ? "" : principal;
        if (!StrictUtf8.isWellFormed(name)) {
            throw OnlyOnceRejection.problem(ProblemType.PRINCIPAL_REQUIRED);
        }
        if (scope.length() > MAX_TOKEN_SCOPE || scope.chars().anyMatch(c -> c < 0x20 || c == 0x7F)
                || !StrictUtf8.isWellFormed(scope)) {
            throw OnlyOnceRejection.problem(ProblemType.TOKEN_SCOPE_INVALID);
        }
        limits.check(name);
        try {
            return tokens.issue(name, scope);
        } catch (StoreUnavailableException e) {
            throw OnlyOnceRejection.problem(ProblemType.STORE_UNAVAILABLE, unavailableRetryAfter);
        }
    }

    /** A token scope with each {@code {name}} replaced by that path variable of the request. */
    public static String tokenScope(String scope, Map<?, ?> pathVariables) {
        return TokenScopes.resolve(scope, pathVariables);
    }

    /** A {@code Retry-After} in whole seconds, rounded up, at least one. */
    public static long retryAfterSeconds(Duration retryAfter) {
        long seconds = retryAfter.toSeconds() + (retryAfter.toNanosPart() > 0 ? 1 : 0);
        return Math.max(1, seconds);
    }

    /** The longest token scope a client may ask for. */
    public static final int MAX_TOKEN_SCOPE = 100;
}
