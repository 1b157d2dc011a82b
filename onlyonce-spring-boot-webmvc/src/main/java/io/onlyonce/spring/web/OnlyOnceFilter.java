package io.onlyonce.spring.web;

import io.onlyonce.spring.http.OnlyOnceRejection;
import io.onlyonce.spring.http.ProblemType;
import io.onlyonce.spring.http.OnlyOnceProblems;
import io.onlyonce.StoredResponse;
import io.onlyonce.engine.Outcome;
import io.onlyonce.json.Json;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletRequestEvent;
import jakarta.servlet.ServletRequestListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.web.context.request.async.WebAsyncUtils;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.util.WebUtils;

/**
 * Wraps each request so that an {@code @Idempotent} handler can fingerprint its whole body (see
 * {@link DigestingRequest}) and have its serialised response recorded. After the handler (and any
 * exception handler) finished, the captured status, replay headers and body are stored through the
 * admitted execution, and only then sent to the client. Requests whose handler is not protected
 * pass through untouched.
 *
 * <p>A replay is written here, straight to the response, byte for byte, and so is the problem of a
 * refused request: whatever {@code ResponseBodyAdvice}, message converters or
 * {@code @ControllerAdvice} the application has, none of them sees or changes either.
 *
 * <p>An asynchronous answer ({@code CompletableFuture}, {@code DeferredResult}, {@code Callable}) is
 * recorded when it is written, in the ASYNC dispatch; the key stays held until then. An answer
 * written because the request timed out or broke off is not the method's and is not recorded (see
 * {@link PendingExecution}). An answer given
 * through {@code sendError} gets its body from the container's error page, in an ERROR dispatch:
 * that dispatch is captured and recorded instead. Should neither follow, the
 * {@link #requestListener() request listener} releases the key when the request ends.
 *
 * <p>Register it for the REQUEST, ASYNC and ERROR dispatcher types.
 */
public final class OnlyOnceFilter extends OncePerRequestFilter {

    private static final Logger log = LoggerFactory.getLogger(OnlyOnceFilter.class);
    private static final Set<String> BODY_METHODS = Set.of("POST", "PUT", "PATCH", "DELETE");

    private final long maxBodySize;
    private final OnlyOnceProblems problems;

    /**
     * @param maxBodySize the largest request body fingerprinted, and response body stored
     * @param problems the problem details of refused requests
     */
    public OnlyOnceFilter(long maxBodySize, OnlyOnceProblems problems) {
        this.maxBodySize = maxBodySize;
        this.problems = problems;
    }

    /**
     * Has this filter answer {@code rejection} for a handler that decided without {@code @Idempotent}
     * (with {@code RedisAtomicExecutor}, say): see {@link IdempotentExchange#answer}. Throw what it
     * returns.
     */
    public static OnlyOnceRejection answer(HttpServletRequest request, OnlyOnceRejection rejection) {
        IdempotentExchange exchange = IdempotentExchange.of(request);
        return exchange == null ? rejection : exchange.answer(rejection);
    }

    @Override
    protected boolean shouldNotFilterAsyncDispatch() {
        return false;
    }

    @Override
    protected boolean shouldNotFilterErrorDispatch() {
        return false;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (request.getDispatcherType() == DispatcherType.ERROR) {
            filterErrorDispatch(request, response, chain);
            return;
        }
        IdempotentExchange existing = IdempotentExchange.of(request);
        if (isAsyncDispatch(request) && existing != null) {
            // the asynchronous answer is written now: into the same capture as the first dispatch
            CapturingResponse capture = existing.capture();
            HttpServletResponse target = WebUtils.getNativeResponse(response, CapturingResponse.class) == capture
                    ? response
                    : capture;
            PendingExecution pending = existing.pending();
            if (pending != null) {
                pending.concurrentResult(WebAsyncUtils.getAsyncManager(request).getConcurrentResult());
            }
            finish(request, existing, chain, request, target, null);
            return;
        }
        DigestingRequest created = null;
        HttpServletRequest wrappedRequest = request;
        if (BODY_METHODS.contains(request.getMethod()) && WebUtils.getNativeRequest(request, DigestingRequest.class) == null) {
            created = new DigestingRequest(request, maxBodySize);
            wrappedRequest = created;
        }
        CapturingResponse wrappedResponse = new CapturingResponse(response);
        IdempotentExchange exchange = IdempotentExchange.open(wrappedRequest, wrappedResponse);
        finish(wrappedRequest, exchange, chain, wrappedRequest, wrappedResponse, created);
    }

    /** Runs the chain, then replays, records or waits for the asynchronous answer. */
    private void finish(HttpServletRequest request, IdempotentExchange exchange, FilterChain chain,
            HttpServletRequest chainRequest, HttpServletResponse chainResponse, @Nullable DigestingRequest created)
            throws ServletException, IOException {
        CapturingResponse capture = exchange.capture();
        boolean async = false;
        try {
            try {
                chain.doFilter(chainRequest, chainResponse);
            } catch (IOException | ServletException | RuntimeException | Error failure) {
                StoredResponse replay = exchange.takeReplay();
                if (replay != null) {
                    // an application handler turned the replay into an error: the replay stands
                    writeReplay(capture, replay);
                    return;
                }
                if (exchange.isRefused() && !capture.isCommitted()) {
                    writeProblem(request, exchange, java.util.Objects.requireNonNull(exchange.takeRefusal()));
                    return;
                }
                fail(exchange, failure);
                throw failure;
            }
            if (request.isAsyncStarted()) {
                // the answer is written later, in the ASYNC dispatch, where it is recorded
                async = true;
                if (created != null) {
                    request.getAsyncContext().addListener(closing(created));
                }
                PendingExecution pending = exchange.pending();
                if (pending != null) {
                    request.getAsyncContext().addListener(interrupting(pending));
                }
                return;
            }
            StoredResponse replay = exchange.takeReplay();
            if (replay != null) {
                writeReplay(capture, replay);
                return;
            }
            if (exchange.isRefused() && !capture.isCommitted()) {
                writeProblem(request, exchange, java.util.Objects.requireNonNull(exchange.takeRefusal()));
                return;
            }
            if (exchange.pending() != null && !capture.isErrorSent()) {
                PendingExecution pending = java.util.Objects.requireNonNull(exchange.takePending());
                if (pending.claimForRecording()) {
                    record(request, pending, capture);
                }
            }
            // after sendError the pending execution stays on the request for the ERROR dispatch
            capture.copyBodyToResponse();
        } finally {
            if (created != null && !async) {
                created.close();
            }
        }
    }

    /** Writes a stored response to the client as it was first sent, over whatever MVC prepared. */
    private static void writeReplay(CapturingResponse capture, StoredResponse replay) throws IOException {
        capture.discardCapture();
        HttpServletResponse real = (HttpServletResponse) capture.getResponse();
        if (real.isCommitted()) {
            log.warn("a replay could not be written: the response was committed by the application first");
            return;
        }
        real.resetBuffer();
        real.setStatus(replay.status());
        real.setContentType(null);
        Set<String> written = new HashSet<>();
        for (StoredResponse.Header header : replay.headers()) {
            if (written.add(header.name().toLowerCase(Locale.ROOT))) {
                real.setHeader(header.name(), header.value());
            } else {
                real.addHeader(header.name(), header.value());
            }
        }
        real.setHeader(OnlyOnceExceptionHandler.REPLAYED_HEADER, "true");
        byte[] body = replay.body();
        real.setContentLength(body.length);
        if (body.length > 0) {
            real.getOutputStream().write(body);
        }
        real.flushBuffer();
    }

    /** Answers the refusal's problem, over whatever an application handler made of it. */
    private void writeProblem(HttpServletRequest request, IdempotentExchange exchange, OnlyOnceRejection rejection)
            throws IOException {
        CapturingResponse capture = exchange.capture();
        // a method that ran and failed (the outbox could not record its message): its key is freed
        // before the client learns of the failure, so that a retry runs
        fail(exchange, rejection);
        ProblemType type = java.util.Objects.requireNonNull(rejection.problemType());
        ProblemDetail problem = problems.create(type, RequestLanguage.of(request));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", String.valueOf(problem.getType()));
        body.put("title", problem.getTitle());
        body.put("status", problem.getStatus());
        body.put("detail", problem.getDetail());
        body.put("instance", request.getRequestURI());
        body.putAll(rejection.properties());
        capture.discardCapture();
        HttpServletResponse real = (HttpServletResponse) capture.getResponse();
        real.resetBuffer();
        real.setStatus(problem.getStatus());
        real.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
        if (rejection.retryAfter() != null) {
            real.setHeader(HttpHeaders.RETRY_AFTER, Long.toString(OnlyOnceExceptionHandler.seconds(rejection.retryAfter())));
        }
        byte[] bytes = Json.onClassPath().write(body);
        real.setContentLength(bytes.length);
        real.getOutputStream().write(bytes);
        real.flushBuffer();
    }

    /** The container renders an error page for a protected request: record that answer. */
    private void filterErrorDispatch(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        IdempotentExchange exchange = IdempotentExchange.of(request);
        PendingExecution pending = exchange == null ? null : exchange.takePending();
        if (pending == null) {
            chain.doFilter(request, response);
            return;
        }
        if (!pending.claimForRecording()) {
            chain.doFilter(request, response);
            return;
        }
        if (response.isCommitted()) {
            pending.fail(new IllegalStateException("error response committed before it could be recorded"));
            chain.doFilter(request, response);
            return;
        }
        CapturingResponse capture = new CapturingResponse(response);
        // the headers the method's dispatch set before it ran stay the current request's
        capture.startCapture(exchange.capture().headersBeforeCapture());
        try {
            chain.doFilter(request, capture);
        } catch (IOException | ServletException | RuntimeException | Error failure) {
            pending.fail(failure);
            throw failure;
        }
        record(request, pending, capture);
        capture.copyBodyToResponse();
    }

    /**
     * Releases the key of a protected request that ends without a recorded answer (an error sent
     * through {@code sendError} for which the container rendered no error page, an asynchronous
     * answer that never came).
     */
    public static ServletRequestListener requestListener() {
        return new ServletRequestListener() {
            @Override
            public void requestDestroyed(ServletRequestEvent event) {
                IdempotentExchange exchange = IdempotentExchange.of(event.getServletRequest());
                PendingExecution pending = exchange == null ? null : exchange.takePending();
                if (exchange == null || pending == null) {
                    return;
                }
                if (exchange.capture().isErrorSent()) {
                    // the method ran and answered through sendError, with no error page to record:
                    // keep a deterministic answer's key without its response, release a failure's
                    if (!pending.claimForRecording()) {
                        return;
                    }
                    Outcome.Executed executed = pending.execution().completeWithoutResponse(exchange.capture().getStatus());
                    if (executed.recording() == Outcome.Recording.RELEASED && pending.onFailure() != null) {
                        pending.onFailure().run();
                    }
                    return;
                }
                pending.abandoned(new IllegalStateException("request ended without a recorded response"));
            }
        };
    }

    /**
     * Records the captured answer. A success whose response cannot be stored (larger than the limit,
     * a header no store may keep) is completed without its response: the work ran, so its key stays
     * taken and retries are told so.
     */
    private static void record(ServletRequest request, PendingExecution pending, CapturingResponse response) {
        int status = response.getStatus();
        byte[] body = response.capturedBody();
        Outcome.Executed executed;
        Throwable threw = pending.threw();
        if (pending.isRolledBack()) {
            // the transaction of the work rolled back or failed to commit: nothing happened, so
            // whatever an exception handler answered (a 200 {"code":500}, a 4xx) frees the key
            pending.fail(threw == null ? new IllegalStateException("rolled back") : threw);
            return;
        }
        if (threw != null && status < 400) {
            // the method failed, and an application exception handler answered it as a success (a
            // result wrapper's {"code":500} with 200): that answer is the failure's, not a result
            pending.fail(threw);
            return;
        }
        Object unwritten = threw == null ? answerFailure(request) : null;
        if (unwritten != null) {
            // the method returned, but its result could not be written (not acceptable to the client,
            // not serialisable): what the client got is an exception handler's answer, not the
            // method's. The work ran, so its key stays taken, without that answer
            log.warn("the result of an idempotent method could not be written ({}): its key is kept without"
                    + " the response", unwritten.getClass().getName());
            executed = pending.execution().completeWithoutResponse(HttpServletResponse.SC_OK);
        } else if (body.length > pending.maxBodySize()) {
            log.warn("a {} byte response is larger than onlyonce.key.max-body-size ({} bytes): its key is kept"
                    + " without the response", body.length, pending.maxBodySize());
            executed = pending.execution().completeWithoutResponse(status);
        } else {
            StoredResponse stored;
            try {
                stored = new StoredResponse(status, replayHeaders(pending, response), body);
            } catch (IllegalArgumentException notStorable) {
                log.warn("a response cannot be stored ({}): its key is kept without the response", notStorable.getMessage());
                stored = null;
            }
            executed = stored == null
                    ? pending.execution().completeWithoutResponse(status)
                    : pending.execution().complete(stored);
        }
        if (executed.recording() == Outcome.Recording.RELEASED && pending.onFailure() != null) {
            pending.onFailure().run();
        }
    }

    /**
     * The exception a handler exception resolver answered for this request, if any: set by
     * Spring MVC for an exception handled without a view (every {@code @ResponseBody} handler,
     * {@code sendError}) and for one rendered as an error view.
     */
    private static @Nullable Object answerFailure(ServletRequest request) {
        Object resolved = request.getAttribute(DispatcherServlet.EXCEPTION_ATTRIBUTE);
        return resolved != null ? resolved : request.getAttribute(WebUtils.ERROR_EXCEPTION_ATTRIBUTE);
    }

    /**
     * The headers stored with the answer: those the application wrote while it was captured (not
     * the ones already on the response before the method ran, which belong to each request, such as
     * an outer filter's {@code X-Request-ID}), less the {@link io.onlyonce.spring.method.ReplayHeaders
     * excluded} ones, and the Content-Type.
     */
    private static List<StoredResponse.Header> replayHeaders(PendingExecution pending, CapturingResponse response) {
        List<StoredResponse.Header> headers = new ArrayList<>();
        response.headersWrittenWhileCapturing().forEach((name, values) -> {
            if (!name.equalsIgnoreCase("Content-Type") && pending.replayHeaders().isReplayed(name)) {
                for (String value : values) {
                    headers.add(new StoredResponse.Header(name, value));
                }
            }
        });
        if (response.getContentType() != null) {
            headers.add(new StoredResponse.Header("Content-Type", response.getContentType()));
        }
        return headers;
    }

    private static void fail(IdempotentExchange exchange, Throwable failure) {
        PendingExecution pending = exchange.takePending();
        if (pending != null) {
            pending.abandoned(failure);
        }
    }

    /** Tells the pending execution when the asynchronous request times out or breaks off. */
    private static AsyncListener interrupting(PendingExecution pending) {
        return new AsyncListener() {
            @Override
            public void onComplete(AsyncEvent event) {
            }

            @Override
            public void onTimeout(AsyncEvent event) {
                pending.interrupted();
            }

            @Override
            public void onError(AsyncEvent event) {
                pending.interrupted();
            }

            @Override
            public void onStartAsync(AsyncEvent event) {
                event.getAsyncContext().addListener(this);
            }
        };
    }

    private static AsyncListener closing(DigestingRequest body) {
        return new AsyncListener() {
            @Override
            public void onComplete(AsyncEvent event) {
                body.close();
            }

            @Override
            public void onTimeout(AsyncEvent event) {
            }

            @Override
            public void onError(AsyncEvent event) {
            }

            @Override
            public void onStartAsync(AsyncEvent event) {
                event.getAsyncContext().addListener(this);
            }
        };
    }
}
