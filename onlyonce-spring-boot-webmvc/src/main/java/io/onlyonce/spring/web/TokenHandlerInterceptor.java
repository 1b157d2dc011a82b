package io.onlyonce.spring.web;

import io.onlyonce.spring.http.IdempotentRequests;
import io.onlyonce.spring.http.OnlyOnceRejection;
import io.onlyonce.spring.http.ProblemType;
import io.onlyonce.spring.Idempotent;
import io.onlyonce.spring.PrincipalResolver;
import io.onlyonce.spring.metrics.OutcomeRecorder;
import io.onlyonce.token.TokenService;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.web.servlet.HandlerMapping;
import jakarta.servlet.http.HttpServletResponse;
import java.util.Collections;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerInterceptor;

/**
 * Checks the one-time token of a {@code @Idempotent(strategy = TOKEN)} handler before its
 * arguments are even read: present (else 400), signed by us (else 400), issued to this principal
 * for this scope (else 403). No store call: consuming is the method interceptor's job, after which
 * the method runs; the store decides whether the token is still alive (else 409).
 */
public final class TokenHandlerInterceptor implements HandlerInterceptor {

    private final TokenService tokens;
    private final PrincipalResolver principals;
    private final OutcomeRecorder recorder;
    private final String header;
    private final boolean principalRequired;
    /** Each handler method's merged annotation, looked up once (not on every request). */
    private final java.util.Map<java.lang.reflect.Method, java.util.Optional<Idempotent>> annotations =
            new java.util.concurrent.ConcurrentHashMap<>();

    public TokenHandlerInterceptor(TokenService tokens, PrincipalResolver principals, OutcomeRecorder recorder,
            String header, boolean principalRequired) {
        this.tokens = tokens;
        this.principals = principals;
        this.recorder = recorder;
        this.header = header;
        this.principalRequired = principalRequired;
    }

    @Override
    public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
        IdempotentExchange exchange = IdempotentExchange.of(request);
        try {
            return verify(request, exchange, handler);
        } catch (OnlyOnceRejection rejection) {
            if (exchange != null) {
                exchange.refuse(rejection);
            }
            throw rejection;
        }
    }

    private boolean verify(HttpServletRequest request, @Nullable IdempotentExchange exchange, Object handler) {
        if (!(handler instanceof HandlerMethod method)) {
            return true;
        }
        Idempotent idempotent = annotations.computeIfAbsent(method.getMethod(),
                m -> java.util.Optional.ofNullable(AnnotatedElementUtils.findMergedAnnotation(m, Idempotent.class)))
                .orElse(null);
        if (idempotent == null || idempotent.strategy() != Idempotent.Strategy.TOKEN) {
            return true;
        }
        String endpoint = RequestContext.endpoint(request);
        String principal = principals.resolve(request);
        if (principal == null && principalRequired) {
            recorder.record(OutcomeRecorder.LAYER_BUSINESS, "missing_key", endpoint);
            throw OnlyOnceRejection.problem(ProblemType.PRINCIPAL_REQUIRED);
        }
        if (exchange == null) {
            throw new IllegalStateException("OnlyOnceFilter is not installed in front of " + method.getMethod());
        }
        try {
            exchange.verified(IdempotentRequests.verifiedToken(tokens, Collections.list(request.getHeaders(header)),
                    principal, IdempotentRequests.tokenScope(idempotent.scope(), pathVariables(request))));
            return true;
        } catch (OnlyOnceRejection refused) {
            recorder.record(OutcomeRecorder.LAYER_BUSINESS,
                    refused.problemType() == ProblemType.IDEMPOTENCY_TOKEN_MISSING ? "missing_key" : "token_rejected", endpoint);
            throw refused;
        }
    }

    private static Map<?, ?> pathVariables(HttpServletRequest request) {
        Object attribute = request.getAttribute(HandlerMapping.URI_TEMPLATE_VARIABLES_ATTRIBUTE);
        return attribute instanceof Map<?, ?> map ? map : Map.of();
    }
}
