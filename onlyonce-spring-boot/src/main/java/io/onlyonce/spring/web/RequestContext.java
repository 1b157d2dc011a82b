package io.onlyonce.spring.web;

import io.onlyonce.Fingerprint;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Locale;
import org.springframework.http.MediaType;
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
     * SHA-256 over method, path and query as sent, the body (canonical when JSON) and the chosen
     * headers. The body is what the handler read, plus whatever it left unread.
     */
    static Fingerprint fingerprint(HttpServletRequest request, List<String> headers) {
        Fingerprint.Builder builder = Fingerprint.builder()
                .add(request.getMethod())
                .add(request.getRequestURI())
                .add(request.getQueryString() == null ? "" : request.getQueryString());
        byte[] body = body(request);
        String contentType = request.getContentType();
        if (contentType != null && isJson(contentType)) {
            builder.addJson(body);
        } else {
            builder.add(body);
        }
        for (String header : headers) {
            builder.add(header.toLowerCase(Locale.ROOT));
            List<String> values = java.util.Collections.list(request.getHeaders(header));
            builder.add(String.join("\n", values));
        }
        return builder.build();
    }

    private static boolean isJson(String contentType) {
        try {
            MediaType type = MediaType.parseMediaType(contentType);
            return type.isCompatibleWith(MediaType.APPLICATION_JSON) || type.getSubtype().endsWith("+json");
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static byte[] body(HttpServletRequest request) {
        FingerprintedRequest cached = WebUtils.getNativeRequest(request, FingerprintedRequest.class);
        if (cached == null) {
            return new byte[0];
        }
        try {
            InputStream rest = cached.getInputStream();
            rest.transferTo(java.io.OutputStream.nullOutputStream());
        } catch (IOException | IllegalStateException e) {
            if (e instanceof IOException io) {
                throw new UncheckedIOException(io);
            }
            // the body was read through getReader(): the cache already holds it
        }
        if (cached.overflowed()) {
            throw OnlyOnceRejection.problem(ProblemType.REQUEST_TOO_LARGE);
        }
        return cached.getContentAsByteArray();
    }
}
