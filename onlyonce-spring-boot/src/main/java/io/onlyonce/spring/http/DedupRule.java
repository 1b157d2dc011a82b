package io.onlyonce.spring.http;

import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * One de-dup rule ({@code onlyonce.dedup.rules[n]}).
 *
 * @param pattern Path pattern of the protected route, such as {@code /api/orders/**}.
 * @param methods HTTP methods the rule applies to.
 * @param window How long a repeat of the same fingerprint is refused with 429.
 * @param fields What identifies "the same request": empty for method, path, sorted query, body
 *     and principal (or client IP); otherwise a list of {@code principal}, {@code ip},
 *     {@code path}, {@code query:<name>}, {@code header:<name>} and {@code body:<json field>}.
 * @param ignoredParameters Query parameters that change on every call and are left out of the
 *     fingerprint.
 */
public record DedupRule(
        String pattern,
        @DefaultValue({"POST", "PUT", "PATCH", "DELETE"}) List<String> methods,
        @DefaultValue("3s") Duration window,
        @DefaultValue({}) List<String> fields,
        @DefaultValue({"timestamp", "nonce", "_", "t", "ts"}) List<String> ignoredParameters) {
}
