package io.onlyonce.spring.autoconfigure;

import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.onlyonce.spring.http.DedupRules;
import io.onlyonce.spring.metrics.OnlyOnceStatistics;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.convert.DurationStyle;

/**
 * {@code /actuator/onlyonce}: the configuration in force (never the secrets), the circuit
 * breakers' states, and how many requests each layer decided, per outcome and per endpoint. A
 * write operation changes a de-dup window at run time.
 */
@Endpoint(id = "onlyonce")
public class OnlyOnceEndpoint {

    private final OnlyOnceProperties properties;
    private final OnlyOnceStatistics statistics;
    private final CircuitBreakerRegistry breakers;
    private final @Nullable DedupRules dedupRules;

    public OnlyOnceEndpoint(OnlyOnceProperties properties, OnlyOnceStatistics statistics,
            CircuitBreakerRegistry breakers, @Nullable DedupRules dedupRules) {
        this.properties = properties;
        this.statistics = statistics;
        this.breakers = breakers;
        this.dedupRules = dedupRules;
    }

    @ReadOperation
    public Map<String, Object> report() {
        Map<String, Object> configuration = new LinkedHashMap<>();
        configuration.put("store", properties.store().name().toLowerCase(java.util.Locale.ROOT));
        configuration.put("principalRequired", properties.principalRequired());
        configuration.put("key", Map.of(
                "header", properties.key().header(),
                "retention", properties.key().retention().toString(),
                "lease", properties.key().lease().toString(),
                "storeFailurePolicy", properties.key().storeFailurePolicy().name()));
        configuration.put("token", token());
        configuration.put("messaging", Map.of(
                "enabled", properties.messaging().enabled(),
                "transport", properties.messaging().transport().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-')));
        configuration.put("dedupRules", dedupRules == null ? java.util.List.of() : dedupRules.rules());
        Map<String, String> circuits = new TreeMap<>();
        breakers.getAllCircuitBreakers().forEach(b -> circuits.put(b.getName(), b.getState().name()));
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("configuration", configuration);
        report.put("circuitBreakers", circuits);
        report.put("byLayer", statistics.byLayer());
        report.put("byEndpoint", statistics.byEndpoint());
        return report;
    }

    /**
     * The token strategy: the token endpoint's path only where the endpoint is served
     * ({@code onlyonce.token.enabled} and {@code onlyonce.token.endpoint-enabled}, and secrets set for a
     * shared store); an application that
     * issues tokens itself is told {@code "endpointEnabled": false}, never a path that answers 404.
     */
    private Map<String, Object> token() {
        OnlyOnceProperties.Token token = properties.token();
        boolean served = token.enabled() && token.endpointEnabled() && !TokenSigning.unsigned(properties);
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("enabled", token.enabled());
        report.put("header", token.header());
        report.put("endpointEnabled", served);
        if (served) {
            report.put("path", token.path());
        }
        report.put("ttl", token.ttl().toString());
        report.put("configuredSecrets", token.secrets().size());
        return report;
    }

    /** Changes the window of the de-dup rule with {@code pattern}, for example {@code 5s}. */
    @WriteOperation
    public Map<String, Object> dedupWindow(String pattern, String window) {
        Duration duration;
        try {
            duration = DurationStyle.detectAndParse(window);
        } catch (IllegalArgumentException e) {
            throw new InvalidEndpointRequestException("window '" + window + "' is not a duration such as 5s or PT5S",
                    "invalid window");
        }
        if (duration.isNegative() || duration.isZero()) {
            throw new InvalidEndpointRequestException("window must be positive", "invalid window");
        }
        boolean changed = dedupRules != null && dedupRules.changeWindow(pattern, duration);
        return Map.of("pattern", pattern, "window", duration.toString(), "changed", changed);
    }
}
