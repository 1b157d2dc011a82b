package io.onlyonce.http;

import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A request as the de-dup window ({@link WindowFingerprint}) sees it, whatever the platform that
 * received it: each platform (the servlet filter, the gateway filter) adapts its own request to this
 * view, and the window's fingerprint is computed from it by one rule. Only the parts a rule names
 * are asked for, so a body is read only when the rule needs it.
 */
public interface WindowRequest {

    /** The HTTP method, as sent ({@code POST}). */
    String method();

    /** The path as sent, not decoded, with the context path if any ({@code /api/orders/01}). */
    String rawPath();

    /** The query string as sent, not decoded, without the {@code ?}; null when there is none. */
    @Nullable String rawQuery();

    /** Every value of the header {@code name} (compared case-insensitively), in order; empty when absent. */
    List<String> headerValues(String name);

    /** The caller: {@code p:} and the verified principal, or {@code ip:} and the client address when anonymous. */
    String caller();

    /** The client address ({@code 203.0.113.7}); empty when unknown. */
    String remoteAddress();

    /** The path variables of the route or rule pattern, as sent; empty when it has none. */
    default Map<String, String> pathVariables() {
        return Map.of();
    }

    /**
     * The decoded fields of a form body ({@code application/x-www-form-urlencoded}) in the order sent,
     * without the query string's parameters ({@link FormFields#parse}); null when the body is no form.
     * A form is fingerprinted by these fields, never by {@link #body()}.
     */
    @Nullable Map<String, List<String>> formFields();

    /**
     * The body of a request that is no form, as the business fingerprint takes it
     * ({@link RequestFingerprint.Body}): a JSON document of up to
     * {@link RequestFingerprint#CANONICAL_JSON_LIMIT} bytes as {@code Json}, a multipart body by its
     * parts where the platform has them, anything else (a larger JSON document too) by the SHA-256 of
     * its bytes. Read when first asked for.
     */
    RequestFingerprint.Body body();

    /**
     * The whole body when it is at most {@link RequestFingerprint#CANONICAL_JSON_LIMIT} bytes, to read
     * JSON fields from; null when larger or when there is none.
     */
    byte @Nullable [] smallBody();
}
