package io.onlyonce.spring.method;

import io.onlyonce.engine.IdempotencyConfig;
import io.onlyonce.engine.ResponsePolicy;
import io.onlyonce.spring.Idempotent;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * What one {@link Idempotent} method needs at run time, resolved once from the annotation and the
 * defaults: engine configuration, parsed key expression, header lists.
 *
 * @param annotation the annotation
 * @param config the engine configuration
 * @param keyExpression the parsed {@link Idempotent#key()}, or null to read the header
 * @param replayHeaders which response headers are stored for replay
 * @param fingerprintHeaders request headers that are part of the fingerprint
 * @param maxBodySize largest response body stored
 */
public record MethodSettings(
        Idempotent annotation,
        IdempotencyConfig config,
        @Nullable Expression keyExpression,
        ReplayHeaders replayHeaders,
        List<String> fingerprintHeaders,
        long maxBodySize) {

    /** Stores every answer except the "try again" statuses 408, 409, 425 and 429. */
    private static final ResponsePolicy STORE_FAILURES_TOO = status -> !Set.of(408, 409, 425, 429).contains(status);

    /**
     * What is wrong with the settings of {@code annotation} on {@code method} of a bean of class
     * {@code beanType}: unparsable or non-positive retention or lease, an unparsable key expression,
     * or one that uses a variable the method does not have or a property or method its declared
     * types do not have (see {@link KeyExpressionCheck}). Empty when nothing is; checked at
     * start-up, so a typo fails the application instead of every request.
     */
    public static List<String> problems(Idempotent annotation, Method method, Class<?> beanType) {
        List<String> problems = new java.util.ArrayList<>();
        checkDuration("retention", annotation.retention(), problems);
        checkDuration("lease", annotation.lease(), problems);
        if (!annotation.key().isBlank()) {
            checkKey(annotation, method, beanType, problems);
        }
        if (annotation.strategy() == Idempotent.Strategy.TOKEN && !annotation.key().isBlank()) {
            problems.add("key is for the KEY strategy; a TOKEN method is keyed by its token");
        }
        return problems;
    }

    private static void checkKey(Idempotent annotation, Method method, Class<?> beanType, List<String> problems) {
        Expression expression;
        try {
            expression = new SpelExpressionParser().parseExpression(annotation.key());
        } catch (org.springframework.expression.ParseException e) {
            problems.add("key '" + annotation.key() + "' is not a SpEL expression: " + e.getSimpleMessage());
            return;
        }
        if (annotation.strategy() == Idempotent.Strategy.KEY && expression instanceof SpelExpression spel) {
            KeyVariables variables = KeyVariables.of(method, beanType, new DefaultParameterNameDiscoverer());
            problems.addAll(KeyExpressionCheck.problems(annotation.key(), spel.getAST(), variables, beanType));
        }
    }

    private static void checkDuration(String name, String value, List<String> problems) {
        if (value.isBlank()) {
            return;
        }
        try {
            Duration duration = DurationStyle.detectAndParse(value);
            if (duration.isNegative() || duration.isZero() || duration.toMillis() < 1) {
                problems.add(name + " '" + value + "' must be at least one millisecond");
            }
        } catch (IllegalArgumentException e) {
            problems.add(name + " '" + value + "' is not a duration such as 30s, 24h or PT24H");
        }
    }

    /** Resolves and caches the settings of each method. Thread-safe. */
    public static final class Factory {

        private final IdempotencyConfig defaults;
        private final Duration tokenResultRetention;
        private final ReplayHeaders replayHeaders;
        private final long maxBodySize;
        private final SpelExpressionParser parser = new SpelExpressionParser();
        private final ConcurrentMap<Method, MethodSettings> cache = new ConcurrentHashMap<>();

        /**
         * @param defaults configuration of methods that override nothing
         * @param tokenResultRetention how long a token request's answer is kept to answer duplicates
         * @param replayExcludedHeaders response headers never stored for replay, besides
         *     {@link ReplayHeaders#NEVER_REPLAYED}
         * @param maxBodySize largest response body stored
         */
        public Factory(IdempotencyConfig defaults, Duration tokenResultRetention, List<String> replayExcludedHeaders,
                long maxBodySize) {
            this.defaults = defaults;
            this.tokenResultRetention = tokenResultRetention;
            this.replayHeaders = ReplayHeaders.excluding(replayExcludedHeaders);
            this.maxBodySize = maxBodySize;
        }

        /** The settings of {@code method}, which must carry {@link Idempotent}. */
        public MethodSettings forMethod(Method method) {
            return cache.computeIfAbsent(method, this::resolve);
        }

        private MethodSettings resolve(Method method) {
            Idempotent annotation = AnnotatedElementUtils.findMergedAnnotation(method, Idempotent.class);
            if (annotation == null) {
                throw new IllegalStateException("not an @Idempotent method: " + method);
            }
            return forAnnotation(annotation);
        }

        /**
         * The settings of {@code annotation}, wherever it comes from (a functional route's filter).
         *
         * @throws IllegalArgumentException when a retention or lease cannot be parsed
         */
        public MethodSettings forAnnotation(Idempotent annotation) {
            IdempotencyConfig.Builder config = defaults.toBuilder();
            if (!annotation.retention().isBlank()) {
                config.retention(DurationStyle.detectAndParse(annotation.retention()));
            }
            if (!annotation.lease().isBlank()) {
                config.lease(DurationStyle.detectAndParse(annotation.lease()));
            }
            if (annotation.strategy() == Idempotent.Strategy.TOKEN) {
                config.retention(tokenResultRetention);
            }
            if (annotation.onFailure() == Idempotent.FailureMode.KEEP) {
                config.releaseOnException(false).responsePolicy(STORE_FAILURES_TOO);
            }
            Expression key = annotation.key().isBlank() ? null : parser.parseExpression(annotation.key());
            return new MethodSettings(annotation, config.build(), key, replayHeaders,
                    List.of(annotation.fingerprintHeaders()), maxBodySize);
        }
    }
}
