package io.onlyonce.spring.http;

import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.bind.ConstructorBinding;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * One de-dup rule ({@code onlyonce.dedup.rules[n]}).
 *
 * @param pattern Path pattern of the protected route, such as {@code /api/orders/**}.
 * @param methods HTTP methods the rule applies to.
 * @param window How long a repeat of the same fingerprint is refused with 429.
 * @param fields What identifies "the same request": empty for method, path, sorted query, body
 *     and principal (or client IP); otherwise exactly the listed parts, of {@code method},
 *     {@code path}, {@code query}, {@code body}, {@code principal}, {@code ip},
 *     {@code query:<name>}, {@code header:<name>}, {@code var:<path variable>} and
 *     {@code body:<form or JSON field>}. The same recipe as the gateway's RequestDedup filter, so
 *     the same fields give the same fingerprint behind a gateway and without one.
 * @param ignoredParameters Query parameters and form fields that change on every call and are left
 *     out of the fingerprint.
 * @param numericVariables Path variables of the pattern that are numbers, so that 01 and 1 are the
 *     same request.
 */
public record DedupRule(
        String pattern,
        @DefaultValue({"POST", "PUT", "PATCH", "DELETE"}) List<String> methods,
        @DefaultValue("3s") Duration window,
        @DefaultValue({}) List<String> fields,
        @DefaultValue({"timestamp", "nonce", "_", "t", "ts"}) List<String> ignoredParameters,
        @DefaultValue({}) List<String> numericVariables) {

    @ConstructorBinding
    public DedupRule {
    }

    /** A rule without numeric path variables. */
    public DedupRule(String pattern, List<String> methods, Duration window, List<String> fields,
            List<String> ignoredParameters) {
        this(pattern, methods, window, fields, ignoredParameters, List.of());
    }

    /** This rule with another window. */
    public DedupRule withWindow(Duration newWindow) {
        return new DedupRule(pattern, methods, newWindow, fields, ignoredParameters, numericVariables);
    }
}
