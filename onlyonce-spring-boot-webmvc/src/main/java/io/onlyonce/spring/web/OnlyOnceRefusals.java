package io.onlyonce.spring.web;

import io.onlyonce.spring.http.OnlyOnceRejection;
import io.onlyonce.spring.http.ProblemType;
import io.onlyonce.InvalidIdempotencyKeyException;
import io.onlyonce.MissingIdempotencyKeyException;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.spring.IdempotencyRefusedException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.core.Ordered;
import org.springframework.util.ClassUtils;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.ModelAndView;

/**
 * Turns a refusal of an {@code @Idempotent} service method that reaches Spring MVC (in progress, key
 * reused, result not kept, a key expression without a value, a store that cannot be reached under
 * STRICT) and an outbox that could not record its message into the problem a handler gets for the
 * same refusal: 409 with {@code Retry-After}, 422, 400, 503 {@code idempotency-store-unavailable} or
 * {@code outbox-unavailable} with {@code Retry-After}. Consulted before every other exception
 * resolver, it only remembers the refusal and lets the application's exception handlers run; what
 * they answer is then replaced by the problem, written by {@link OnlyOnceFilter} past every result
 * wrapper, so that a client's 409 still means "retry" and a 200 {@code {"code":500}} never hides it.
 * A refusal the application catches itself never reaches this resolver and is left alone.
 */
public final class OnlyOnceRefusals implements HandlerExceptionResolver, Ordered {

    private static final boolean OUTBOX_PRESENT =
            ClassUtils.isPresent("io.onlyonce.messaging.OutboxUnavailableException", OnlyOnceRefusals.class.getClassLoader());

    private final Duration unavailableRetryAfter;

    /** @param unavailableRetryAfter the {@code Retry-After} of a 503 for a store or an outbox that failed */
    public OnlyOnceRefusals(Duration unavailableRetryAfter) {
        this.unavailableRetryAfter = unavailableRetryAfter;
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }

    @Override
    public @Nullable ModelAndView resolveException(HttpServletRequest request, HttpServletResponse response,
            @Nullable Object handler, Exception failure) {
        IdempotentExchange exchange = IdempotentExchange.of(request);
        if (exchange == null || exchange.isRefused()) {
            return null;
        }
        OnlyOnceRejection rejection = rejection(failure, unavailableRetryAfter);
        if (rejection != null) {
            exchange.refuse(rejection);
        }
        return null;
    }

    /**
     * The problem that answers {@code failure}, or null when it is not a refusal of OnlyOnce's.
     *
     * @param unavailableRetryAfter the {@code Retry-After} of a 503 for a store or an outbox that failed
     */
    static @Nullable OnlyOnceRejection rejection(Throwable failure, Duration unavailableRetryAfter) {
        if (failure instanceof IdempotencyRefusedException.InProgress inProgress) {
            return OnlyOnceRejection.problem(ProblemType.IDEMPOTENCY_REQUEST_IN_PROGRESS, inProgress.retryAfter());
        }
        if (failure instanceof IdempotencyRefusedException.KeyReused) {
            return OnlyOnceRejection.problem(ProblemType.IDEMPOTENCY_KEY_REUSED);
        }
        if (failure instanceof IdempotencyRefusedException.ResultNotKept) {
            return OnlyOnceRejection.problem(ProblemType.IDEMPOTENCY_RESPONSE_NOT_KEPT);
        }
        if (failure instanceof MissingIdempotencyKeyException) {
            return OnlyOnceRejection.problem(ProblemType.IDEMPOTENCY_KEY_MISSING);
        }
        if (failure instanceof InvalidIdempotencyKeyException) {
            return OnlyOnceRejection.problem(ProblemType.IDEMPOTENCY_KEY_INVALID);
        }
        if (failure instanceof StoreUnavailableException unavailable) {
            ProblemType type = OUTBOX_PRESENT && Outbox.failed(unavailable)
                    ? ProblemType.OUTBOX_UNAVAILABLE
                    : ProblemType.STORE_UNAVAILABLE;
            return OnlyOnceRejection.problem(type, unavailableRetryAfter);
        }
        return null;
    }

    /** Loaded only when the message layer is on the classpath. */
    private static final class Outbox {
        static boolean failed(StoreUnavailableException failure) {
            return failure instanceof io.onlyonce.messaging.OutboxUnavailableException;
        }
    }
}
