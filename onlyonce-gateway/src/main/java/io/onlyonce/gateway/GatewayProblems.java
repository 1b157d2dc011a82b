package io.onlyonce.gateway;

import io.onlyonce.json.Json;
import java.text.MessageFormat;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.MissingResourceException;
import java.util.ResourceBundle;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Writes RFC 9457 problems ({@code application/problem+json}) from a gateway, with the title and
 * detail in the request's language: Chinese when {@code Accept-Language} prefers it to English,
 * else English. The texts are {@code problem.{slug}.title} and {@code problem.{slug}.detail} of a
 * properties bundle and its {@code _zh} variant (the layout of the services' {@code messages}
 * bundles); an application names its own bundle for its own problems, and this module's texts
 * ({@link #DUPLICATE_REQUEST}, {@link #PAYLOAD_TOO_LARGE}, {@link #BUSINESS_ID_INVALID}) stay
 * behind it. {@code {0}}-style arguments are filled in with {@link MessageFormat} when given.
 *
 * <p>The {@code instance} is the request's path when it is plain (letters, digits,
 * {@code / _ . ~ -}, no empty, {@code .} or {@code ..} segment), and absent otherwise: an address
 * the gateway refused is not echoed.
 */
public final class GatewayProblems {

    /**
     * One problem a gateway answers.
     *
     * @param slug the last segment of the {@code type} URI, also the message key
     * @param status the HTTP status
     */
    public record Type(String slug, HttpStatus status) {
    }

    /** A repeat within the window. */
    public static final Type DUPLICATE_REQUEST = new Type("duplicate-request", HttpStatus.TOO_MANY_REQUESTS);
    /** A body over the gateway's limit; its argument is the limit in bytes. */
    public static final Type PAYLOAD_TOO_LARGE = new Type("payload-too-large", HttpStatus.valueOf(413)); // CONTENT_TOO_LARGE on Spring Framework 7, PAYLOAD_TOO_LARGE on 6.2
    /** A business id missing or not in the route's format. */
    public static final Type BUSINESS_ID_INVALID = new Type("business-id-invalid", HttpStatus.BAD_REQUEST);

    private static final List<Locale> SUPPORTED = List.of(Locale.ENGLISH, Locale.CHINESE);
    private static final String OWN_BUNDLE = "io.onlyonce.gateway.messages";
    private static final int MAX_INSTANCE_LENGTH = 2048;

    private final String typeBase;
    private final List<String> bundles;

    /** @param typeBase the start of every {@code type} URI, such as {@code urn:onlyonce:problem:} */
    public GatewayProblems(String typeBase) {
        this(typeBase, List.of());
    }

    /**
     * @param typeBase the start of every {@code type} URI, such as {@code urn:onlyonce:problem:}
     * @param applicationBundles the base names of the application's bundles ({@code "messages"} for
     *     {@code messages.properties} at the root of the class path), looked up before this module's
     */
    public GatewayProblems(String typeBase, List<String> applicationBundles) {
        this.typeBase = typeBase;
        List<String> all = new ArrayList<>(applicationBundles);
        all.add(OWN_BUNDLE);
        this.bundles = List.copyOf(all);
    }

    /**
     * Answers {@code type}, its texts filled in with {@code arguments}; headers the caller set on the
     * response before (such as {@code WWW-Authenticate}) stay. Nothing is written on a response
     * already committed.
     */
    public Mono<Void> write(ServerWebExchange exchange, Type type, Object... arguments) {
        return write(exchange, type, null, arguments);
    }

    /** Answers {@code type} with {@code Retry-After: retryAfterSeconds}. */
    public Mono<Void> writeRetryAfter(ServerWebExchange exchange, Type type, long retryAfterSeconds) {
        return write(exchange, type, retryAfterSeconds, new Object[0]);
    }

    private Mono<Void> write(ServerWebExchange exchange, Type type, @Nullable Long retryAfterSeconds, Object[] arguments) {
        ServerHttpResponse response = exchange.getResponse();
        if (response.isCommitted()) {
            return Mono.empty();
        }
        Locale locale = locale(exchange.getRequest().getHeaders());
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", typeBase + type.slug());
        body.put("title", text("problem." + type.slug() + ".title", locale, arguments));
        body.put("status", type.status().value());
        body.put("detail", text("problem." + type.slug() + ".detail", locale, arguments));
        String instance = instance(exchange.getRequest().getURI().getRawPath());
        if (instance != null) {
            body.put("instance", instance);
        }
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

    private String text(String key, Locale locale, Object[] arguments) {
        for (String name : bundles) {
            ResourceBundle bundle;
            try {
                bundle = ResourceBundle.getBundle(name, locale, GatewayProblems.class.getClassLoader(),
                        ResourceBundle.Control.getNoFallbackControl(ResourceBundle.Control.FORMAT_PROPERTIES));
            } catch (MissingResourceException absent) {
                continue;
            }
            if (bundle.containsKey(key)) {
                String text = bundle.getString(key);
                return arguments.length == 0 ? text : new MessageFormat(text, locale).format(arguments);
            }
        }
        throw new IllegalStateException("no text for " + key + " in " + bundles);
    }

    /** The path when it is plain enough to repeat, else null. */
    static @Nullable String instance(@Nullable String path) {
        if (path == null || path.isEmpty() || path.length() > MAX_INSTANCE_LENGTH || path.charAt(0) != '/'
                || path.contains("//") || path.contains("/./") || path.contains("/../") || path.endsWith("/.")
                || path.endsWith("/..")) {
            return null;
        }
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (!(Character.isLetterOrDigit(c) && c < 128) && "/_.~-".indexOf(c) < 0) {
                return null;
            }
        }
        return path;
    }

    /**
     * The language of the answer: the first of English and Chinese in the order of the request's
     * {@code Accept-Language} ({@code fr, zh;q=0.5} is Chinese); English when it names neither or is
     * malformed.
     */
    public static Locale locale(HttpHeaders headers) {
        String accepted = headers.getFirst(HttpHeaders.ACCEPT_LANGUAGE);
        if (accepted == null) {
            return Locale.ENGLISH;
        }
        try {
            Locale found = Locale.lookup(Locale.LanguageRange.parse(accepted), SUPPORTED);
            return found != null ? found : Locale.ENGLISH;
        } catch (IllegalArgumentException malformed) {
            return Locale.ENGLISH;
        }
    }
}
