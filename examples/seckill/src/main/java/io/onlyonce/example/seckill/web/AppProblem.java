package io.onlyonce.example.seckill.web;

import org.springframework.http.HttpStatus;

/**
 * Every problem this service answers besides the OnlyOnce starter's own, each with a stable
 * {@code type} slug (under {@code onlyonce.problem-type-base}) and status. Titles and details are
 * in {@code messages.properties} and {@code messages_zh.properties}.
 */
public enum AppProblem {
    MALFORMED_REQUEST("malformed-request", HttpStatus.BAD_REQUEST),
    VALIDATION_FAILED("validation-failed", HttpStatus.BAD_REQUEST),
    UNAUTHORIZED("unauthorized", HttpStatus.UNAUTHORIZED),
    /** An access token that was genuine and has expired: log in again. */
    ACCESS_TOKEN_EXPIRED("access-token-expired", HttpStatus.UNAUTHORIZED),
    /** An access token that is not ours, is malformed or names no user. */
    ACCESS_TOKEN_INVALID("access-token-invalid", HttpStatus.UNAUTHORIZED),
    FORBIDDEN("forbidden", HttpStatus.FORBIDDEN),
    NOT_FOUND("not-found", HttpStatus.NOT_FOUND),
    METHOD_NOT_ALLOWED("method-not-allowed", HttpStatus.METHOD_NOT_ALLOWED),
    NOT_ACCEPTABLE("not-acceptable", HttpStatus.NOT_ACCEPTABLE),
    PAYLOAD_TOO_LARGE("payload-too-large", HttpStatus.CONTENT_TOO_LARGE),
    UNSUPPORTED_MEDIA_TYPE("unsupported-media-type", HttpStatus.UNSUPPORTED_MEDIA_TYPE),
    INTERNAL_ERROR("internal-error", HttpStatus.INTERNAL_SERVER_ERROR),
    REQUEST_REJECTED("request-rejected", HttpStatus.BAD_REQUEST),
    MALFORMED_HTTP_REQUEST("malformed-http-request", HttpStatus.BAD_REQUEST),
    REQUEST_HEADER_TOO_LARGE("request-header-too-large", HttpStatus.REQUEST_HEADER_FIELDS_TOO_LARGE),
    HTTP_VERSION_NOT_SUPPORTED("http-version-not-supported", HttpStatus.HTTP_VERSION_NOT_SUPPORTED),
    TRANSFER_ENCODING_NOT_SUPPORTED("transfer-encoding-not-supported", HttpStatus.NOT_IMPLEMENTED),
    TOO_MANY_REQUESTS("too-many-requests", HttpStatus.TOO_MANY_REQUESTS),
    UNPAID_ORDER_LIMIT("unpaid-order-limit", HttpStatus.CONFLICT),
    PURCHASE_LIMIT("purchase-limit", HttpStatus.CONFLICT),

    BUSINESS_ID_INVALID("business-id-invalid", HttpStatus.BAD_REQUEST),
    BUSINESS_ID_FORBIDDEN("business-id-forbidden", HttpStatus.FORBIDDEN),
    ORDER_EXISTS("order-exists", HttpStatus.CONFLICT),
    LIVE_ORDER_EXISTS("live-order-exists", HttpStatus.CONFLICT),
    SOLD_OUT("sold-out", HttpStatus.CONFLICT),
    ORDER_NOT_FOUND("order-not-found", HttpStatus.NOT_FOUND),
    PRODUCT_NOT_FOUND("product-not-found", HttpStatus.NOT_FOUND),
    ACTIVITY_NOT_FOUND("activity-not-found", HttpStatus.NOT_FOUND),
    ACTIVITY_NOT_ACTIVE("activity-not-active", HttpStatus.CONFLICT),
    ORDER_NOT_CANCELLABLE("order-not-cancellable", HttpStatus.CONFLICT),
    ORDER_CONFLICT("order-conflict", HttpStatus.CONFLICT),
    SIGNATURE_INVALID("signature-invalid", HttpStatus.UNAUTHORIZED),
    AMOUNT_MISMATCH("amount-mismatch", HttpStatus.BAD_REQUEST),
    ORDER_CANCELLED("order-cancelled", HttpStatus.CONFLICT),
    TRADE_NO_CONFLICT("trade-no-conflict", HttpStatus.CONFLICT),
    RESERVATION_NOT_FOUND("reservation-not-found", HttpStatus.NOT_FOUND),
    SALE_UNAVAILABLE("sale-unavailable", HttpStatus.SERVICE_UNAVAILABLE),
    DATABASE_UNAVAILABLE("database-unavailable", HttpStatus.SERVICE_UNAVAILABLE);

    private final String slug;
    private final HttpStatus status;

    AppProblem(String slug, HttpStatus status) {
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

    /** The generic problem for an HTTP status raised by the framework. */
    public static AppProblem forStatus(int status) {
        return switch (status) {
            case 400 -> MALFORMED_REQUEST;
            case 401 -> UNAUTHORIZED;
            case 403 -> FORBIDDEN;
            case 404 -> NOT_FOUND;
            case 405 -> METHOD_NOT_ALLOWED;
            case 406 -> NOT_ACCEPTABLE;
            case 413 -> PAYLOAD_TOO_LARGE;
            case 415 -> UNSUPPORTED_MEDIA_TYPE;
            case 429 -> TOO_MANY_REQUESTS;
            case 431 -> REQUEST_HEADER_TOO_LARGE;
            case 501 -> TRANSFER_ENCODING_NOT_SUPPORTED;
            case 505 -> HTTP_VERSION_NOT_SUPPORTED;
            default -> status >= 500 ? INTERNAL_ERROR : MALFORMED_REQUEST;
        };
    }
}
