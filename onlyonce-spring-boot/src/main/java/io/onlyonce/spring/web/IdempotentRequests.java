package io.onlyonce.spring.web;

import io.onlyonce.IdempotencyKey;
import io.onlyonce.InvalidIdempotencyKeyException;
import io.onlyonce.StoredResponse;
import io.onlyonce.engine.Outcome;
import io.onlyonce.internal.StrictUtf8;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

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
        return Negotiation.acceptable(accept, response);
    }

    /** A {@code Retry-After} in whole seconds, rounded up, at least one. */
    public static long retryAfterSeconds(Duration retryAfter) {
        return OnlyOnceExceptionHandler.seconds(retryAfter);
    }
}
