package io.onlyonce.spring.web;

import io.onlyonce.InvalidIdempotencyKeyException;
import io.onlyonce.spring.IdempotencyRefusedException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;
import org.springframework.core.Ordered;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.ModelAndView;

/**
 * Turns a refusal of an {@code @Idempotent} service method that reaches Spring MVC (in progress, key
 * reused, result not kept, a key expression without a value) into the problem a handler gets for
 * the same refusal: 409 with {@code Retry-After}, 422, 400. Consulted before every other exception
 * resolver, it only remembers the refusal and lets the application's exception handlers run; what
 * they answer is then replaced by the problem, written by {@link OnlyOnceFilter} past every result
 * wrapper, so that a client's 409 still means "retry" and a 200 {@code {"code":500}} never hides it.
 * A refusal the application catches itself never reaches this resolver and is left alone.
 */
public final class OnlyOnceRefusals implements HandlerExceptionResolver, Ordered {

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }

    @Override
    public @Nullable ModelAndView resolveException(HttpServletRequest request, HttpServletResponse response,
            @Nullable Object handler, Exception failure) {
        OnlyOnceRejection rejection = rejection(failure);
        if (rejection != null && request.getAttribute(OnlyOnceFilter.REJECTION) == null) {
            OnlyOnceFilter.remember(request, rejection);
        }
        return null;
    }

    /** The problem that answers {@code failure}, or null when it is not a refusal of OnlyOnce's. */
    static @Nullable OnlyOnceRejection rejection(Throwable failure) {
        if (failure instanceof IdempotencyRefusedException.InProgress inProgress) {
            return OnlyOnceRejection.problem(ProblemType.IDEMPOTENCY_REQUEST_IN_PROGRESS, inProgress.retryAfter());
        }
        if (failure instanceof IdempotencyRefusedException.KeyReused) {
            return OnlyOnceRejection.problem(ProblemType.IDEMPOTENCY_KEY_REUSED);
        }
        if (failure instanceof IdempotencyRefusedException.ResultNotKept) {
            return OnlyOnceRejection.problem(ProblemType.IDEMPOTENCY_RESPONSE_NOT_KEPT);
        }
        if (failure instanceof InvalidIdempotencyKeyException) {
            return OnlyOnceRejection.problem(ProblemType.IDEMPOTENCY_KEY_INVALID);
        }
        return null;
    }
}
