package io.onlyonce.gateway.internal;

import io.onlyonce.Fingerprint;
import io.onlyonce.http.FormFields;
import io.onlyonce.http.RequestFingerprint;
import io.onlyonce.http.WindowFingerprint;
import io.onlyonce.http.WindowRequest;
import java.net.InetSocketAddress;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpRequest;

/**
 * What a request is, for the window: the gateway's request adapted to the one window recipe of
 * every platform ({@link WindowFingerprint}), so that a rule ({@code io.onlyonce.gateway.DedupRule})
 * names the same parts and gives the same fingerprint as the servlet filter of a service without a
 * gateway. The scope is the route id. A form body is taken by its fields (decoded with the charset
 * of its {@code Content-Type}, UTF-8 when it names none), a JSON body of up to
 * {@link RequestFingerprint#CANONICAL_JSON_LIMIT} in canonical form, any other body (a multipart one
 * too) by the SHA-256 of its bytes.
 */
public final class RequestFingerprints implements WindowRequest {

    private final ServerHttpRequest request;
    private final WindowFingerprint parts;
    private final Map<String, String> variables;
    private final @Nullable RequestBody body;
    private final String caller;
    private final @Nullable MediaType contentType;
    private @Nullable Map<String, List<String>> form;
    private boolean formRead;

    /**
     * @param recipe what of the request the rule fingerprints
     * @param variables the route's path variables (Spring Cloud Gateway's URI template variables)
     * @param body the body, when the rule needs it
     * @param caller {@code p:} and the verified principal, or {@code ip:} and the client address
     */
    public RequestFingerprints(ServerHttpRequest request, WindowFingerprint.Recipe recipe, Map<String, String> variables,
            @Nullable RequestBody body, String caller) {
        this.request = request;
        this.variables = Map.copyOf(variables);
        this.body = body;
        this.caller = caller;
        this.contentType = contentType(request);
        this.parts = new WindowFingerprint(recipe, this);
    }

    /** The fingerprint of the request on {@code routeId}. */
    public Fingerprint fingerprint(String routeId) {
        return parts.fingerprint(routeId);
    }

    /** The text of one part, or of a business id source; empty when absent. */
    public String value(String field) {
        return parts.value(field);
    }

    /** Whether {@code field} names something the request carries. */
    public boolean present(String field) {
        return parts.present(field);
    }

    @Override
    public String method() {
        return request.getMethod().name();
    }

    @Override
    public String rawPath() {
        return request.getPath().value();
    }

    @Override
    public @Nullable String rawQuery() {
        return request.getURI().getRawQuery();
    }

    /**
     * Every value of the header {@code name}, in order. Through {@code forEach}, which Spring
     * Framework 6.2 and 7 both have with one signature: {@code getOrEmpty} and {@code get} take an
     * {@code Object} on 6.2 and a {@code String} on 7.
     */
    @Override
    public List<String> headerValues(String name) {
        List<String> values = new ArrayList<>();
        request.getHeaders().forEach((header, list) -> {
            if (header.equalsIgnoreCase(name)) {
                values.addAll(list);
            }
        });
        return values;
    }

    @Override
    public String caller() {
        return caller;
    }

    @Override
    public String remoteAddress() {
        InetSocketAddress remote = request.getRemoteAddress();
        return remote == null || remote.getAddress() == null ? "" : remote.getAddress().getHostAddress();
    }

    @Override
    public Map<String, String> pathVariables() {
        return variables;
    }

    @Override
    public @Nullable Map<String, List<String>> formFields() {
        if (!formRead) {
            formRead = true;
            MediaType type = contentType;
            if (body != null && type != null && MediaType.APPLICATION_FORM_URLENCODED.includes(type)) {
                Charset charset = type.getCharset() != null ? type.getCharset() : StandardCharsets.UTF_8;
                form = FormFields.parse(new String(body.bytes(), charset), charset);
            }
        }
        return form;
    }

    @Override
    public RequestFingerprint.Body body() {
        RequestBody read = body;
        if (read == null) {
            return RequestFingerprint.Body.NONE;
        }
        MediaType type = contentType;
        return type != null && read.bytes().length <= RequestFingerprint.CANONICAL_JSON_LIMIT
                && (type.isCompatibleWith(MediaType.APPLICATION_JSON) || type.getSubtype().endsWith("+json"))
                ? new RequestFingerprint.Body.Json(read.bytes())
                : new RequestFingerprint.Body.Opaque(read.sha256());
    }

    @Override
    public byte @Nullable [] smallBody() {
        RequestBody read = body;
        return read == null || read.bytes().length > RequestFingerprint.CANONICAL_JSON_LIMIT ? null : read.bytes();
    }

    private static @Nullable MediaType contentType(ServerHttpRequest request) {
        try {
            return request.getHeaders().getContentType();
        } catch (InvalidMediaTypeException e) {
            return null;
        }
    }
}
