package io.onlyonce.spring.dedup;

import io.onlyonce.Fingerprint;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.spring.PrincipalResolver;
import io.onlyonce.spring.metrics.OutcomeRecorder;
import io.onlyonce.spring.web.OnlyOnceProblems;
import io.onlyonce.spring.web.ProblemType;
import io.onlyonce.window.WindowStore;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.UriComponentsBuilder;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The gateway layer for services without a gateway: a request whose fingerprint was already seen
 * within its rule's window is answered 429 with {@code Retry-After}, before it reaches security
 * checks of the business layer. Store faults fail open (the request passes, the layers behind
 * still hold) and are counted; a circuit breaker in front of the store keeps a dead server from
 * being hammered.
 *
 * <p>Not for operations whose every call legitimately differs, nor a replacement for
 * {@code @Idempotent}: it only absorbs bursts of identical requests.
 */
public final class RequestDedupFilter extends OncePerRequestFilter {

    private static final Logger log = LoggerFactory.getLogger(RequestDedupFilter.class);
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final int BODY_LIMIT = 1024 * 1024;

    private final DedupRules rules;
    private final WindowStore windows;
    private final PrincipalResolver principals;
    private final OutcomeRecorder recorder;
    private final OnlyOnceProblems problems;
    private final Clock clock;

    public RequestDedupFilter(DedupRules rules, WindowStore windows, PrincipalResolver principals,
            OutcomeRecorder recorder, OnlyOnceProblems problems, Clock clock) {
        this.rules = rules;
        this.windows = windows;
        this.principals = principals;
        this.recorder = recorder;
        this.problems = problems;
        this.clock = clock;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        Optional<DedupRules.Compiled> match = rules.match(request);
        if (match.isEmpty()) {
            chain.doFilter(request, response);
            return;
        }
        DedupRules.Compiled rule = match.get();
        Body body = body(request);
        HttpServletRequest forwarded = body.cached() != null ? body.cached() : request;
        String endpoint = request.getMethod() + " " + rule.rule().pattern();
        Duration window = rule.rule().window();
        boolean first;
        try {
            first = windows.firstInWindow(fingerprint(request, body, rule), window, clock.instant());
        } catch (StoreUnavailableException e) {
            recorder.record(OutcomeRecorder.LAYER_GATEWAY, "store_error", endpoint);
            log.warn("request de-dup skipped for {}: {}", endpoint, e.getMessage());
            first = true;
        }
        if (first) {
            chain.doFilter(forwarded, response);
            return;
        }
        recorder.record(OutcomeRecorder.LAYER_GATEWAY, "window_duplicate", endpoint);
        reject(request, response, window);
    }

    private void reject(HttpServletRequest request, HttpServletResponse response, Duration window) throws IOException {
        ProblemDetail problem = problems.create(ProblemType.DUPLICATE_REQUEST, request.getLocale());
        problem.setInstance(java.net.URI.create(request.getRequestURI()));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", problem.getType().toString());
        body.put("title", problem.getTitle());
        body.put("status", problem.getStatus());
        body.put("detail", problem.getDetail());
        body.put("instance", request.getRequestURI());
        response.setStatus(problem.getStatus());
        response.setHeader(HttpHeaders.RETRY_AFTER, Long.toString(Math.max(1, (window.toMillis() + 999) / 1000)));
        response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
        response.setCharacterEncoding("UTF-8");
        response.getOutputStream().write(JSON.writeValueAsBytes(body));
    }

    /**
     * What of the body goes into the fingerprint. A form is read through the parameters (reading
     * its stream ahead would leave the container no parameters to parse); a multipart body is not
     * read at all (the container parses its parts from the stream): its content type, which carries
     * a per-request boundary, and its length stand for it. Any other body is read ahead and
     * served again to the handler.
     *
     * @param cached the request to pass on when the body was read ahead, else null
     * @param bytes the body bytes to fingerprint, or null for a form
     * @param form the form parameters, sorted, or null
     */
    private record Body(@Nullable CachedBodyRequest cached, byte @Nullable [] bytes,
            @Nullable MultiValueMap<String, String> form) {
    }

    private static Body body(HttpServletRequest request) throws IOException {
        MediaType type = contentType(request);
        if (type != null && MediaType.APPLICATION_FORM_URLENCODED.includes(type)) {
            MultiValueMap<String, String> form = new LinkedMultiValueMap<>();
            new java.util.TreeMap<>(request.getParameterMap()).forEach((name, values) -> form.addAll(name, List.of(values)));
            return new Body(null, null, form);
        }
        if (type != null && type.getType().equalsIgnoreCase("multipart")) {
            String stand = request.getContentType() + "\n" + request.getContentLengthLong();
            return new Body(null, stand.getBytes(java.nio.charset.StandardCharsets.UTF_8), null);
        }
        CachedBodyRequest cached = new CachedBodyRequest(request, BODY_LIMIT);
        return new Body(cached, cached.head(), null);
    }

    private static @Nullable MediaType contentType(HttpServletRequest request) {
        try {
            return request.getContentType() == null ? null : MediaType.parseMediaType(request.getContentType());
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private Fingerprint fingerprint(HttpServletRequest request, Body body, DedupRules.Compiled rule) {
        Fingerprint.Builder builder = Fingerprint.builder().add(rule.rule().pattern()).add(request.getMethod());
        List<String> fields = rule.rule().fields();
        if (fields.isEmpty()) {
            builder.add(request.getRequestURI()).add(sortedQuery(request, rule.rule().ignoredParameters()));
            if (body.form() != null) {
                builder.add("form").add(sortedPairs(body.form(), rule.rule().ignoredParameters()));
            } else {
                builder.addJson(java.util.Objects.requireNonNull(body.bytes()));
            }
            builder.add(caller(request));
            return builder.build();
        }
        @Nullable JsonNode json = null;
        for (String field : fields) {
            String value;
            if (field.equals("principal")) {
                value = caller(request);
            } else if (field.equals("ip")) {
                value = request.getRemoteAddr();
            } else if (field.equals("path")) {
                value = request.getRequestURI();
            } else if (field.startsWith("query:")) {
                value = String.join(",", query(request).getOrDefault(field.substring(6), List.of()));
            } else if (field.startsWith("header:")) {
                value = String.join(",", Collections.list(request.getHeaders(field.substring(7))));
            } else if (field.startsWith("body:") && body.form() != null) {
                value = String.join(",", body.form().getOrDefault(field.substring(5), List.of()));
            } else if (field.startsWith("body:")) {
                if (json == null) {
                    json = parse(java.util.Objects.requireNonNull(body.bytes()));
                }
                value = bodyField(json, field.substring(5));
            } else {
                throw new IllegalStateException("unknown de-dup field " + field);
            }
            builder.add(field).add(value);
        }
        return builder.build();
    }

    private String caller(HttpServletRequest request) {
        String principal = principals.resolve(request);
        return principal != null ? "p:" + principal : "ip:" + request.getRemoteAddr();
    }

    private static String sortedQuery(HttpServletRequest request, List<String> ignoredParameters) {
        return sortedPairs(query(request), ignoredParameters);
    }

    private static String sortedPairs(MultiValueMap<String, String> parameters, List<String> ignoredParameters) {
        Set<String> ignored = new java.util.HashSet<>();
        ignoredParameters.forEach(p -> ignored.add(p.toLowerCase(Locale.ROOT)));
        List<String> pairs = new ArrayList<>();
        parameters.forEach((name, values) -> {
            if (!ignored.contains(name.toLowerCase(Locale.ROOT))) {
                values.forEach(value -> pairs.add(name + "=" + value));
            }
        });
        Collections.sort(pairs);
        return String.join("&", pairs);
    }

    /** The query parameters as sent (still percent-encoded); the body is never read for them. */
    private static MultiValueMap<String, String> query(HttpServletRequest request) {
        String query = request.getQueryString();
        return query == null ? new LinkedMultiValueMap<>()
                : UriComponentsBuilder.newInstance().query(query).build().getQueryParams();
    }

    private static JsonNode parse(byte[] body) {
        try {
            return JSON.readTree(body);
        } catch (JacksonException e) {
            return JSON.nullNode();
        }
    }

    private static String bodyField(JsonNode json, String path) {
        JsonNode node = json;
        for (String part : path.split("\\.")) {
            node = node == null ? null : node.get(part);
        }
        return node == null || node.isNull() ? "" : node.toString();
    }
}
