package io.onlyonce.example.gateway;

import io.onlyonce.gateway.GatewayProblems.Type;
import org.springframework.http.HttpStatus;

/**
 * The problems the gateway answers itself besides the window's: the seckill service's types where it
 * has the same problem (texts in {@code messages.properties} and {@code messages_zh.properties}).
 */
final class GatewayProblemTypes {

    static final Type UNAUTHORIZED = new Type("unauthorized", HttpStatus.UNAUTHORIZED);
    static final Type ACCESS_TOKEN_EXPIRED = new Type("access-token-expired", HttpStatus.UNAUTHORIZED);
    static final Type ACCESS_TOKEN_INVALID = new Type("access-token-invalid", HttpStatus.UNAUTHORIZED);
    static final Type FORBIDDEN = new Type("forbidden", HttpStatus.FORBIDDEN);
    static final Type NOT_FOUND = new Type("not-found", HttpStatus.NOT_FOUND);
    static final Type METHOD_NOT_ALLOWED = new Type("method-not-allowed", HttpStatus.METHOD_NOT_ALLOWED);
    static final Type MALFORMED_REQUEST = new Type("malformed-request", HttpStatus.BAD_REQUEST);
    static final Type UNSUPPORTED_MEDIA_TYPE = new Type("unsupported-media-type", HttpStatus.UNSUPPORTED_MEDIA_TYPE);
    static final Type REQUEST_REJECTED = new Type("request-rejected", HttpStatus.BAD_REQUEST);
    static final Type MALFORMED_HTTP_REQUEST = new Type("malformed-http-request", HttpStatus.BAD_REQUEST);
    static final Type INTERNAL_ERROR = new Type("internal-error", HttpStatus.INTERNAL_SERVER_ERROR);
    /** No instance answered (none registered, or the connection was refused or timed out). */
    static final Type SERVICE_UNAVAILABLE = new Type("service-unavailable", HttpStatus.SERVICE_UNAVAILABLE);

    private GatewayProblemTypes() {
    }
}
