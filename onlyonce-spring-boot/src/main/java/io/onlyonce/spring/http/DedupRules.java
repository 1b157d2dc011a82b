package io.onlyonce.spring.http;

import io.onlyonce.http.WindowFingerprint;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.springframework.http.server.PathContainer;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;

/**
 * The live de-dup rules. Windows can be changed while the service runs (the Actuator endpoint
 * does it), without a restart. Thread-safe.
 */
public final class DedupRules {

    /**
     * A rule ready to match.
     *
     * @param rule the configured rule
     * @param pattern the parsed path pattern
     * @param methods upper-case methods
     * @param recipe what of a request the window fingerprints
     */
    public record Compiled(DedupRule rule, PathPattern pattern, Set<String> methods, WindowFingerprint.Recipe recipe) {
    }

    private final AtomicReference<List<Compiled>> rules = new AtomicReference<>(List.of());

    public DedupRules(List<DedupRule> initial) {
        replace(initial);
    }

    /**
     * Replaces every rule at once.
     *
     * @throws IllegalArgumentException when a rule has no pattern, no positive window or an unknown field
     */
    public void replace(List<DedupRule> newRules) {
        List<Compiled> compiled = new ArrayList<>();
        for (DedupRule rule : newRules) {
            if (rule.pattern() == null || rule.pattern().isBlank()) {
                throw new IllegalArgumentException("a de-dup rule needs a pattern");
            }
            if (rule.window().isNegative() || rule.window().isZero()) {
                throw new IllegalArgumentException("a de-dup window must be positive");
            }
            compiled.add(new Compiled(rule, PathPatternParser.defaultInstance.parse(rule.pattern()),
                    rule.methods().stream().map(m -> m.toUpperCase(Locale.ROOT)).collect(Collectors.toUnmodifiableSet()),
                    new WindowFingerprint.Recipe(rule.fields(), rule.ignoredParameters(), rule.numericVariables())));
        }
        rules.set(List.copyOf(compiled));
    }

    /** Changes the window of the rule with {@code pattern}; false when there is no such rule. */
    public boolean changeWindow(String pattern, Duration window) {
        List<DedupRule> current = rules.get().stream().map(Compiled::rule).toList();
        if (current.stream().noneMatch(r -> r.pattern().equals(pattern))) {
            return false;
        }
        replace(current.stream()
                .map(r -> r.pattern().equals(pattern)
                        ? r.withWindow(window)
                        : r)
                .toList());
        return true;
    }

    /** The configured rules, for display. */
    public List<DedupRule> rules() {
        return rules.get().stream().map(Compiled::rule).toList();
    }

    /** The first rule matching {@code method} and {@code path} (the path within the application). */
    public Optional<Compiled> match(String method, PathContainer path) {
        String upper = method.toUpperCase(Locale.ROOT);
        return rules.get().stream()
                .filter(r -> r.methods().contains(upper) && r.pattern().matches(path))
                .findFirst();
    }
}
