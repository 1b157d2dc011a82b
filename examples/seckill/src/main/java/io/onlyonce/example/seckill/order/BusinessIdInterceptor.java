package io.onlyonce.example.seckill.order;

import io.onlyonce.IdempotencyKey;
import io.onlyonce.InvalidIdempotencyKeyException;
import io.onlyonce.example.seckill.auth.CurrentUser;
import io.onlyonce.example.seckill.web.ApiException;
import io.onlyonce.example.seckill.web.AppProblem;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.springframework.web.servlet.HandlerInterceptor;

/**
 * Checks the {@code Idempotency-Key} of {@code POST /api/orders} before the key is claimed: a
 * business id of the right form (else 400 {@code business-id-invalid}) made for the caller (else 403
 * {@code business-id-forbidden}). Nothing is stored for a request refused here. A
 * missing or malformed header is left to the OnlyOnce starter's own 400.
 */
public final class BusinessIdInterceptor implements HandlerInterceptor {

    public static final String HEADER = "Idempotency-Key";

    @Override
    public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
        if (!"POST".equals(request.getMethod())) {
            return true;
        }
        List<String> values = Collections.list(request.getHeaders(HEADER));
        if (values.size() != 1) {
            return true;
        }
        String value;
        try {
            value = IdempotencyKey.parseHeaderValue(values.get(0));
        } catch (InvalidIdempotencyKeyException e) {
            return true;
        }
        Optional<BusinessIds.Parsed> parsed = BusinessIds.parse(value);
        if (parsed.isEmpty()) {
            throw new ApiException(AppProblem.BUSINESS_ID_INVALID);
        }
        CurrentUser caller = CurrentUser.current();
        if (caller == null || caller.id() != parsed.get().userId()) {
            throw new ApiException(AppProblem.BUSINESS_ID_FORBIDDEN);
        }
        return true;
    }
}
