package io.onlyonce.spring.web;

import jakarta.servlet.http.HttpServletRequest;
import org.springframework.web.util.ContentCachingRequestWrapper;

/**
 * Keeps the body a handler reads, up to a limit, for the request fingerprint, and remembers when
 * the body went past the limit: such a request cannot be told apart from another with the same
 * first bytes, so a protected endpoint refuses it (413) instead of fingerprinting a prefix.
 */
final class FingerprintedRequest extends ContentCachingRequestWrapper {

    private boolean overflowed;

    FingerprintedRequest(HttpServletRequest request, int limit) {
        super(request, limit);
    }

    /** Whether the body was longer than the limit, so the cached bytes are only a prefix. */
    boolean overflowed() {
        return overflowed;
    }

    @Override
    protected void handleContentOverflow(int contentCacheLimit) {
        overflowed = true;
    }
}
