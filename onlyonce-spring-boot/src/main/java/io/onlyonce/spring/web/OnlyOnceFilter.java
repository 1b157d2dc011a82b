package io.onlyonce.spring.web;

import io.onlyonce.StoredResponse;
import io.onlyonce.engine.Outcome;
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
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Wraps each request so that an {@code @Idempotent} handler can fingerprint the body it read and
 * have its serialised response recorded. After the handler (and any exception handler) finished,
 * the captured status, replay headers and body are stored through the admitted execution, and only
 * then sent to the client. Requests whose handler is not protected pass through untouched.
 *
 * <p>An answer given through {@code sendError} (a {@code ResponseStatusException}, an exception
 * with {@code @ResponseStatus}) gets its body from the container's error page, in an ERROR
 * dispatch: that dispatch is captured and recorded instead. Should no error dispatch follow, the
 * {@link #requestListener() request listener} releases the key when the request ends.
 */
public final class OnlyOnceFilter extends OncePerRequestFilter {

    private static final Set<String> BODY_METHODS = Set.of("POST", "PUT", "PATCH", "DELETE");

    private final int maxRequestBodyCache;

    /** @param maxRequestBodyCache most request body bytes kept for the fingerprint */
    public OnlyOnceFilter(int maxRequestBodyCache) {
        this.maxRequestBodyCache = maxRequestBodyCache;
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
        HttpServletRequest wrappedRequest = BODY_METHODS.contains(request.getMethod())
                ? new FingerprintedRequest(request, maxRequestBodyCache)
                : request;
        CapturingResponse wrappedResponse = new CapturingResponse(response);
        wrappedRequest.setAttribute(CapturingResponse.class.getName(), wrappedResponse);
        try {
            chain.doFilter(wrappedRequest, wrappedResponse);
        } catch (IOException | ServletException | RuntimeException | Error failure) {
            fail(wrappedRequest, failure);
            throw failure;
        }
        if (wrappedRequest.isAsyncStarted()) {
            // the handler went asynchronous (a CompletableFuture behind a declared Object, say): its
            // answer is written later, on another thread, and cannot be recorded: free the key
            fail(wrappedRequest, new IllegalStateException("asynchronous response cannot be recorded"));
            wrappedResponse.copyBodyToResponse();
            return;
        }
        PendingExecution pending = (PendingExecution) wrappedRequest.getAttribute(PendingExecution.ATTRIBUTE);
        if (pending != null && !wrappedResponse.isErrorSent()) {
            wrappedRequest.removeAttribute(PendingExecution.ATTRIBUTE);
            record(pending, wrappedResponse);
        }
        // after sendError the pending execution stays on the request for the ERROR dispatch
        wrappedResponse.copyBodyToResponse();
    }

    /** The container renders an error page for a protected request: record that answer. */
    private void filterErrorDispatch(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        PendingExecution pending = (PendingExecution) request.getAttribute(PendingExecution.ATTRIBUTE);
        if (pending == null) {
            chain.doFilter(request, response);
            return;
        }
        request.removeAttribute(PendingExecution.ATTRIBUTE);
        if (response.isCommitted()) {
            failed(pending, new IllegalStateException("error response committed before it could be recorded"));
            chain.doFilter(request, response);
            return;
        }
        CapturingResponse capture = new CapturingResponse(response);
        capture.startCapture();
        try {
            chain.doFilter(request, capture);
        } catch (IOException | ServletException | RuntimeException | Error failure) {
            failed(pending, failure);
            throw failure;
        }
        record(pending, capture);
        capture.copyBodyToResponse();
    }

    /**
     * Releases the key of a protected request that ends without a recorded answer (an error sent
     * through {@code sendError} for which the container rendered no error page).
     */
    public static ServletRequestListener requestListener() {
        return new ServletRequestListener() {
            @Override
            public void requestDestroyed(ServletRequestEvent event) {
                ServletRequest request = event.getServletRequest();
                PendingExecution pending = (PendingExecution) request.getAttribute(PendingExecution.ATTRIBUTE);
                if (pending != null) {
                    request.removeAttribute(PendingExecution.ATTRIBUTE);
                    failed(pending, new IllegalStateException("request ended without a recorded response"));
                }
            }
        };
    }

    private static void record(PendingExecution pending, CapturingResponse response) {
        byte[] body = response.capturedBody();
        if (response.isErrorSent() || body.length > pending.maxBodySize()) {
            failed(pending, new IllegalStateException("response not storable"));
            return;
        }
        List<StoredResponse.Header> headers = new ArrayList<>();
        for (String name : response.getHeaderNames()) {
            if (pending.replayHeaders().contains(name.toLowerCase(Locale.ROOT))) {
                for (String value : response.getHeaders(name)) {
                    headers.add(new StoredResponse.Header(name, value));
                }
            }
        }
        if (response.getContentType() != null && headers.stream().noneMatch(h -> h.name().equalsIgnoreCase("Content-Type"))) {
            headers.add(new StoredResponse.Header("Content-Type", response.getContentType()));
        }
        Outcome.Executed executed = pending.execution().complete(new StoredResponse(response.getStatus(), headers, body));
        if (executed.recording() == Outcome.Recording.RELEASED && pending.onFailure() != null) {
            pending.onFailure().run();
        }
    }

    private static void fail(HttpServletRequest request, Throwable failure) {
        PendingExecution pending = (PendingExecution) request.getAttribute(PendingExecution.ATTRIBUTE);
        if (pending != null) {
            request.removeAttribute(PendingExecution.ATTRIBUTE);
            failed(pending, failure);
        }
    }

    private static void failed(PendingExecution pending, Throwable failure) {
        pending.execution().fail(failure);
        Runnable onFailure = pending.onFailure();
        if (onFailure != null) {
            onFailure.run();
        }
    }

    /** The capturing response installed by this filter, or null when the filter is not in the chain. */
    static @Nullable CapturingResponse capturingResponse(HttpServletRequest request) {
        return (CapturingResponse) request.getAttribute(CapturingResponse.class.getName());
    }
}
