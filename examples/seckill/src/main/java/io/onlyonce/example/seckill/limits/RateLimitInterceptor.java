package io.onlyonce.example.seckill.limits;

import io.onlyonce.example.seckill.auth.CurrentUser;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.util.Map;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.HandlerMapping;

/**
 * Counts the caller's request against {@link RequestRates} before anything else of the endpoint
 * runs: before its body is read or validated, before the one-time token is checked or consumed and
 * before an {@code Idempotency-Key} is claimed. So a refused request costs nothing behind it, and
 * a flash-sale token that met a 429 is still unused.
 */
public final class RateLimitInterceptor implements HandlerInterceptor {

    /** Route template → what it counts as (a POST, except the business-id service's GET). */
    static final Map<String, RequestRates.Kind> ROUTES = Map.of(
            "/api/seckill/activities/{activityId}/tokens", RequestRates.Kind.TOKENS,
            "/api/seckill/activities/{activityId}/orders", RequestRates.Kind.ORDERS,
            "/api/orders", RequestRates.Kind.ORDERS,
            "/api/idempotent/generate", RequestRates.Kind.IDS);

    private final RequestRates rates;

    public RateLimitInterceptor(RequestRates rates) {
        this.rates = rates;
    }

    @Override
    public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
        Object route = request.getAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE);
        RequestRates.Kind kind = route instanceof String template ? ROUTES.get(template) : null;
        String method = kind == RequestRates.Kind.IDS ? "GET" : "POST";
        if (!method.equals(request.getMethod())) {
            return true;
        }
        CurrentUser user = CurrentUser.current();
        if (kind != null && user != null) {
            rates.count(kind, user.id(), method + " " + route);
        }
        return true;
    }
}
