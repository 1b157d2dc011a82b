package io.onlyonce.spring.web;

import io.onlyonce.store.StoreBudget;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Duration;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Opens one {@link StoreBudget} for the store calls of each request: the de-dup window, the token,
 * the idempotency record and the rate limits then share it, so that against a store that does not
 * answer the request waits the budget once and is answered (503 under STRICT), instead of waiting
 * each call's own timeout in turn. Registered before every other filter; the calls of a request
 * that continues asynchronously, off the request's thread, keep their own timeouts.
 */
public final class RequestStoreBudgetFilter extends OncePerRequestFilter {

    private final Duration budget;

    public RequestStoreBudgetFilter(Duration budget) {
        if (budget.isNegative() || budget.isZero()) {
            throw new IllegalArgumentException("onlyonce.redis.request-budget must be positive");
        }
        this.budget = budget;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        try (StoreBudget.Scope scope = StoreBudget.open(budget)) {
            chain.doFilter(request, response);
        }
    }
}
