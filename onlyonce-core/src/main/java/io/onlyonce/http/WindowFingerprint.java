package io.onlyonce.http;

import io.onlyonce.Fingerprint;
import io.onlyonce.json.Json;
import io.onlyonce.json.NotJsonException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The fingerprint of a request for the de-dup window (the gateway layer: the same fingerprint
 * within a rule's window is answered 429), the one rule of every platform: the servlet filter of a
 * service without a gateway and the Spring Cloud Gateway filter compute it alike from a
 * {@link WindowRequest}, so a rule names the same parts and means the same request on both.
 *
 * <p>SHA-256 ({@link Fingerprint}), each part length-prefixed, over the scope (the rule's pattern,
 * or the gateway route's id) and then, for each field of the {@link Recipe} in its order, the
 * field's name and its value:
 *
 * <ul>
 *   <li>{@code method}: the HTTP method;
 *   <li>{@code path}: the path as sent, a segment that is a numeric path variable in its canonical
 *       form ({@code 01} as {@code 1});
 *   <li>{@code query}: the query's {@code name=value} pairs as sent (still percent-encoded; a pair
 *       without {@code =} as {@code name=}), those of the ignored parameters left out, sorted, joined
 *       with {@code &};
 *   <li>{@code body}: the body, hashed: a form by its decoded fields without the ignored parameters,
 *       a JSON document (up to {@link RequestFingerprint#CANONICAL_JSON_LIMIT}) in canonical form, a
 *       multipart body by its parts, each as {@link RequestFingerprint#addBody} takes it, as the hex
 *       SHA-256 of those parts; any other body as the hex SHA-256 of its bytes; empty when there is
 *       none;
 *   <li>{@code principal}: the caller, {@code p:} and the verified principal or {@code ip:} and the
 *       client address; {@code ip}: the client address;
 *   <li>{@code query:NAME}: that parameter's values as sent, joined with {@code ,};
 *       {@code header:NAME}: that header's values, joined with {@code ,}; {@code var:NAME}: that path
 *       variable (canonical when numeric);
 *   <li>{@code body:FIELD}: a form field's values joined with {@code ,}, or the JSON member at the
 *       dotted path: a string as its text, anything else as its compact JSON; empty when absent.
 * </ul>
 *
 * <p>With no fields the recipe is {@code method, path, query, body, principal}. Two platforms thus
 * compute the same fingerprint for the same request and rule, except for a multipart body, which a
 * platform that does not parse it (the gateway) takes by the SHA-256 of its bytes.
 *
 * <p>Compatibility: the gateway's fingerprints are unchanged by this recipe, but for a JSON or form
 * body in the {@code body} field (before: the SHA-256 of the bytes as sent; now canonical, so field
 * order and encoding do not count) and a query parameter without {@code =}. The servlet filter's
 * changed altogether (the field names are now part of it, a named-field rule no longer adds the
 * method, a JSON string field is its text without quotes): during an upgrade, a repeat that reaches
 * an instance of the other version within the window is not recognised as one.
 */
public final class WindowFingerprint {

    /** The fields when a rule names none. */
    public static final List<String> DEFAULT_FIELDS = List.of("method", "path", "query", "body", "principal");

    private static final Set<String> PLAIN_FIELDS = Set.of("method", "path", "query", "body", "principal", "ip");
    private static final Set<String> NAMED_KINDS = Set.of("query", "header", "var", "body");

    /**
     * What of a request a rule fingerprints.
     *
     * @param fields the parts, in order ({@link #checkField}); empty for {@link #DEFAULT_FIELDS}
     * @param ignoredParameters query parameters and form fields left out, compared case-insensitively
     * @param numericVariables path variables that are numbers: {@code 01} and {@code 1} are the same
     */
    public record Recipe(List<String> fields, List<String> ignoredParameters, List<String> numericVariables) {
        public Recipe {
            fields = List.copyOf(fields);
            fields.forEach(WindowFingerprint::checkField);
            ignoredParameters = ignoredParameters.stream().map(p -> p.toLowerCase(Locale.ROOT)).toList();
            numericVariables = List.copyOf(numericVariables);
        }

        /** The fields fingerprinted: those named, or {@link #DEFAULT_FIELDS}. */
        public List<String> effectiveFields() {
            return fields.isEmpty() ? DEFAULT_FIELDS : fields;
        }
    }

    /**
     * Checks a field's name: {@code method}, {@code path}, {@code query}, {@code body},
     * {@code principal}, {@code ip}, or {@code query:NAME}, {@code header:NAME}, {@code var:NAME},
     * {@code body:FIELD}.
     *
     * @throws IllegalArgumentException for any other
     */
    public static void checkField(String field) {
        int colon = field.indexOf(':');
        boolean known = PLAIN_FIELDS.contains(field)
                || (colon > 0 && NAMED_KINDS.contains(field.substring(0, colon)) && field.length() > colon + 1);
        if (!known) {
            throw new IllegalArgumentException("unknown de-dup field " + field);
        }
    }

    private final WindowRequest request;
    private final Recipe recipe;
    private final Map<String, String> variables;
    private @Nullable Map<String, List<String>> query;
    private @Nullable Object json;
    private boolean parsed;

    /** The parts of {@code request} as {@code recipe} takes them; reads nothing yet. Not thread-safe. */
    public WindowFingerprint(Recipe recipe, WindowRequest request) {
        this.recipe = recipe;
        this.request = request;
        this.variables = normalised(request.pathVariables(), recipe.numericVariables());
    }

    /** The window fingerprint of {@code request} under {@code recipe} in {@code scope}. */
    public static Fingerprint of(String scope, Recipe recipe, WindowRequest request) {
        return new WindowFingerprint(recipe, request).fingerprint(scope);
    }

    /** The fingerprint in {@code scope}: the rule's pattern, or the route's id. */
    public Fingerprint fingerprint(String scope) {
        Fingerprint.Builder builder = Fingerprint.builder().add(scope);
        for (String field : recipe.effectiveFields()) {
            builder.add(field).add(value(field));
        }
        return builder.build();
    }

    /** The value of one field as the fingerprint takes it (a business id's too); empty when absent. */
    public String value(String field) {
        switch (field) {
            case "method":
                return request.method();
            case "path":
                return path();
            case "query":
                return sortedQuery();
            case "body":
                return body();
            case "principal":
                return request.caller();
            case "ip":
                return request.remoteAddress();
            default:
                return named(field);
        }
    }

    /** Whether the request carries {@code field} ({@code header:}, {@code query:}, {@code body:}); the others always. */
    public boolean present(String field) {
        if (field.startsWith("header:")) {
            return !request.headerValues(field.substring(7)).isEmpty();
        }
        if (field.startsWith("query:")) {
            return query().containsKey(field.substring(6));
        }
        if (field.startsWith("body:")) {
            Map<String, List<String>> form = request.formFields();
            return form != null ? form.containsKey(field.substring(5)) : jsonMember(field.substring(5)) != null;
        }
        return true;
    }

    private String named(String field) {
        int colon = field.indexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("unknown de-dup field " + field);
        }
        String kind = field.substring(0, colon);
        String name = field.substring(colon + 1);
        switch (kind) {
            case "query":
                return String.join(",", query().getOrDefault(name, List.of()));
            case "header":
                return String.join(",", request.headerValues(name));
            case "var":
                return variables.getOrDefault(name, "");
            case "body":
                Map<String, List<String>> form = request.formFields();
                if (form != null) {
                    return String.join(",", form.getOrDefault(name, List.of()));
                }
                Object member = jsonMember(name);
                return member == null ? "" : member instanceof String text ? text
                        : new String(Json.onClassPath().write(member), StandardCharsets.UTF_8);
            default:
                throw new IllegalArgumentException("unknown de-dup field " + field);
        }
    }

    private String body() {
        Map<String, List<String>> form = request.formFields();
        RequestFingerprint.Body body = form != null ? RequestFingerprint.Body.Form.of(withoutIgnored(form)) : request.body();
        if (body instanceof RequestFingerprint.Body.Opaque opaque) {
            return HexFormat.of().formatHex(opaque.sha256());
        }
        if (body instanceof RequestFingerprint.Body.None) {
            return "";
        }
        return RequestFingerprint.addBody(Fingerprint.builder(), body).build().hex();
    }

    /** The path with each numeric variable's segment in canonical form. */
    private String path() {
        String raw = request.rawPath();
        if (recipe.numericVariables().isEmpty()) {
            return raw;
        }
        Map<String, String> canonical = new HashMap<>();
        Map<String, String> sent = request.pathVariables();
        for (String name : recipe.numericVariables()) {
            String original = sent.get(name);
            if (original != null) {
                canonical.put(original, variables.get(name));
            }
        }
        String[] segments = raw.split("/", -1);
        for (int i = 0; i < segments.length; i++) {
            segments[i] = canonical.getOrDefault(segments[i], segments[i]);
        }
        return String.join("/", segments);
    }

    private String sortedQuery() {
        List<String> pairs = new ArrayList<>();
        withoutIgnored(query()).forEach((name, values) -> values.forEach(value -> pairs.add(name + "=" + value)));
        Collections.sort(pairs);
        return String.join("&", pairs);
    }

    private Map<String, List<String>> withoutIgnored(Map<String, List<String>> parameters) {
        Map<String, List<String>> kept = new LinkedHashMap<>(parameters);
        kept.keySet().removeIf(name -> recipe.ignoredParameters().contains(name.toLowerCase(Locale.ROOT)));
        return kept;
    }

    /** The query's parameters as sent (still percent-encoded), in order; a pair without {@code =} has the value "". */
    private Map<String, List<String>> query() {
        Map<String, List<String>> parameters = query;
        if (parameters == null) {
            parameters = new LinkedHashMap<>();
            String raw = request.rawQuery();
            for (String pair : raw == null || raw.isEmpty() ? new String[0] : raw.split("&")) {
                int equals = pair.indexOf('=');
                String name = equals < 0 ? pair : pair.substring(0, equals);
                if (!name.isEmpty()) {
                    parameters.computeIfAbsent(name, n -> new ArrayList<>()).add(equals < 0 ? "" : pair.substring(equals + 1));
                }
            }
            query = parameters;
        }
        return parameters;
    }

    private @Nullable Object jsonMember(String dotted) {
        if (!parsed) {
            byte[] bytes = request.smallBody();
            json = bytes == null || bytes.length == 0 ? null : parse(bytes);
            parsed = true;
        }
        return Json.member(json, dotted);
    }

    private static @Nullable Object parse(byte[] bytes) {
        try {
            return Json.onClassPath().read(bytes);
        } catch (NotJsonException e) {
            return null;
        }
    }

    private static Map<String, String> normalised(Map<String, String> raw, List<String> numeric) {
        Map<String, String> out = new HashMap<>(raw);
        for (String name : numeric) {
            String value = raw.get(name);
            if (value != null && !value.isEmpty() && value.length() < 400 && value.chars().allMatch(Character::isDigit)) {
                out.put(name, new BigInteger(value).toString());
            }
        }
        return out;
    }
}
