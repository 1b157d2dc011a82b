package io.onlyonce.spring.web;

import io.onlyonce.StoreUnavailableException;
import io.onlyonce.StoredResponse;
import java.time.Duration;
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
 * Answers {@link OnlyOnceRejection}s ahead of the application's own advice: a stored response is
 * replayed byte for byte with {@code Idempotent-Replayed: true}; a problem is RFC 9457 JSON in the
 * request's locale, with {@code Retry-After} where there is one.
 */
@RestControllerAdvice
@Order(Ordered.HIGHEST_PRECEDENCE)
public class OnlyOnceExceptionHandler {

    /** Header marking a replayed response. */
    public static final String REPLAYED_HEADER = "Idempotent-Replayed";

    private final OnlyOnceProblems problems;
    private final Duration unavailableRetryAfter;

    public OnlyOnceExceptionHandler(OnlyOnceProblems problems) {
        this(problems, Duration.ofSeconds(5));
    }

    /** @param unavailableRetryAfter the Retry-After of a 503 for a store failure outside the engine */
    public OnlyOnceExceptionHandler(OnlyOnceProblems problems, Duration unavailableRetryAfter) {
        this.problems = problems;
        this.unavailableRetryAfter = unavailableRetryAfter;
    }

    /** A store failure outside the engine (issuing a token): 503, without the store's message. */
    @ExceptionHandler(StoreUnavailableException.class)
    public ResponseEntity<?> handle(StoreUnavailableException failure) {
        return handle(OnlyOnceRejection.problem(ProblemType.STORE_UNAVAILABLE, unavailableRetryAfter));
    }

    @ExceptionHandler(OnlyOnceRejection.class)
    public ResponseEntity<?> handle(OnlyOnceRejection rejection) {
        StoredResponse replay = rejection.replayedResponse();
        if (replay != null) {
            HttpHeaders headers = new HttpHeaders();
            replay.headers().forEach(h -> headers.add(h.name(), h.value()));
            headers.set(REPLAYED_HEADER, "true");
            return ResponseEntity.status(replay.status()).headers(headers).body(replay.body());
        }
        ProblemType type = java.util.Objects.requireNonNull(rejection.problemType());
        ProblemDetail problem = problems.create(type, LocaleContextHolder.getLocale());
        rejection.properties().forEach(problem::setProperty);
        ResponseEntity.BodyBuilder builder = ResponseEntity.status(HttpStatus.valueOf(type.status().value()))
                .contentType(MediaType.APPLICATION_PROBLEM_JSON);
        Duration retryAfter = rejection.retryAfter();
        if (retryAfter != null) {
            long seconds = retryAfter.toSeconds() + (retryAfter.toNanosPart() > 0 ? 1 : 0);
            builder.header(HttpHeaders.RETRY_AFTER, Long.toString(Math.max(1, seconds)));
        }
        return builder.body(problem);
    }
}
