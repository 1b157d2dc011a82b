package io.onlyonce.spring.web;

import org.springframework.http.HttpStatus;

/** Every problem this library answers, each with a stable {@code type} slug and status. */
public enum ProblemType {
    IDEMPOTENCY_KEY_MISSING("idempotency-key-missing", HttpStatus.BAD_REQUEST),
    IDEMPOTENCY_KEY_INVALID("idempotency-key-invalid", HttpStatus.BAD_REQUEST),
    IDEMPOTENCY_KEY_REUSED("idempotency-key-reused", HttpStatus.UNPROCESSABLE_CONTENT),
    IDEMPOTENCY_REQUEST_IN_PROGRESS("idempotency-request-in-progress", HttpStatus.CONFLICT),
    IDEMPOTENCY_RESPONSE_NOT_KEPT("idempotency-response-not-kept", HttpStatus.UNPROCESSABLE_CONTENT),
    REPLAY_NOT_ACCEPTABLE("idempotency-replay-not-acceptable", HttpStatus.NOT_ACCEPTABLE),
    PRINCIPAL_REQUIRED("principal-required", HttpStatus.BAD_REQUEST),
    IDEMPOTENCY_TOKEN_MISSING("idempotency-token-missing", HttpStatus.BAD_REQUEST),
    IDEMPOTENCY_TOKEN_INVALID("idempotency-token-invalid", HttpStatus.BAD_REQUEST),
    IDEMPOTENCY_TOKEN_MISMATCH("idempotency-token-mismatch", HttpStatus.FORBIDDEN),
    DUPLICATE_SUBMISSION("duplicate-submission", HttpStatus.CONFLICT),
    DUPLICATE_REQUEST("duplicate-request", HttpStatus.TOO_MANY_REQUESTS),
    TOKEN_SCOPE_INVALID("token-scope-invalid", HttpStatus.BAD_REQUEST),
    TOKEN_RATE_LIMITED("token-rate-limited", HttpStatus.TOO_MANY_REQUESTS),
    REQUEST_TOO_LARGE("idempotency-request-too-large", HttpStatus.CONTENT_TOO_LARGE),
    STORE_UNAVAILABLE("idempotency-store-unavailable", HttpStatus.SERVICE_UNAVAILABLE),
    /** The business transaction could not record its message in the transactional outbox, and rolled back. */
    OUTBOX_UNAVAILABLE("outbox-unavailable", HttpStatus.SERVICE_UNAVAILABLE);

    private final String slug;
    private final HttpStatus status;

    ProblemType(String slug, HttpStatus status) {
        this.slug = slug;
        this.status = status;
    }

    /** The last segment of the {@code type} URI, also the message key. */
    public String slug() {
        return slug;
    }

    public HttpStatus status() {
        return status;
    }
}
