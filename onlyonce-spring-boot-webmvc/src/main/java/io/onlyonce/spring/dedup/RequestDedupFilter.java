package io.onlyonce.spring.dedup;

import io.onlyonce.spring.http.DedupRules;
import io.onlyonce.Fingerprint;
import io.onlyonce.http.RequestFingerprint;
import io.onlyonce.http.WindowFingerprint;
import io.onlyonce.http.WindowRequest;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.json.Json;
import io.onlyonce.spring.PrincipalResolver;
import io.onlyonce.spring.metrics.OutcomeRecorder;
import io.onlyonce.spring.web.DigestingRequest;
import io.onlyonce.spring.http.OnlyOnceProblems;
import io.onlyonce.spring.http.ProblemType;
import io.onlyonce.window.WindowHit;
import io.onlyonce.window.WindowStore;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import io.onlyonce.spring.web.RequestLanguage;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.http.server.PathContainer;
import org.springframework.web.util.ServletRequestPathUtils;
import org.springframework.web.util.pattern.PathPattern;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * The gateway layer for services without a gateway: a request whose fingerprint was already seen
 * within its rule's window is answered 429 with {@code Retry-After} (the time left in the window),
 * before it reaches the business layer. The fingerprint is the one window recipe of core
 * ({@link WindowFingerprint}), the gateway's too, so a rule's fields mean the same request behind a
 * gateway and without one. The whole body is fingerprinted, read once and handed on byte for byte
 * ({@link DigestingRequest}); a multipart body by its parts, a form by its fields.
 * Store faults fail open (the request passes, the layers behind still hold) and are counted; a
 * circuit breaker in front of the store keeps a dead server from being hammered.
 *
 * <p>Only a request that was let through and not refused keeps its place in the window: when the
 * layers behind answer it as invalid input before doing anything (400, 401, 403, 404, 405, 406,
 * 411, 413, 414, 415, 422, 431, or 429 from a limit of their own), its hit is taken back
 * ({@link WindowStore#release}), so the corrected request sent right after it is not a duplicate.
 *
 * <p>Not for operations whose every call legitimately differs, nor a replacement for
 * {@code @Idempotent}: it only absorbs bursts of identical requests.
 */
public final class RequestDedupFilter extends OncePerRequestFilter {

    private static final Logger log = LoggerFactory.getLogger(RequestDedupFilter.class);

    /** Refusals of input made before anything happened: such a request gives its window back. */
    private static final java.util.Set<Integer> REFUSED = java.util.Set.of(400, 401, 403, 404, 405, 406, 411, 413, 414,
            415, 422, 429, 431);

    private final DedupRules rules;
    private final WindowStore windows;
    private final PrincipalResolver principals;
    private final OutcomeRecorder recorder;
    private final OnlyOnceProblems problems;
    private final long maxBodySize;
    private final DeferredWindow.@Nullable Deferral deferral;
    private volatile boolean warnedUntaken;

    /** @param maxBodySize the largest body fingerprinted; a larger one is refused with 413 */
    public RequestDedupFilter(DedupRules rules, WindowStore windows, PrincipalResolver principals,
            OutcomeRecorder recorder, OnlyOnceProblems problems, long maxBodySize) {
        this(rules, windows, principals, recorder, problems, maxBodySize, null);
    }

    /**
     * @param maxBodySize the largest body fingerprinted; a larger one is refused with 413
     * @param deferral the requests whose handler checks the window itself ({@link DeferredWindow}), or null for none
     */
    public RequestDedupFilter(DedupRules rules, WindowStore windows, PrincipalResolver principals,
            OutcomeRecorder recorder, OnlyOnceProblems problems, long maxBodySize,
            DeferredWindow.@Nullable Deferral deferral) {
        this.deferral = deferral;
        this.rules = rules;
        this.windows = windows;
        this.principals = principals;
        this.recorder = recorder;
        this.problems = problems;
        this.maxBodySize = maxBodySize;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        Optional<DedupRules.Compiled> match = rules.match(request.getMethod(), pathWithinApplication(request));
        if (match.isEmpty()) {
            chain.doFilter(request, response);
            return;
        }
        DedupRules.Compiled rule = match.get();
        String endpoint = request.getMethod() + " " + rule.rule().pattern();
        try (DigestingRequest body = new DigestingRequest(request, maxBodySize)) {
            Fingerprint fingerprint;
            try {
                fingerprint = fingerprint(body, rule);
            } catch (DigestingRequest.BodyTooLargeException e) {
                recorder.record(OutcomeRecorder.LAYER_GATEWAY, "too_large", endpoint);
                reject(request, response, ProblemType.REQUEST_TOO_LARGE, null);
                return;
            } catch (UncheckedIOException e) {
                // an unreadable multipart body: the layers behind judge it
                recorder.record(OutcomeRecorder.LAYER_GATEWAY, "unreadable", endpoint);
                chain.doFilter(body, response);
                return;
            }
            if (deferral != null && deferral.defers(request)) {
                deferred(request, response, chain, body, new DeferredWindow(fingerprint, rule.rule().window(), endpoint,
                        recorder), rule);
                return;
            }
            WindowHit hit;
            try {
                hit = windows.hit(fingerprint, rule.rule().window());
            } catch (StoreUnavailableException e) {
                recorder.record(OutcomeRecorder.LAYER_GATEWAY, "store_error", endpoint);
                log.debug("request de-dup skipped for {}: {}", endpoint, e.getMessage());
                hit = null;
            }
            if (hit == null) {
                chain.doFilter(body, response);
                return;
            }
            if (hit.first()) {
                chain.doFilter(body, response);
                if (!request.isAsyncStarted() && REFUSED.contains(response.getStatus())) {
                    release(fingerprint, endpoint);
                }
                return;
            }
            recorder.record(OutcomeRecorder.LAYER_GATEWAY, "window_duplicate", endpoint);
            reject(request, response, ProblemType.DUPLICATE_REQUEST, hit.retryAfterSeconds());
        }
    }

    /** The handler checks the window (in its own store call); a refused request still gives it back. */
    private void deferred(HttpServletRequest request, HttpServletResponse response, FilterChain chain,
            DigestingRequest body, DeferredWindow window, DedupRules.Compiled rule) throws ServletException, IOException {
        body.setAttribute(DeferredWindow.ATTRIBUTE, window);
        chain.doFilter(body, response);
        if (request.isAsyncStarted()) {
            return;
        }
        if (window.opened() && REFUSED.contains(response.getStatus())) {
            release(window.fingerprint(), window.endpoint());
        } else if (!window.taken() && response.getStatus() < 300 && !warnedUntaken) {
            warnedUntaken = true;
            log.warn("the request window of {} (rule {}) was deferred to its handler, which did not check it: "
                    + "such requests pass without a window", window.endpoint(), rule.rule().pattern());
        }
    }

    private void release(Fingerprint fingerprint, String endpoint) {
        try {
            windows.release(fingerprint);
            recorder.record(OutcomeRecorder.LAYER_GATEWAY, "window_released", endpoint);
        } catch (StoreUnavailableException e) {
            // the window then ends on its own
            recorder.record(OutcomeRecorder.LAYER_GATEWAY, "store_error", endpoint);
            log.debug("request de-dup window of a refused request kept for {}: {}", endpoint, e.getMessage());
        }
    }

    private void reject(HttpServletRequest request, HttpServletResponse response, ProblemType type,
            @Nullable Long retryAfterSeconds) throws IOException {
        ProblemDetail problem = problems.create(type, RequestLanguage.of(request));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", problem.getType().toString());
        body.put("title", problem.getTitle());
        body.put("status", problem.getStatus());
        body.put("detail", problem.getDetail());
        body.put("instance", request.getRequestURI());
        response.setStatus(problem.getStatus());
        if (retryAfterSeconds != null) {
            response.setHeader(HttpHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds));
        }
        response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
        response.getOutputStream().write(Json.onClassPath().write(body));
    }

    /** The window fingerprint of {@code request}: the one recipe of core, in the scope of the rule's pattern. */
    private Fingerprint fingerprint(DigestingRequest request, DedupRules.Compiled rule) {
        return WindowFingerprint.of(rule.rule().pattern(), rule.recipe(), new ServletWindowRequest(request, rule));
    }

    /** A servlet request as the window sees it. */
    private final class ServletWindowRequest implements WindowRequest {

        private final DigestingRequest request;
        private final DedupRules.Compiled rule;

        ServletWindowRequest(DigestingRequest request, DedupRules.Compiled rule) {
            this.request = request;
            this.rule = rule;
        }

        @Override
        public String method() {
            return request.getMethod();
        }

        @Override
        public String rawPath() {
            return request.getRequestURI();
        }

        @Override
        public @Nullable String rawQuery() {
            return request.getQueryString();
        }

        @Override
        public List<String> headerValues(String name) {
            Enumeration<String> values = request.getHeaders(name);
            return values == null ? List.of() : Collections.list(values);
        }

        @Override
        public String caller() {
            String principal = principals.resolve(request);
            return principal != null ? "p:" + principal : "ip:" + remoteAddress();
        }

        @Override
        public String remoteAddress() {
            String address = request.getRemoteAddr();
            return address == null ? "" : address;
        }

        @Override
        public Map<String, String> pathVariables() {
            PathPattern.PathMatchInfo match = rule.pattern().matchAndExtract(pathWithinApplication(request));
            return match == null ? Map.of() : match.getUriVariables();
        }

        @Override
        public @Nullable Map<String, List<String>> formFields() {
            return request.isForm() ? request.formFields() : null;
        }

        @Override
        public RequestFingerprint.Body body() {
            return request.body();
        }

        @Override
        public byte @Nullable [] smallBody() {
            return request.bodyIfSmall();
        }
    }

    private static PathContainer pathWithinApplication(HttpServletRequest request) {
        return ServletRequestPathUtils.hasParsedRequestPath(request)
                ? ServletRequestPathUtils.getParsedRequestPath(request).pathWithinApplication()
                : PathContainer.parsePath(request.getRequestURI().substring(request.getContextPath().length()));
    }
}
