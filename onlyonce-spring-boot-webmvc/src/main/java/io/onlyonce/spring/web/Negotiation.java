package io.onlyonce.spring.web;

import io.onlyonce.StoredResponse;
import io.onlyonce.spring.http.IdempotentRequests;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Collections;

/**
 * Whether a stored response may answer this request's {@code Accept} header: a replay answers only
 * what a fresh request would have been allowed to answer, otherwise the client gets 406 as it would
 * from the handler.
 */
final class Negotiation {

    private Negotiation() {
    }

    static boolean acceptable(HttpServletRequest request, StoredResponse response) {
        return IdempotentRequests.acceptable(Collections.list(request.getHeaders("Accept")), response);
    }
}
