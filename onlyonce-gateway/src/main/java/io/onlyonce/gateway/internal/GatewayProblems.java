package io.onlyonce.gateway.internal;

import io.onlyonce.internal.json.Json;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ResourceBundle;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Writes the gateway's RFC 9457 problems ({@code application/problem+json}) with the title and
 * detail in the request's language: Chinese when {@code Accept-Language} prefers it, else English.
 * The types and texts are the starter's.
 */
public final class GatewayProblems {

    /**
     * One problem the gateway answers.
     *
     * @param slug the last segment of the {@code type} URI, also the message key
     * @param status the HTTP status
     */
    public record Type(String slug, HttpStatus status) {
    }

    public static final Type DUPLICATE_REQUEST = new Type("duplicate-request", HttpStatus.TOO_MANY_REQUESTS);
    public static final Type REQUEST_TOO_LARGE = new Type("idempotency-request-too-large", HttpStatus.valueOf(413)); // CONTENT_TOO_LARGE on Spring Framework 7, PAYLOAD_TOO_LARGE on 6.2
    public static final Type BUSINESS_ID_INVALID = new Type("business-id-invalid", HttpStatus.BAD_REQUEST);

    private static final List<Locale> SUPPORTED = List.of(Locale.ENGLISH, Locale.CHINESE);
    private static final String BUNDLE = "io.onlyonce.gateway.messages";

    private final String typeBase;

    /** @param typeBase the start of every {@code type} URI, such as {@code urn:onlyonce:problem:} */
    public GatewayProblems(String typeBase) {
        this.typeBase = typeBase;
    }

    /** Answers {@code type}, with {@code Retry-After} when {@code retryAfterSeconds} is given. */
    public Mono<Void> write(ServerWebExchange exchange, Type type, @Nullable Long retryAfterSeconds) {
        Locale locale = locale(exchange.getRequest().getHeaders());
        ResourceBundle messages = ResourceBundle.getBundle(BUNDLE, locale,
                ResourceBundle.Control.getNoFallbackControl(ResourceBundle.Control.FORMAT_PROPERTIES));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", typeBase + type.slug());
        body.put("title", messages.getString("problem." + type.slug() + ".title"));
        body.put("status", type.status().value());
        body.put("detail", messages.getString("problem." + type.slug() + ".detail"));
        body.put("instance", exchange.getRequest().getURI().getRawPath());
        ServerHttpResponse response = exchange.getResponse();
        response.setStatusCode(type.status());
        HttpHeaders headers = response.getHeaders();
        headers.setContentType(MediaType.APPLICATION_PROBLEM_JSON);
        if (retryAfterSeconds != null) {
            headers.set(HttpHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds));
        }
        byte[] bytes = Json.onClassPath().write(body);
        headers.setContentLength(bytes.length);
        return response.writeWith(Mono.fromSupplier(() -> response.bufferFactory().wrap(bytes)));
    }

    static Locale locale(HttpHeaders headers) {
        try {
            List<Locale.LanguageRange> ranges = Locale.LanguageRange.parse(
                    String.valueOf(headers.getFirst(HttpHeaders.ACCEPT_LANGUAGE) == null ? "en"
                            : headers.getFirst(HttpHeaders.ACCEPT_LANGUAGE)));
            Locale found = Locale.lookup(ranges, SUPPORTED);
            return found != null ? found : Locale.ENGLISH;
        } catch (IllegalArgumentException malformed) {
            return Locale.ENGLISH;
        }
    }
}
