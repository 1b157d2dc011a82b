package io.onlyonce.spring.web;

import io.onlyonce.spring.http.IdempotentRequests;
import io.onlyonce.spring.http.OnlyOnceRejection;
import io.onlyonce.spring.http.ProblemType;
import io.onlyonce.spring.http.OnlyOnceProblems;
import io.onlyonce.StoreUnavailableException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.context.i18n.LocaleContextHolder;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Answers {@link OnlyOnceRejection}s: a problem is RFC 9457 JSON in the request's locale, with
 * {@code Retry-After} where there is one. Refusals of protected requests and replays are written by
 * {@link OnlyOnceFilter} straight to the client (a replay byte for byte, with
 * {@code Idempotent-Replayed: true}), so no converter, {@code ResponseBodyAdvice} or application
 * exception handler changes them; so are the store failures this handler meets (a token that cannot
 * be issued, an outbox that cannot record a message).
 */
@RestControllerAdvice
@Order(Ordered.HIGHEST_PRECEDENCE)
public class OnlyOnceExceptionHandler {

    /** Header marking a replayed response. */
    public static final String REPLAYED_HEADER = "Idempotent-Replayed";

    /** The {@code Retry-After} of a 503 for a store failure outside the engine, unless configured. */
    static final Duration DEFAULT_UNAVAILABLE_RETRY_AFTER = Duration.ofSeconds(5);

    private final OnlyOnceProblems problems;
    private final Duration unavailableRetryAfter;

    public OnlyOnceExceptionHandler(OnlyOnceProblems problems) {
        this(problems, DEFAULT_UNAVAILABLE_RETRY_AFTER);
    }

    /** @param unavailableRetryAfter the Retry-After of a 503 for a store failure outside the engine */
    public OnlyOnceExceptionHandler(OnlyOnceProblems problems, Duration unavailableRetryAfter) {
        this.problems = problems;
        this.unavailableRetryAfter = unavailableRetryAfter;
    }

    /** The {@code Retry-After} of a 503 for a store failure outside the engine. */
    Duration unavailableRetryAfter() {
        return unavailableRetryAfter;
    }

    /**
     * A store failure outside the engine (issuing a token, an {@code @Idempotent} service method's store
     * under STRICT): 503 {@code idempotency-store-unavailable}; a message the business transaction could
     * not record in the outbox ({@code io.onlyonce.messaging.OutboxUnavailableException}): 503
     * {@code outbox-unavailable}. Both with {@code Retry-After}, without the store's message, and
     * written by {@link OnlyOnceFilter} past the application's result wrappers (see
     * {@link OnlyOnceRefusals}, which has usually remembered it already).
     */
    @ExceptionHandler(StoreUnavailableException.class)
    public @Nullable ResponseEntity<?> handle(StoreUnavailableException failure, HttpServletRequest request) {
        OnlyOnceRejection rejection = java.util.Objects.requireNonNull(OnlyOnceRefusals.rejection(failure, unavailableRetryAfter));
        return pastTheWrappers(request, rejection);
    }

    /**
     * A refusal of an {@code @Idempotent} service method (see {@link OnlyOnceRefusals}, which has
     * usually remembered it already, so that {@link OnlyOnceFilter} writes it past every wrapper).
     */
    @ExceptionHandler({io.onlyonce.spring.IdempotencyRefusedException.class, io.onlyonce.InvalidIdempotencyKeyException.class})
    public ResponseEntity<?> handleRefusal(RuntimeException refusal, HttpServletRequest request) {
        OnlyOnceRejection rejection = java.util.Objects.requireNonNull(OnlyOnceRefusals.rejection(refusal, unavailableRetryAfter));
        return problem(rejection, request);
    }

    /**
     * A replay, and a refusal that {@link OnlyOnceFilter} remembered, are written by the filter; this
     * then only marks the request handled.
     */
    @ExceptionHandler(OnlyOnceRejection.class)
    public @Nullable ResponseEntity<?> handle(OnlyOnceRejection rejection, HttpServletRequest request,
            HttpServletResponse response) {
        IdempotentExchange exchange = IdempotentExchange.of(request);
        if (rejection.replayedResponse() != null || exchange != null && exchange.answers(rejection)) {
            return null;
        }
        return problem(rejection, request);
    }

    /**
     * Leaves {@code rejection} to {@link OnlyOnceFilter}, which writes it after the chain over whatever
     * a {@code ResponseBodyAdvice} or converter would make of it; answers it here only for a request
     * the filter did not see.
     */
    private @Nullable ResponseEntity<?> pastTheWrappers(HttpServletRequest request, OnlyOnceRejection rejection) {
        IdempotentExchange exchange = IdempotentExchange.of(request);
        if (exchange == null || exchange.capture().isCommitted()) {
            return problem(rejection, request);
        }
        exchange.refuse(rejection);
        return null;
    }

    private ResponseEntity<?> problem(OnlyOnceRejection rejection, HttpServletRequest request) {
        ProblemType type = java.util.Objects.requireNonNull(rejection.problemType());
        // the application's LocaleResolver where it chose a language the problems are written in,
        // else the best of Accept-Language
        java.util.Locale resolved = LocaleContextHolder.getLocale();
        java.util.Locale locale = OnlyOnceProblems.writtenIn(resolved) ? resolved : RequestLanguage.of(request);
        ProblemDetail problem = problems.create(type, locale);
        rejection.properties().forEach(problem::setProperty);
        ResponseEntity.BodyBuilder builder = ResponseEntity.status(HttpStatus.valueOf(type.status().value()))
                .contentType(MediaType.APPLICATION_PROBLEM_JSON);
        Duration retryAfter = rejection.retryAfter();
        if (retryAfter != null) {
            builder.header(HttpHeaders.RETRY_AFTER, Long.toString(seconds(retryAfter)));
        }
        return builder.body(problem);
    }

    /** A {@code Retry-After} in whole seconds, rounded up, at least one. */
    static long seconds(Duration retryAfter) {
        return IdempotentRequests.retryAfterSeconds(retryAfter);
    }
}
