package io.onlyonce.spring.web;

import io.onlyonce.spring.http.OnlyOnceRejection;
import io.onlyonce.spring.http.ProblemType;
import io.onlyonce.Fingerprint;
import jakarta.servlet.http.HttpServletRequest;
import io.onlyonce.http.RequestFingerprint;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.util.WebUtils;

/** What the protected request looks like to OnlyOnce: its endpoint name and its fingerprint. */
final class RequestContext {

    private RequestContext() {
    }

    /** {@code METHOD route-template}, for example {@code POST /api/orders/{id}/cancel}. */
    static String endpoint(HttpServletRequest request) {
        Object pattern = request.getAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE);
        String route = pattern == null ? request.getRequestURI() : pattern.toString();
        return request.getMethod() + " " + route;
    }

    /**
     * SHA-256 over method, path and query as sent, the whole body (canonical when JSON; see
     * {@link DigestingRequest}) and the chosen headers. A body too large to fingerprint is refused
     * (413) before the method runs.
     */
    static Fingerprint fingerprint(HttpServletRequest request, List<String> headers) {
        DigestingRequest digesting = WebUtils.getNativeRequest(request, DigestingRequest.class);
        RequestFingerprint.Body body;
        try {
            body = digesting == null ? RequestFingerprint.Body.NONE : digesting.body();
        } catch (DigestingRequest.BodyTooLargeException e) {
            throw OnlyOnceRejection.problem(ProblemType.REQUEST_TOO_LARGE);
        }
        List<RequestFingerprint.Header> chosen = new ArrayList<>(headers.size());
        for (String header : headers) {
            chosen.add(new RequestFingerprint.Header(header, Collections.list(request.getHeaders(header))));
        }
        return RequestFingerprint.of(request.getMethod(), request.getRequestURI(), request.getQueryString(), body, chosen);
    }
}
