package io.onlyonce.spring.web;

import io.onlyonce.StoredResponse;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;

/**
 * Whether a stored response may answer this request's {@code Accept} header: a replay answers only
 * what a fresh request would have been allowed to answer, otherwise the client gets 406 as it would
 * from the handler.
 */
final class Negotiation {

    private Negotiation() {
    }

    static boolean acceptable(HttpServletRequest request, StoredResponse response) {
        return acceptable(Collections.list(request.getHeaders("Accept")), response);
    }

    static boolean acceptable(List<String> accept, StoredResponse response) {
        Optional<String> stored = response.header("Content-Type");
        if (stored.isEmpty() || accept.isEmpty()) {
            return true;
        }
        MediaType type;
        List<MediaType> acceptable;
        try {
            type = MediaType.parseMediaType(stored.get());
            acceptable = MediaType.parseMediaTypes(accept);
        } catch (InvalidMediaTypeException e) {
            return true;
        }
        MediaType bare = new MediaType(type.getType(), type.getSubtype());
        return acceptable.isEmpty() || acceptable.stream().anyMatch(a -> a.includes(bare));
    }
}
