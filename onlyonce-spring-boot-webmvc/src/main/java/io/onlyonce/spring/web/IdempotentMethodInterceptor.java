package io.onlyonce.spring.web;

import io.onlyonce.spring.http.IdempotentRequests;
import io.onlyonce.spring.http.OnlyOnceRejection;
import io.onlyonce.spring.http.ProblemType;
import io.onlyonce.spring.method.Streaming;
import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.InvalidIdempotencyKeyException;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.engine.Admission;
import io.onlyonce.engine.Execution;
import io.onlyonce.engine.IdempotencyConfig;
import io.onlyonce.engine.IdempotencyEngine;
import io.onlyonce.engine.Outcome;
import io.onlyonce.spring.Idempotent;
import io.onlyonce.spring.PrincipalResolver;
import io.onlyonce.spring.method.MethodSettings;
import io.onlyonce.spring.method.ObservedDurations;
import io.onlyonce.spring.method.TransactionCompletion;
import io.onlyonce.spring.method.WebInvocations;
import io.onlyonce.spring.metrics.OutcomeRecorder;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.token.OneTimeToken;
import io.onlyonce.token.TokenService;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Collections;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.EvaluationException;
import org.springframework.stereotype.Controller;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

/**
 * Runs around every {@link Idempotent} Spring MVC handler method called within a request (see
 * {@link io.onlyonce.spring.method.IdempotentInvocationInterceptor}), after its arguments were bound
 * and before its body runs: claims the key (KEY) or consumes the token (TOKEN), and either rejects the request
 * (replay, 409, 422, 503...) or lets the method run with its response captured by
 * {@link OnlyOnceFilter}. Never stores anything for a request it rejects.
 */
public final class IdempotentMethodInterceptor implements WebInvocations {

    /** Prefix of the key under which a token request's result is kept, to answer its duplicates. */
    static final String TOKEN_RESULT_PREFIX = IdempotentRequests.TOKEN_RESULT_PREFIX;

    private final IdempotencyEngine engine;
    private final IdempotencyStore store;
    private final TokenService tokens;
    private final PrincipalResolver principals;
    private final MethodSettings.Factory settings;
    private final OutcomeRecorder recorder;
    private final boolean principalRequired;
    private final String keyHeader;
    private final ObservedDurations durations;
    private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();
    private final Map<Class<?>, Boolean> controllers = new java.util.concurrent.ConcurrentHashMap<>();

    public IdempotentMethodInterceptor(IdempotencyEngine engine, IdempotencyStore store, TokenService tokens,
            PrincipalResolver principals, MethodSettings.Factory settings, OutcomeRecorder recorder,
            boolean principalRequired, String keyHeader) {
        this(engine, store, tokens, principals, settings, recorder, principalRequired, keyHeader, new ObservedDurations());
    }

    /** @param durations how long each endpoint takes, for the {@code Retry-After} of a request in progress */
    public IdempotentMethodInterceptor(IdempotencyEngine engine, IdempotencyStore store, TokenService tokens,
            PrincipalResolver principals, MethodSettings.Factory settings, OutcomeRecorder recorder,
            boolean principalRequired, String keyHeader, ObservedDurations durations) {
        this.durations = durations;
        this.engine = engine;
        this.store = store;
        this.tokens = tokens;
        this.principals = principals;
        this.settings = settings;
        this.recorder = recorder;
        this.principalRequired = principalRequired;
        this.keyHeader = keyHeader;
    }

    /** Whether the call is a Spring MVC handler method (a bean of a {@code @Controller} class) within a servlet request. */
    @Override
    public boolean handles(MethodInvocation invocation) {
        if (!(RequestContextHolder.getRequestAttributes() instanceof ServletRequestAttributes)) {
            return false;
        }
        Object target = invocation.getThis();
        Class<?> type = target == null ? invocation.getMethod().getDeclaringClass() : AopUtils.getTargetClass(target);
        return controllers.computeIfAbsent(type, t -> AnnotatedElementUtils.hasAnnotation(t, Controller.class));
    }

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        HttpServletRequest request = currentRequest(invocation);
        IdempotentExchange exchange = IdempotentExchange.of(request);
        if (exchange == null) {
            throw new IllegalStateException("OnlyOnceFilter is not installed in front of " + invocation.getMethod());
        }
        try {
            return protect(invocation, request, exchange);
        } catch (OnlyOnceRejection rejection) {
            exchange.refuse(rejection);
            throw rejection;
        }
    }

    private static HttpServletRequest currentRequest(MethodInvocation invocation) {
        RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
        if (!(attributes instanceof ServletRequestAttributes servlet)) {
            throw new IllegalStateException("@Idempotent applies to Spring MVC handler methods only: "
                    + invocation.getMethod());
        }
        return servlet.getRequest();
    }

    private @Nullable Object protect(MethodInvocation invocation, HttpServletRequest request, IdempotentExchange exchange)
            throws Throwable {
        CapturingResponse response = exchange.capture();
        MethodSettings method = settings.forMethod(invocation.getMethod());
        String endpoint = RequestContext.endpoint(request);
        String principal = principals.resolve(request);
        if (principal == null && principalRequired) {
            recorder.record(OutcomeRecorder.LAYER_BUSINESS, "missing_key", endpoint);
            throw OnlyOnceRejection.problem(ProblemType.PRINCIPAL_REQUIRED);
        }
        String scope = scope(endpoint, principal);
        SelfDecided self = selfDecided(invocation.getArguments());
        if (self != null) {
            self.bind(binding(invocation, request, exchange, method, endpoint, scope));
            return invocation.proceed();
        }
        Execution execution = method.annotation().strategy() == Idempotent.Strategy.TOKEN
                ? admitToken(request, exchange, method, endpoint, scope)
                : admitKey(invocation, request, exchange, method, endpoint, scope);
        if (execution == null) {
            return invocation.proceed();
        }
        response.startCapture();
        PendingExecution pending = exchange.pending();
        Object result;
        try {
            result = invocation.proceed();
        } catch (Throwable failure) {
            // recorded as a failure unless an exception handler answers it with a business 4xx
            if (pending != null) {
                pending.methodFailed(failure);
            }
            throw failure;
        }
        if (pending != null && TransactionCompletion.active()) {
            // the handler's work is part of a transaction that ends after it returns: a rollback or a
            // failed commit makes whatever is answered the failure's, and frees the key
            TransactionCompletion.afterCompletion(() -> { }, pending::rolledBack);
        }
        if (pending == null || result == null) {
            return result;
        }
        if (Streaming.isStreaming(result.getClass())) {
            // a streamed answer is written over time and cannot be stored: the work ran, so its key
            // stays taken without a response, and the stream goes to the client as it is written
            exchange.takePending();
            // kept once its transaction (if any) committed; freed if that rolls back
            TransactionCompletion.afterCompletion(() -> pending.execution().completeWithoutResponse(200),
                    () -> pending.fail(new IllegalStateException("the transaction around the request rolled back")));
            response.discardCapture();
            return result;
        }
        return watched(invocation.getMethod().getReturnType(), result, pending);
    }

    /**
     * A future or {@code Callable} whose end the pending execution learns of before Spring MVC
     * does: its failure frees the key whatever answer an exception handler gives, and work that
     * outlives the request's async timeout still finishes the execution when it ends. Other
     * results, and subtypes the wrapper could not stand in for, are returned as they are.
     */
    @SuppressWarnings("unchecked")
    private static Object watched(Class<?> declared, Object result, PendingExecution pending) {
        if (result instanceof CompletionStage<?> stage
                && (declared == CompletableFuture.class || declared == CompletionStage.class)) {
            pending.watch();
            // a future of its own: Spring MVC cancels what it was given when the request times out,
            // and a cancelled dependent would never learn how the work ended
            CompletableFuture<Object> answer = new CompletableFuture<>();
            stage.whenComplete((value, failure) -> {
                settle(pending, failure);
                if (failure == null) {
                    answer.complete(value);
                } else {
                    answer.completeExceptionally(failure);
                }
            });
            return answer;
        }
        if (result instanceof Callable<?> callable && declared == Callable.class) {
            pending.watch();
            return (Callable<Object>) () -> {
                Object value;
                try {
                    value = callable.call();
                } catch (Exception | Error failure) {
                    pending.methodFailed(failure);
                    throw failure;
                }
                pending.methodSucceeded();
                return value;
            };
        }
        return result;
    }

    private static void settle(PendingExecution pending, @Nullable Throwable failure) {
        if (failure == null) {
            pending.methodSucceeded();
        } else {
            pending.methodFailed(failure instanceof CompletionException && failure.getCause() != null
                    ? failure.getCause()
                    : failure);
        }
    }

    private static @Nullable SelfDecided selfDecided(Object[] arguments) {
        for (Object argument : arguments) {
            if (argument instanceof SelfDecided self) {
                return self;
            }
        }
        return null;
    }

    /** The key and fingerprint a self-deciding method's one store call uses, as the two-step path would. */
    private SelfDecided.Binding binding(MethodInvocation invocation, HttpServletRequest request,
            IdempotentExchange exchange, MethodSettings method, String endpoint, String scope) {
        if (method.annotation().strategy() == Idempotent.Strategy.TOKEN) {
            OneTimeToken token = verifiedToken(exchange, endpoint);
            return new SelfDecided.Binding(request, exchange, endpoint, IdempotentRequests.tokenResultKey(scope, token),
                    Fingerprint.of(request.getMethod(), request.getRequestURI()), token, method.config());
        }
        String name = keyName(invocation, request, method, endpoint);
        if (name == null) {
            // the store call needs a key: an optional one is required here
            recorder.record(OutcomeRecorder.LAYER_BUSINESS, "missing_key", endpoint);
            throw OnlyOnceRejection.problem(ProblemType.IDEMPOTENCY_KEY_MISSING);
        }
        return new SelfDecided.Binding(request, exchange, endpoint, key(scope, name, endpoint),
                RequestContext.fingerprint(request, method.fingerprintHeaders()), null, method.config());
    }

    private static String scope(String endpoint, @Nullable String principal) {
        return IdempotentRequests.scope(endpoint, principal);
    }

    private @Nullable Execution admitKey(MethodInvocation invocation, HttpServletRequest request,
            IdempotentExchange exchange, MethodSettings method, String endpoint, String scope) {
        String name = keyName(invocation, request, method, endpoint);
        if (name == null) {
            return null;
        }
        Fingerprint fingerprint = RequestContext.fingerprint(request, method.fingerprintHeaders());
        return admit(request, exchange, key(scope, name, endpoint), fingerprint, method.config(), method, endpoint, null);
    }

    private IdempotencyKey key(String scope, String name, String endpoint) {
        try {
            return new IdempotencyKey(scope, name);
        } catch (InvalidIdempotencyKeyException e) {
            recorder.record(OutcomeRecorder.LAYER_BUSINESS, "missing_key", endpoint);
            throw OnlyOnceRejection.problem(ProblemType.IDEMPOTENCY_KEY_INVALID);
        }
    }

    private @Nullable String keyName(MethodInvocation invocation, HttpServletRequest request, MethodSettings method,
            String endpoint) {
        if (method.keyExpression() != null) {
            MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(
                    invocation.getThis(), invocation.getMethod(), invocation.getArguments(), parameterNames);
            Object value;
            try {
                value = method.keyExpression().getValue(context);
            } catch (EvaluationException e) {
                // a null along the key's path (#request.customer.id without a customer): no key
                value = null;
            }
            if (value == null || value.toString().isBlank()) {
                recorder.record(OutcomeRecorder.LAYER_BUSINESS, "missing_key", endpoint);
                throw OnlyOnceRejection.problem(ProblemType.IDEMPOTENCY_KEY_MISSING);
            }
            try {
                // any business value is a key: a long or non-ASCII one is hashed
                return IdempotencyKey.derivedName(value.toString());
            } catch (InvalidIdempotencyKeyException e) {
                recorder.record(OutcomeRecorder.LAYER_BUSINESS, "missing_key", endpoint);
                throw OnlyOnceRejection.problem(ProblemType.IDEMPOTENCY_KEY_INVALID);
            }
        }
        try {
            return IdempotentRequests.headerKey(Collections.list(request.getHeaders(keyHeader)), method.annotation().required());
        } catch (OnlyOnceRejection refused) {
            recorder.record(OutcomeRecorder.LAYER_BUSINESS, "missing_key", endpoint);
            throw refused;
        }
    }

    private static OneTimeToken verifiedToken(IdempotentExchange exchange, String endpoint) {
        OneTimeToken token = exchange.verifiedToken();
        if (token == null) {
            throw new IllegalStateException("TokenHandlerInterceptor did not verify the token of " + endpoint);
        }
        return token;
    }

    private Execution admitToken(HttpServletRequest request, IdempotentExchange exchange, MethodSettings method,
            String endpoint, String scope) {
        OneTimeToken token = verifiedToken(exchange, endpoint);
        IdempotencyKey resultKey = IdempotentRequests.tokenResultKey(scope, token);
        boolean consumed = IdempotentRequests.consume(tokens, token, method.config(),
                () -> recorder.record(OutcomeRecorder.LAYER_BUSINESS, "store_error", endpoint));
        if (!consumed) {
            OnlyOnceRejection refused = IdempotentRequests.refusedToken(tokens, token, firstRecord(resultKey));
            recorder.record(OutcomeRecorder.LAYER_BUSINESS, IdempotentRequests.refusedTokenMetric(refused), endpoint);
            throw refused;
        }
        Runnable restore = method.annotation().onFailure() == Idempotent.FailureMode.RETRYABLE
                ? () -> restoreQuietly(token)
                : null;
        Fingerprint fingerprint = Fingerprint.of(request.getMethod(), request.getRequestURI());
        try {
            return admit(request, exchange, resultKey, fingerprint, method.config(), method, endpoint, restore);
        } catch (OnlyOnceRejection rejected) {
            // the token was consumed but the method will not run (the result store refused, 503):
            // give it back whatever the failure mode, so the retry the 503 asks for is not told
            // "duplicate submission" for a request that never ran
            restoreQuietly(token);
            throw rejected;
        }
    }

    private Execution admit(HttpServletRequest request, IdempotentExchange exchange, IdempotencyKey key,
            Fingerprint fingerprint, IdempotencyConfig config, MethodSettings method, String endpoint,
            @Nullable Runnable onFailure) {
        Admission admission = engine.admit(key, fingerprint, config);
        if (admission instanceof Admission.Decided decided) {
            throw reject(request, exchange, decided.outcome(), endpoint);
        }
        Execution execution = durations.timed(endpoint, ((Admission.Admitted) admission).execution());
        if (!execution.isProtected()) {
            recorder.record(OutcomeRecorder.LAYER_BUSINESS, "store_error", endpoint);
        }
        recorder.record(OutcomeRecorder.LAYER_BUSINESS, "executed", endpoint);
        exchange.admitted(new PendingExecution(execution, method.replayHeaders(), method.maxBodySize(), onFailure));
        return execution;
    }

    private OnlyOnceRejection reject(HttpServletRequest request, IdempotentExchange exchange, Outcome outcome,
            String endpoint) {
        if (outcome instanceof Outcome.Replayed replayed) {
            if (!Negotiation.acceptable(request, replayed.response())) {
                recorder.record(OutcomeRecorder.LAYER_BUSINESS, "not_acceptable", endpoint);
                return OnlyOnceRejection.problem(ProblemType.REPLAY_NOT_ACCEPTABLE);
            }
            recorder.record(OutcomeRecorder.LAYER_BUSINESS, "replayed", endpoint);
            // written by OnlyOnceFilter straight to the response, past every converter and advice
            return exchange.answer(OnlyOnceRejection.replay(replayed.response()));
        }
        recorder.record(OutcomeRecorder.LAYER_BUSINESS, IdempotentRequests.metricName(outcome), endpoint);
        return IdempotentRequests.refusal(outcome, outcome instanceof Outcome.InProgress inProgress
                ? durations.retryAfter(endpoint, inProgress)
                : java.time.Duration.ZERO);
    }

    /** The first request's record, when the store has one (empty too when the store is down). */
    private java.util.Optional<io.onlyonce.store.IdempotencyRecord> firstRecord(IdempotencyKey resultKey) {
        try {
            return store.find(resultKey);
        } catch (StoreUnavailableException e) {
            return java.util.Optional.empty();
        }
    }

    private void restoreQuietly(OneTimeToken token) {
        IdempotentRequests.restoreQuietly(tokens, token);
    }
}
