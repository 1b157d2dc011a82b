package io.onlyonce.spring.http;

import org.springframework.http.HttpStatus;

/** Every problem this library answers, each with a stable {@code type} slug and status. */
public enum ProblemType {
    IDEMPOTENCY_KEY_MISSING("idempotency-key-missing", 400),
    IDEMPOTENCY_KEY_INVALID("idempotency-key-invalid", 400),
    IDEMPOTENCY_KEY_REUSED("idempotency-key-reused", 422),
    IDEMPOTENCY_REQUEST_IN_PROGRESS("idempotency-request-in-progress", 409),
    IDEMPOTENCY_RESPONSE_NOT_KEPT("idempotency-response-not-kept", 422),
    REPLAY_NOT_ACCEPTABLE("idempotency-replay-not-acceptable", 406),
    PRINCIPAL_REQUIRED("principal-required", 400),
    IDEMPOTENCY_TOKEN_MISSING("idempotency-token-missing", 400),
    IDEMPOTENCY_TOKEN_INVALID("idempotency-token-invalid", 400),
    IDEMPOTENCY_TOKEN_MISMATCH("idempotency-token-mismatch", 403),
    /** A genuine token that expired before any request used it: get a new one. */
    IDEMPOTENCY_TOKEN_EXPIRED("idempotency-token-expired", 400),
    DUPLICATE_SUBMISSION("duplicate-submission", 409),
    DUPLICATE_REQUEST("duplicate-request", 429),
    TOKEN_SCOPE_INVALID("token-scope-invalid", 400),
    TOKEN_RATE_LIMITED("token-rate-limited", 429),
    REQUEST_TOO_LARGE("idempotency-request-too-large", 413),
    STORE_UNAVAILABLE("idempotency-store-unavailable", 503),
    /** The business transaction could not record its message in the transactional outbox, and rolled back. */
    OUTBOX_UNAVAILABLE("outbox-unavailable", 503);

    private final String slug;
    /** A number, not a constant: Spring Framework 7 names 422 UNPROCESSABLE_CONTENT, 6.2 UNPROCESSABLE_ENTITY. */
    private final int status;

    ProblemType(String slug, int status) {
        this.slug = slug;
        this.status = status;
    }

    /** The last segment of the {@code type} URI, also the message key. */
    public String slug() {
        return slug;
    }

    public HttpStatus status() {
        return HttpStatus.valueOf(status);
    }
}
