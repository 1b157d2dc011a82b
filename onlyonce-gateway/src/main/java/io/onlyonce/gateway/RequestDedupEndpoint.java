package io.onlyonce.gateway;

import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.convert.DurationStyle;

/**
 * {@code /actuator/requestdedup}: the rule in force on every route with a {@code RequestDedup}
 * filter; {@code POST /actuator/requestdedup/{routeId}} with any of {@code window} ("2s", "500ms"),
 * {@code fields}, {@code ignoredParameters}, {@code numericVariables} (comma-separated) and
 * {@code enabled} changes it for the next request, without a restart; {@code DELETE} returns to the
 * configured rule. Changes live in this gateway instance's memory: every instance needs them (or
 * change the route configuration and refresh the routes, which every instance reads).
 */
@Endpoint(id = "requestdedup")
public class RequestDedupEndpoint {

    private final RequestDedupRules rules;

    public RequestDedupEndpoint(RequestDedupRules rules) {
        this.rules = rules;
    }

    @ReadOperation
    public Map<String, Map<String, Object>> rules() {
        Map<String, Map<String, Object>> all = new LinkedHashMap<>();
        rules.all().forEach((route, rule) -> all.put(route, describe(rule)));
        return all;
    }

    @ReadOperation
    public @Nullable Map<String, Object> rule(@Selector String routeId) {
        return rules.effective(routeId).map(RequestDedupEndpoint::describe).orElse(null);
    }

    // each optional parameter carries Spring's own @Nullable too: Spring Boot 3's actuator reads only that one
    @WriteOperation
    @SuppressWarnings("deprecation")
    public @Nullable Map<String, Object> change(@Selector String routeId,
            @org.springframework.lang.Nullable @Nullable String window,
            @org.springframework.lang.Nullable @Nullable String fields,
            @org.springframework.lang.Nullable @Nullable String ignoredParameters,
            @org.springframework.lang.Nullable @Nullable String numericVariables,
            @org.springframework.lang.Nullable @Nullable Boolean enabled) {
        DedupRule current = rules.effective(routeId).orElse(null);
        if (current == null) {
            return null;
        }
        DedupRule changed;
        try {
            Duration newWindow = window == null ? current.window() : DurationStyle.detectAndParse(window);
            changed = new DedupRule(enabled == null ? current.enabled() : enabled, current.methods(), newWindow,
                fields == null ? current.fields() : list(fields),
                ignoredParameters == null ? current.ignoredParameters() : list(ignoredParameters),
                numericVariables == null ? current.numericVariables() : list(numericVariables),
                    current.businessIdSource(), current.businessIdPattern());
        } catch (IllegalArgumentException e) {
            throw new InvalidEndpointRequestException(e.getMessage(), "invalid rule");
        }
        rules.override(routeId, changed);
        return describe(changed);
    }

    @DeleteOperation
    public @Nullable Map<String, Object> reset(@Selector String routeId) {
        rules.reset(routeId);
        return rule(routeId);
    }

    private static List<String> list(String commaSeparated) {
        return Arrays.stream(commaSeparated.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList();
    }

    private static Map<String, Object> describe(DedupRule rule) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("enabled", rule.enabled());
        out.put("methods", rule.methods().stream().sorted().toList());
        out.put("window", rule.window().toString());
        out.put("fields", rule.fields());
        out.put("ignoredParameters", rule.ignoredParameters());
        out.put("numericVariables", rule.numericVariables());
        if (rule.businessIdSource() != null && rule.businessIdPattern() != null) {
            out.put("businessIdSource", rule.businessIdSource());
            out.put("businessIdPattern", rule.businessIdPattern().pattern());
        }
        return out;
    }
}
