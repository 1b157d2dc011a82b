package io.onlyonce.spring.http;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.web.bind.annotation.RequestMapping;

/**
 * Token scopes with path-variable placeholders: {@code @Idempotent(strategy = TOKEN, scope =
 * "seckill:{activityId}")} binds each token to the value of the handler's {@code activityId} path
 * variable, so a token fetched for one flash sale is refused (403) by another.
 */
public final class TokenScopes {

    private static final Pattern PLACEHOLDER = Pattern.compile("\\{([A-Za-z0-9_]+)}");
    private static final Pattern PATH_VARIABLE = Pattern.compile("\\{\\*?([A-Za-z0-9_]+)(?::[^}]*)?}");

    private TokenScopes() {
    }

    /** The scope of this request: {@code scope} with each {@code {name}} replaced by that path variable. */
    /** {@code scope} with each {@code {name}} replaced by that one of {@code variables}. */
    public static String resolve(String scope, Map<?, ?> variables) {
        if (scope.indexOf('{') < 0) {
            return scope;
        }
        Matcher matcher = PLACEHOLDER.matcher(scope);
        StringBuilder resolved = new StringBuilder();
        while (matcher.find()) {
            Object value = variables.get(matcher.group(1));
            if (value == null) {
                throw new IllegalStateException("no path variable '" + matcher.group(1) + "' for token scope " + scope);
            }
            matcher.appendReplacement(resolved, Matcher.quoteReplacement(escape(value.toString())));
        }
        matcher.appendTail(resolved);
        return resolved.toString();
    }

    /** A path value with {@code %}, {@code :} and braces escaped, so two value splits never give one scope. */
    private static String escape(String value) {
        return value.replace("%", "%25").replace(":", "%3A").replace("{", "%7B").replace("}", "%7D");
    }

    /** Placeholders of {@code scope} that are not path variables of every mapping of {@code method}. */
    public static List<String> unknownPlaceholders(String scope, Class<?> type, Method method) {
        Set<String> placeholders = new LinkedHashSet<>();
        Matcher matcher = PLACEHOLDER.matcher(scope);
        while (matcher.find()) {
            placeholders.add(matcher.group(1));
        }
        if (placeholders.isEmpty()) {
            return List.of();
        }
        List<String> unknown = new ArrayList<>();
        List<String> paths = paths(type, method);
        for (String placeholder : placeholders) {
            boolean everywhere = !paths.isEmpty() && paths.stream().allMatch(path -> variables(path).contains(placeholder));
            if (!everywhere) {
                unknown.add(placeholder);
            }
        }
        return unknown;
    }

    private static List<String> paths(Class<?> type, Method method) {
        RequestMapping onType = AnnotatedElementUtils.findMergedAnnotation(type, RequestMapping.class);
        RequestMapping onMethod = AnnotatedElementUtils.findMergedAnnotation(method, RequestMapping.class);
        List<String> prefixes = onType == null || onType.path().length == 0 ? List.of("") : List.of(onType.path());
        List<String> suffixes = onMethod == null || onMethod.path().length == 0 ? List.of("") : List.of(onMethod.path());
        List<String> paths = new ArrayList<>();
        for (String prefix : prefixes) {
            for (String suffix : suffixes) {
                paths.add(prefix + suffix);
            }
        }
        return paths;
    }

    private static Set<String> variables(String path) {
        Set<String> names = new LinkedHashSet<>();
        Matcher matcher = PATH_VARIABLE.matcher(path);
        while (matcher.find()) {
            names.add(matcher.group(1));
        }
        return names;
    }
}
