package io.onlyonce.spring.method;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.InvalidIdempotencyKeyException;
import io.onlyonce.MissingIdempotencyKeyException;
import io.onlyonce.StoredResponse;
import io.onlyonce.engine.Admission;
import io.onlyonce.engine.Execution;
import io.onlyonce.engine.IdempotencyEngine;
import io.onlyonce.engine.Outcome;
import io.onlyonce.support.StrictUtf8;
import io.onlyonce.spring.IdempotencyRefusedException;
import io.onlyonce.spring.Idempotent;
import io.onlyonce.spring.metrics.OutcomeRecorder;
import java.lang.reflect.Method;
import java.util.List;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.EvaluationException;

/**
 * The advice of every {@link Idempotent} method. A Spring MVC handler called within a request goes
 * to the {@link WebInvocations} (HTTP answers, replays, problems); any other call (a service method,
 * a {@code @RabbitListener}) is handled here, as AWS Powertools' idempotency utility handles a
 * function: the key comes from the arguments ({@link Idempotent#key()}, SpEL), the fingerprint is the
 * arguments as canonical JSON, the return value is stored as JSON and returned again, deserialised to
 * the method's return type, to every later call with the same key. The same lease, in-progress and
 * store-failure rules apply as over HTTP; a refused call throws {@link IdempotencyRefusedException}
 * (or {@link io.onlyonce.StoreUnavailableException} under STRICT). Thread-safe.
 */
public final class IdempotentInvocationInterceptor implements MethodInterceptor {

    /** The layer name under which method calls are counted. */
    public static final String LAYER = OutcomeRecorder.LAYER_BUSINESS;

    private final IdempotencyEngine engine;
    private final MethodSettings.Factory settings;
    private final OutcomeRecorder recorder;
    private final ResultCodec json;
    private final @Nullable WebInvocations web;
    private final CallerPrincipal principal;
    private final TransactionJoin join;
    private final ObservedDurations durations;
    private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();

    public IdempotentInvocationInterceptor(IdempotencyEngine engine, MethodSettings.Factory settings,
            OutcomeRecorder recorder, ResultCodec json, @Nullable WebInvocations web) {
        this(engine, settings, recorder, json, web, CallerPrincipal.fromSecurityContext(), TransactionJoin.NEVER,
                new ObservedDurations());
    }

    /**
     * @param principal names the caller, whose name scopes the key of a method that is
     *     {@linkplain Idempotent#perPrincipal() per principal}
     * @param join whether the store writes through the active transaction's connection
     * @param durations how long each method takes, for the {@code Retry-After} of a call in progress
     */
    public IdempotentInvocationInterceptor(IdempotencyEngine engine, MethodSettings.Factory settings,
            OutcomeRecorder recorder, ResultCodec json, @Nullable WebInvocations web, CallerPrincipal principal,
            TransactionJoin join, ObservedDurations durations) {
        this.engine = engine;
        this.settings = settings;
        this.recorder = recorder;
        this.json = json;
        this.web = web;
        this.principal = principal;
        this.join = join;
        this.durations = durations;
    }

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        WebInvocations handlers = web;
        if (handlers != null && handlers.handles(invocation)) {
            return handlers.invoke(invocation);
        }
        return call(invocation);
    }

    private @Nullable Object call(MethodInvocation invocation) throws Throwable {
        Method method = invocation.getMethod();
        MethodSettings methodSettings = settings.forMethod(method);
        String endpoint = endpoint(method);
        IdempotencyKey key = key(invocation, methodSettings, endpoint);
        Admission admission = engine.admit(key, fingerprint(invocation), methodSettings.config());
        if (admission instanceof Admission.Decided decided) {
            return decided(decided.outcome(), key, method, endpoint);
        }
        Execution execution = durations.timed(endpoint, ((Admission.Admitted) admission).execution());
        recorder.record(LAYER, execution.isProtected() ? "executed" : "store_error", endpoint);
        Object result;
        try {
            result = invocation.proceed();
        } catch (Throwable failure) {
            fail(execution, failure);
            throw failure;
        }
        StoredResponse response;
        try {
            byte[] body = method.getReturnType() == void.class || result == null ? new byte[0] : json.write(result);
            response = new StoredResponse(200, List.of(new StoredResponse.Header("Content-Type", "application/json")), body);
        } catch (ResultCodec.NotSerializableException notJson) {
            response = null;
        }
        complete(execution, response);
        return result;
    }

    /**
     * Frees the key of a call that threw. Joined to the transaction, the claim is in that
     * transaction, which the failure usually rolls back (taking the claim with it), and whose
     * connection may no longer accept statements (PostgreSQL after an error): the release waits
     * until the transaction ended, and only a transaction that still committed needs it.
     */
    private void fail(Execution execution, Throwable failure) {
        if (TransactionCompletion.active() && join.joinsCurrentTransaction()) {
            TransactionCompletion.afterCompletion(() -> execution.fail(failure), () -> { });
            return;
        }
        execution.fail(failure);
    }

    /**
     * Completes the record once the work is durable: inside the active transaction when the store
     * joins it (record and effect then commit together), after it commits otherwise, and at once
     * without a transaction. A transaction that rolls back, or whose commit fails, frees the key.
     */
    private void complete(Execution execution, @Nullable StoredResponse response) {
        Runnable completion = () -> {
            if (response == null) {
                execution.completeWithoutResponse(200);
            } else {
                execution.complete(response);
            }
        };
        if (!TransactionCompletion.active() || join.joinsCurrentTransaction()) {
            completion.run();
            return;
        }
        TransactionCompletion.afterCompletion(completion,
                () -> execution.fail(new IllegalStateException("the transaction around the call rolled back")));
    }

    private @Nullable Object decided(Outcome outcome, IdempotencyKey key, Method method, String endpoint) {
        if (outcome instanceof Outcome.Replayed replayed) {
            recorder.record(LAYER, "replayed", endpoint);
            byte[] body = replayed.response().body();
            if (method.getReturnType() == void.class || body.length == 0) {
                return null;
            }
            return json.read(body, method);
        }
        if (outcome instanceof Outcome.InProgress inProgress) {
            recorder.record(LAYER, "in_progress", endpoint);
            throw new IdempotencyRefusedException.InProgress(key.name(), durations.retryAfter(endpoint, inProgress));
        }
        if (outcome instanceof Outcome.FingerprintMismatch) {
            recorder.record(LAYER, "mismatch", endpoint);
            throw new IdempotencyRefusedException.KeyReused(key.name());
        }
        if (outcome instanceof Outcome.ResponseNotKept) {
            recorder.record(LAYER, "response_not_kept", endpoint);
            throw new IdempotencyRefusedException.ResultNotKept(key.name());
        }
        recorder.record(LAYER, "store_error", endpoint);
        throw ((Outcome.StoreUnavailable) outcome).cause();
    }

    private IdempotencyKey key(MethodInvocation invocation, MethodSettings methodSettings, String endpoint) {
        if (methodSettings.keyExpression() == null) {
            throw new IllegalStateException("@Idempotent outside a web request needs a key expression: " + invocation.getMethod());
        }
        MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(
                invocation.getThis(), invocation.getMethod(), invocation.getArguments(), parameterNames);
        Object value;
        try {
            value = methodSettings.keyExpression().getValue(context);
        } catch (EvaluationException e) {
            recorder.record(LAYER, "missing_key", endpoint);
            InvalidIdempotencyKeyException invalid = new MissingIdempotencyKeyException("the key expression '"
                    + methodSettings.annotation().key() + "' of " + endpoint + " could not be evaluated: " + e.getMessage());
            invalid.initCause(e);
            throw invalid;
        }
        if (value == null || value.toString().isBlank()) {
            recorder.record(LAYER, "missing_key", endpoint);
            throw new MissingIdempotencyKeyException("the key expression '" + methodSettings.annotation().key()
                    + "' of " + endpoint + " gave no value");
        }
        String caller = methodSettings.annotation().perPrincipal() ? principal.current() : null;
        return new IdempotencyKey(scope(endpoint, caller), IdempotencyKey.derivedName(value.toString()));
    }

    /**
     * {@code method Class#name}, and the caller's name after a space when there is one: the record
     * scope of a method call, hashed when too long for a scope or when the name is not plain text.
     */
    static String scope(String endpoint, @Nullable String caller) {
        // a name that is not well-formed text (an unpaired surrogate) is named by its UTF-16 units,
        // so that it can neither alias another name nor fail the call
        String name = caller == null || StrictUtf8.isWellFormed(caller) ? caller : utf16Units(caller);
        String scope = name == null ? "method " + endpoint : "method " + endpoint + " " + name;
        if (scope.length() <= IdempotencyKey.MAX_SCOPE_LENGTH && scope.chars().noneMatch(Character::isISOControl)) {
            return scope;
        }
        return "method " + IdempotencyKey.derivedName(scope);
    }

    private static String utf16Units(String text) {
        StringBuilder units = new StringBuilder("utf16:");
        text.chars().forEach(c -> units.append(String.format("%04x", c)));
        return units.toString();
    }

    private static String endpoint(Method method) {
        return method.getDeclaringClass().getName() + "#" + method.getName();
    }

    /**
     * The arguments as canonical JSON, each one on its own; an argument that is not JSON (a channel,
     * a connection) counts by its type only.
     */
    private Fingerprint fingerprint(MethodInvocation invocation) {
        Fingerprint.Builder builder = Fingerprint.builder().add(endpoint(invocation.getMethod()));
        for (Object argument : invocation.getArguments()) {
            if (argument == null) {
                builder.add("null");
                continue;
            }
            try {
                builder.addJson(json.write(argument));
            } catch (ResultCodec.NotSerializableException notJson) {
                builder.add("type:" + argument.getClass().getName());
            }
        }
        return builder.build();
    }
}
