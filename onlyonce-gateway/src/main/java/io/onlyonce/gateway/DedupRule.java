package io.onlyonce.gateway;

import io.onlyonce.http.WindowFingerprint;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The de-dup rule of one route.
 *
 * @param enabled whether the route is de-duplicated at all
 * @param methods the upper-case methods the rule applies to; other methods pass untouched
 * @param window how long a fingerprint stays taken after its first request
 * @param fields what makes two requests the same. Empty: the method, the path, the sorted query
 *     without {@code ignoredParameters}, the whole body hashed and the caller (the verified
 *     principal, or the client address when anonymous). Otherwise exactly the named parts:
 *     {@code method}, {@code path}, {@code query}, {@code body} (hashed), {@code principal}
 *     (principal or client address), {@code ip}, {@code query:NAME}, {@code header:NAME},
 *     {@code var:NAME} (a path variable of the route's {@code Path} predicate) and
 *     {@code body:FIELD} (a form field, or a JSON field dotted for nested objects). The recipe is
 *     the one of every platform, {@link WindowFingerprint}: the servlet filter of a service without
 *     a gateway computes the same fingerprint for the same request and fields
 * @param ignoredParameters query parameters that differ on every call (timestamps, nonces) and do
 *     not count, compared case-insensitively
 * @param numericVariables path variables that are numbers: {@code 01} and {@code 1} are the same
 * @param businessIdSource where an optional business id is checked at the edge
 *     ({@code header:NAME}, {@code query:NAME} or {@code body:FIELD}); null for no check
 * @param businessIdPattern the business id's format (the whole value must match); required with
 *     {@code businessIdSource}
 */
public record DedupRule(boolean enabled, Set<String> methods, Duration window, List<String> fields,
        List<String> ignoredParameters, List<String> numericVariables, @Nullable String businessIdSource,
        @Nullable Pattern businessIdPattern) {

    /** The methods de-duplicated unless a rule names others: the ones that change something. */
    public static final List<String> DEFAULT_METHODS = List.of("POST", "PUT", "PATCH", "DELETE");
    /** Parameters that differ on every call, left out of the fingerprint unless a rule names others. */
    public static final List<String> DEFAULT_IGNORED_PARAMETERS = List.of("timestamp", "nonce", "_", "t", "ts");
    /** The window unless a rule names another. */
    public static final Duration DEFAULT_WINDOW = Duration.ofSeconds(1);

    public DedupRule {
        if (window == null || window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("a de-dup window must be positive");
        }
        if (methods == null || methods.isEmpty()) {
            throw new IllegalArgumentException("a de-dup rule needs at least one method");
        }
        methods = methods.stream().map(m -> m.toUpperCase(Locale.ROOT)).collect(Collectors.toUnmodifiableSet());
        fields = List.copyOf(fields);
        fields.forEach(WindowFingerprint::checkField);
        ignoredParameters = ignoredParameters.stream().map(p -> p.toLowerCase(Locale.ROOT)).toList();
        numericVariables = List.copyOf(numericVariables);
        if ((businessIdSource == null) != (businessIdPattern == null)) {
            throw new IllegalArgumentException("a business id check needs both a source and a pattern");
        }
        if (businessIdSource != null && !(businessIdSource.startsWith("header:") || businessIdSource.startsWith("query:")
                || businessIdSource.startsWith("body:"))) {
            throw new IllegalArgumentException("a business id source is header:NAME, query:NAME or body:FIELD, not "
                    + businessIdSource);
        }
    }

    /** The defaults: POST, PUT, PATCH and DELETE, a 1 s window, the full fingerprint. */
    public static DedupRule ofDefaults() {
        return new DedupRule(true, Set.copyOf(DEFAULT_METHODS), DEFAULT_WINDOW, List.of(), DEFAULT_IGNORED_PARAMETERS,
                List.of(), null, null);
    }

    /** Compiles a business id format. */
    public static @Nullable Pattern businessIdFormat(@Nullable String regex) {
        if (regex == null || regex.isBlank()) {
            return null;
        }
        try {
            return Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException("business id pattern does not compile: " + e.getMessage(), e);
        }
    }

    /** This rule with another window. */
    public DedupRule withWindow(Duration newWindow) {
        return new DedupRule(enabled, methods, newWindow, fields, ignoredParameters, numericVariables, businessIdSource,
                businessIdPattern);
    }

    /** Whether deciding needs the request body. */
    public boolean needsBody() {
        return fields.isEmpty() || fields.stream().anyMatch(f -> f.equals("body") || f.startsWith("body:"))
                || (businessIdSource != null && businessIdSource.startsWith("body:"));
    }

    /** Whether deciding needs the JSON form of the body. */
    public boolean needsJson() {
        return fields.stream().anyMatch(f -> f.startsWith("body:"))
                || (businessIdSource != null && businessIdSource.startsWith("body:"));
    }
}
