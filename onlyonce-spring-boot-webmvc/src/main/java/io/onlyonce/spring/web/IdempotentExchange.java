package io.onlyonce.spring.web;

import io.onlyonce.StoredResponse;
import io.onlyonce.spring.http.OnlyOnceRejection;
import io.onlyonce.token.OneTimeToken;
import jakarta.servlet.ServletRequest;
import org.jspecify.annotations.Nullable;

/**
 * One request's idempotency state on the servlet path, the one request attribute of the business
 * layer (the servlet de-dup filter keeps its deferred window apart):
 * opened by {@link OnlyOnceFilter} when the request enters (with the response it captures), and
 * handed from there to the parts that decide. The token interceptor stores the token it
 * {@linkplain #verified verified}; the method interceptor the execution it
 * {@linkplain #admitted admitted}, or the {@linkplain #replay replay} or
 * {@linkplain #refuse refusal} it decided; the exception resolvers and handler a refusal they met. The
 * filter then writes the replay or the problem past the application's converters and advice, or
 * records the admitted execution's answer; and releases it when the request ends without one.
 *
 * <p>A request holds it from its first dispatch to its last (ASYNC, ERROR). Not thread-safe beyond
 * what the servlet container guarantees between a request's dispatches; the admitted execution
 * guards itself (its work may end on another thread).
 */
public final class IdempotentExchange {

    private static final String ATTRIBUTE = IdempotentExchange.class.getName();

    private final CapturingResponse capture;
    private @Nullable PendingExecution pending;
    private @Nullable StoredResponse replay;
    private @Nullable OnlyOnceRejection refusal;
    private @Nullable OneTimeToken verifiedToken;

    private IdempotentExchange(CapturingResponse capture) {
        this.capture = capture;
    }

    /** Opens the exchange of a request entering {@link OnlyOnceFilter}. */
    static IdempotentExchange open(ServletRequest request, CapturingResponse capture) {
        IdempotentExchange exchange = new IdempotentExchange(capture);
        request.setAttribute(ATTRIBUTE, exchange);
        return exchange;
    }

    /** The request's exchange, or null when {@link OnlyOnceFilter} is not in front of it. */
    public static @Nullable IdempotentExchange of(ServletRequest request) {
        return request.getAttribute(ATTRIBUTE) instanceof IdempotentExchange exchange ? exchange : null;
    }

    /**
     * Remembers {@code rejection} on the request's exchange, if it has one (see {@link #refuse}).
     *
     * @return whether the filter will answer it
     */
    static boolean refuse(ServletRequest request, OnlyOnceRejection rejection) {
        IdempotentExchange exchange = of(request);
        if (exchange == null) {
            return false;
        }
        exchange.refuse(rejection);
        return exchange.answers(rejection);
    }

    /**
     * Has {@link OnlyOnceFilter} answer {@code rejection} for a handler that decided without
     * {@code @Idempotent}'s two steps (with {@code AtomicIdempotency}, say): a replay byte for byte
     * with {@code Idempotent-Replayed}, a problem as every refusal of OnlyOnce's, in both cases past
     * the application's converters, advice and exception handlers. Throw what it returns.
     */
    public OnlyOnceRejection answer(OnlyOnceRejection rejection) {
        StoredResponse stored = rejection.replayedResponse();
        if (stored != null) {
            replay(stored);
        } else {
            refuse(rejection);
        }
        return rejection;
    }

    /** The response the filter captures. */
    CapturingResponse capture() {
        return capture;
    }

    /**
     * Remembers that the request was refused with {@code rejection} (a problem; a replay is
     * {@link #replay}), and holds back what the application writes from now on: the filter answers
     * the problem itself, whatever an application exception handler or result wrapper made of it (a
     * global {@code @ExceptionHandler(Exception.class)} answering 200 or 500), so that 409 still
     * means "in progress" and 503 still means "retry later".
     */
    void refuse(OnlyOnceRejection rejection) {
        if (rejection.problemType() == null) {
            return;
        }
        refusal = rejection;
        holdBack();
    }

    /** Whether the filter answers {@code rejection} itself. */
    boolean answers(OnlyOnceRejection rejection) {
        return refusal == rejection;
    }

    /** Whether a refusal is already remembered. */
    boolean isRefused() {
        return refusal != null;
    }

    /** The stored response to write instead of the handler's answer. */
    void replay(StoredResponse response) {
        holdBack();
        replay = response;
    }

    /** The replay decided for the request, once. */
    @Nullable StoredResponse takeReplay() {
        StoredResponse taken = replay;
        replay = null;
        return taken;
    }

    /** The refusal remembered for the request, once. */
    @Nullable OnlyOnceRejection takeRefusal() {
        OnlyOnceRejection taken = refusal;
        refusal = null;
        return taken;
    }

    /** The execution admitted for the request, whose answer the filter records. */
    void admitted(PendingExecution execution) {
        pending = execution;
    }

    /** The admitted execution still waiting for its answer, or null. */
    @Nullable PendingExecution pending() {
        return pending;
    }

    /** The admitted execution, handed over once (to record it, fail it or leave it to its work). */
    @Nullable PendingExecution takePending() {
        PendingExecution taken = pending;
        pending = null;
        return taken;
    }

    /** The one-time token {@link TokenHandlerInterceptor} verified for the request. */
    void verified(OneTimeToken token) {
        verifiedToken = token;
    }

    /** The verified one-time token, or null when the handler is not a TOKEN one. */
    @Nullable OneTimeToken verifiedToken() {
        return verifiedToken;
    }

    private void holdBack() {
        if (!capture.isCapturing() && !capture.isCommitted()) {
            capture.startCapture();
        }
    }
}
