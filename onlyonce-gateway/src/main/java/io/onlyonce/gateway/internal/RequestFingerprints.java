package io.onlyonce.gateway.internal;

import io.onlyonce.Fingerprint;
import io.onlyonce.json.Json;
import io.onlyonce.json.NotJsonException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.util.MultiValueMap;
import org.springframework.web.util.UriComponentsBuilder;

/**
 * What a request is, for the window: the parts a rule ({@code io.onlyonce.gateway.DedupRule}) names, each length-prefixed into
 * a SHA-256 {@link Fingerprint} that starts with the route id. Path variables the rule declares
 * numeric are written in their canonical form ({@code 01} as {@code 1}) wherever they appear.
 */
public final class RequestFingerprints {

    /**
     * What of a request the rule fingerprints.
     *
     * @param fields the parts, in order; empty for method, path, query, body and principal
     * @param ignoredParameters query parameters left out, lower case
     * @param numericVariables path variables whose leading zeros do not make another request
     */
    public record Recipe(List<String> fields, List<String> ignoredParameters, List<String> numericVariables) {
    }

    private final ServerHttpRequest request;
    private final Recipe rule;
    private final Map<String, String> rawVariables;
    private final Map<String, String> variables;
    private final @Nullable RequestBody body;
    private final String caller;
    private @Nullable Object json;
    private boolean parsed;

    /**
     * @param variables the route's path variables (Spring Cloud Gateway's URI template variables)
     * @param body the body, when the rule needs it
     * @param caller {@code p:} and the verified principal, or {@code ip:} and the client address
     */
    public RequestFingerprints(ServerHttpRequest request, Recipe rule, Map<String, String> variables,
            @Nullable RequestBody body, String caller) {
        this.request = request;
        this.rule = rule;
        this.rawVariables = Map.copyOf(variables);
        this.variables = normalised(variables, rule.numericVariables());
        this.body = body;
        this.caller = caller;
    }

    /** The fingerprint of the request on {@code routeId}. */
    public Fingerprint fingerprint(String routeId) {
        Fingerprint.Builder builder = Fingerprint.builder().add(routeId);
        List<String> fields = rule.fields().isEmpty() ? List.of("method", "path", "query", "body", "principal")
                : rule.fields();
        for (String field : fields) {
            builder.add(field).add(value(field));
        }
        return builder.build();
    }

    /** The text of one part, or of a business id source; empty when absent. */
    public String value(String field) {
        return switch (field) {
            case "method" -> request.getMethod().name();
            case "path" -> path();
            case "query" -> sortedQuery();
            case "body" -> body == null ? "" : HexFormat.of().formatHex(body.sha256());
            case "principal" -> caller;
            case "ip" -> request.getRemoteAddress() == null ? ""
                    : request.getRemoteAddress().getAddress().getHostAddress();
            default -> named(field);
        };
    }

    /** Whether {@code field} names something the request carries. */
    public boolean present(String field) {
        if (field.startsWith("header:")) {
            return request.getHeaders().getFirst(field.substring(7)) != null; // containsHeader is Spring Framework 7's only
        }
        if (field.startsWith("query:")) {
            return query().containsKey(field.substring(6));
        }
        if (field.startsWith("body:")) {
            return jsonField(field.substring(5)) != null;
        }
        return true;
    }

    private String named(String field) {
        int colon = field.indexOf(':');
        String kind = field.substring(0, colon);
        String name = field.substring(colon + 1);
        return switch (kind) {
            case "query" -> String.join(",", query().getOrDefault(name, List.of()));
            case "header" -> String.join(",", headerValues(name));
            case "var" -> variables.getOrDefault(name, "");
            case "body" -> {
                Object node = jsonField(name);
                yield node == null ? "" : node instanceof String text ? text
                        : new String(Json.onClassPath().write(node), java.nio.charset.StandardCharsets.UTF_8);
            }
            default -> throw new IllegalStateException("unknown de-dup field " + field);
        };
    }

    /** The path with each numeric variable's segment in canonical form. */
    private String path() {
        String raw = request.getPath().value();
        if (rule.numericVariables().isEmpty()) {
            return raw;
        }
        Map<String, String> canonical = new HashMap<>();
        rule.numericVariables().forEach(name -> {
            String original = rawVariables.get(name);
            if (original != null) {
                canonical.put(original, variables.get(name));
            }
        });
        String[] segments = raw.split("/", -1);
        for (int i = 0; i < segments.length; i++) {
            segments[i] = canonical.getOrDefault(segments[i], segments[i]);
        }
        return String.join("/", segments);
    }

    private String sortedQuery() {
        List<String> pairs = new ArrayList<>();
        query().forEach((name, values) -> {
            if (!rule.ignoredParameters().contains(name.toLowerCase(Locale.ROOT))) {
                values.forEach(value -> pairs.add(name + "=" + value));
            }
        });
        Collections.sort(pairs);
        return String.join("&", pairs);
    }

    /** The query parameters as sent (still percent-encoded). */
    private MultiValueMap<String, String> query() {
        String raw = request.getURI().getRawQuery();
        return UriComponentsBuilder.newInstance().query(raw).build().getQueryParams();
    }

    /**
     * Every value of the header {@code name}, in order. Through {@code forEach}, which Spring
     * Framework 6.2 and 7 both have with one signature: {@code getOrEmpty} and {@code get} take an
     * {@code Object} on 6.2 and a {@code String} on 7.
     */
    public List<String> headerValues(String name) {
        List<String> values = new java.util.ArrayList<>();
        request.getHeaders().forEach((header, list) -> {
            if (header.equalsIgnoreCase(name)) {
                values.addAll(list);
            }
        });
        return values;
    }

    private @Nullable Object jsonField(String dotted) {
        if (!parsed) {
            json = parse(body == null ? new byte[0] : body.bytes());
            parsed = true;
        }
        return Json.member(json, dotted);
    }

    private static @Nullable Object parse(byte[] bytes) {
        try {
            return bytes.length == 0 ? null : Json.onClassPath().read(bytes);
        } catch (NotJsonException e) {
            return null;
        }
    }

    private static Map<String, String> normalised(Map<String, String> raw, List<String> numeric) {
        Map<String, String> out = new HashMap<>(raw);
        for (String name : numeric) {
            String value = raw.get(name);
            if (value != null && !value.isEmpty() && value.chars().allMatch(Character::isDigit) && value.length() < 400) {
                out.put(name, new BigInteger(value).toString());
            }
        }
        return out;
    }
}
