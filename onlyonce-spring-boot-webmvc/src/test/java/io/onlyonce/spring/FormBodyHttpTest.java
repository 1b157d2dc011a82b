package io.onlyonce.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.spring.testapp.TestApplication;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.util.MultiValueMap;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Form bodies ({@code application/x-www-form-urlencoded}) through the real filters on a real
 * Tomcat: whatever the handler reads, the raw bytes or the parameters, is what the client sent, and
 * the fingerprint is made of the fields, both for {@code @Idempotent} and for the de-dup filter.
 */
@SpringBootTest(classes = TestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
    "onlyonce.circuit-breaker.enabled=false",
    "onlyonce.key.max-body-size=64KB",
    "onlyonce.dedup.enabled=true",
    "onlyonce.dedup.rules[0].pattern=/form-dedup/**",
    "onlyonce.dedup.rules[0].window=2s",
    "onlyonce.dedup.rules[1].pattern=/form-dedup-fields/**",
    "onlyonce.dedup.rules[1].window=2s",
    "onlyonce.dedup.rules[1].fields=principal,body:item"
})
@Import({FormBodyHttpTest.FormHandlers.class, FormBodyHttpTest.ParameterPeek.class})
class FormBodyHttpTest {

    static final String PROBLEM = "urn:onlyonce:problem:";
    /** Two values of one field, a space as '+', and "牛奶" percent-encoded in UTF-8. */
    static final String FORM = "note=fresh+milk&item=%E7%89%9B%E5%A5%B6&item=2";

    /** Handlers reading a form each in its own way; the counts tell how often each ran. */
    @RestController
    public static class FormHandlers {

        private final Map<String, AtomicInteger> executions = new ConcurrentHashMap<>();

        public int executions(String handler) {
            return executions.getOrDefault(handler, new AtomicInteger()).get();
        }

        public void reset() {
            executions.clear();
        }

        private ResponseEntity<Map<String, Object>> created(String handler, String key, Object value) {
            int n = executions.computeIfAbsent(handler, h -> new AtomicInteger()).incrementAndGet();
            return ResponseEntity.status(HttpStatus.CREATED).body(Map.of("n", n, key, value));
        }

        private static String raw(HttpServletRequest request) throws IOException {
            return new String(request.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }

        @PostMapping("/forms/stream")
        @Idempotent
        public ResponseEntity<Map<String, Object>> stream(HttpServletRequest request) throws IOException {
            return created("stream", "body", raw(request));
        }

        @PostMapping("/forms/reader")
        @Idempotent
        public ResponseEntity<Map<String, Object>> reader(HttpServletRequest request) throws IOException {
            StringBuilder body = new StringBuilder();
            request.getReader().lines().forEach(body::append);
            return created("reader", "body", body.toString());
        }

        @PostMapping("/forms/string")
        @Idempotent
        public ResponseEntity<Map<String, Object>> string(@RequestBody String body) {
            return created("string", "body", body);
        }

        @PostMapping("/forms/map")
        @Idempotent
        public ResponseEntity<Map<String, Object>> map(@RequestBody MultiValueMap<String, String> form) {
            return created("map", "form", form);
        }

        @PostMapping("/forms/params")
        @Idempotent
        public ResponseEntity<Map<String, Object>> params(@RequestParam("item") String item, HttpServletRequest request) {
            return created("params", "parameters", Map.of("item", item, "first", request.getParameter("item"),
                    "items", List.of(request.getParameterValues("item")),
                    "names", Collections.list(request.getParameterNames()),
                    "map", request.getParameterMap().keySet()));
        }

        @PostMapping("/forms/both")
        @Idempotent
        public ResponseEntity<Map<String, Object>> both(@RequestParam("note") String note, HttpServletRequest request)
                throws IOException {
            return created("both", "seen", Map.of("note", note, "body", raw(request)));
        }

        @PutMapping("/forms/put")
        @Idempotent
        public ResponseEntity<Map<String, Object>> put(@RequestParam("item") String item) {
            return created("put", "item", item);
        }

        /** Not protected: the request still passes through the idempotency filter. */
        @PostMapping("/plain/form")
        public ResponseEntity<Map<String, Object>> plain(@RequestParam("item") String item) {
            return created("plain", "item", item);
        }

        /** Not protected, reads the raw body. */
        @PostMapping("/plain/stream")
        public ResponseEntity<Map<String, Object>> plainStream(HttpServletRequest request) throws IOException {
            return created("plain-stream", "body", raw(request));
        }

        @PostMapping({"/form-dedup/echo", "/form-dedup-fields/echo"})
        public ResponseEntity<Map<String, Object>> dedup(@RequestParam("item") String item, HttpServletRequest request)
                throws IOException {
            return created("dedup", "seen", Map.of("item", item, "body", raw(request)));
        }
    }

    /** Asks for a parameter before the OnlyOnce filters, as a CSRF filter does for a form. */
    @TestConfiguration(proxyBeanMethods = false)
    static class ParameterPeek {

        @Bean
        FilterRegistrationBean<Filter> parameterPeek() {
            Filter filter = (request, response, chain) -> {
                if (((HttpServletRequest) request).getHeader("X-Peek") != null) {
                    request.getParameter("item");
                }
                chain.doFilter(request, response);
            };
            FilterRegistrationBean<Filter> registration = new FilterRegistrationBean<>(filter);
            registration.setOrder(-95);
            return registration;
        }
    }

    @LocalServerPort
    int port;

    @Autowired
    FormHandlers handlers;

    Http http;

    @BeforeEach
    void setUp() {
        http = new Http(port);
        handlers.reset();
    }

    static String newKey() {
        return UUID.randomUUID().toString();
    }

    static String encoded(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    HttpRequest.Builder form(String path, String body) {
        return http.post(path, "alice", "").setHeader("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body));
    }

    HttpResponse<String> post(String path, String key, String body) {
        return http.send(form(path, body).header("Idempotency-Key", key));
    }

    static JsonDoc json(HttpResponse<String> response) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
        return JsonDoc.parse(response.body());
    }

    static void assertReplayed(HttpResponse<String> retry, HttpResponse<String> first) {
        assertThat(retry.statusCode()).as(retry.body()).isEqualTo(first.statusCode());
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(retry.body()).isEqualTo(first.body());
    }

    static void assertProblem(HttpResponse<String> response, int status, String type) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        assertThat(JsonDoc.parse(response.body()).get("type").asString()).isEqualTo(PROBLEM + type);
    }

    @Test
    void aHandlerThatReadsTheBodyGetsTheFormExactlyAsSent() {
        for (String path : List.of("/forms/stream", "/forms/reader", "/forms/string?source=app", "/forms/string")) {
            assertThat(json(post(path, newKey(), FORM)).get("body").asString()).as(path).isEqualTo(FORM);
        }
        JsonDoc both = json(post("/forms/both?source=app", newKey(), FORM)).get("seen");
        assertThat(both.get("body").asString()).as("the raw body after the parameters were read").isEqualTo(FORM);
        assertThat(both.get("note").asString()).isEqualTo("fresh milk");
    }

    @Test
    void aMultiValueMapBodyIsTheDecodedForm() {
        JsonDoc form = json(post("/forms/map?source=app", newKey(), FORM)).get("form");
        assertThat(form.get("note").get(0).asString()).isEqualTo("fresh milk");
        assertThat(form.get("item").toString()).isEqualTo("[\"牛奶\",\"2\"]");
        assertThat(form.has("source")).as("the query string is no part of the body").isFalse();
    }

    @Test
    void theParametersAreTheQueryStringsFirstThenTheBodysDecodedAsUtf8() {
        JsonDoc parameters = json(post("/forms/params?item=q&source=app", newKey(), FORM)).get("parameters");
        assertThat(parameters.get("first").asString()).isEqualTo("q");
        assertThat(parameters.get("item").asString()).as("Spring joins the values of a String").isEqualTo("q,牛奶,2");
        assertThat(parameters.get("items").toString()).isEqualTo("[\"q\",\"牛奶\",\"2\"]");
        assertThat(parameters.get("names").toString()).isEqualTo("[\"item\",\"source\",\"note\"]");
        assertThat(parameters.get("map").toString()).isEqualTo("[\"item\",\"source\",\"note\"]");
        HttpResponse<String> unencoded = http.send(form("/forms/params", "").header("Idempotency-Key", newKey())
                .setHeader("Content-Type", "application/x-www-form-urlencoded; charset=UTF-8")
                .POST(HttpRequest.BodyPublishers.ofByteArray("item=牛奶".getBytes(StandardCharsets.UTF_8))));
        assertThat(json(unencoded).get("parameters").get("item").asString()).isEqualTo("牛奶");
    }

    @Test
    void aRetryOfTheSameFormIsReplayedAndTheHandlerRanOnce() {
        String key = newKey();
        HttpResponse<String> first = post("/forms/stream", key, FORM);
        assertThat(json(first).get("body").asString()).isEqualTo(FORM);
        assertReplayed(post("/forms/stream", key, FORM), first);
        assertThat(handlers.executions("stream")).isEqualTo(1);
    }

    @Test
    void theSameKeyWithAnotherFieldValueIsAReusedKey() {
        String key = newKey();
        json(post("/forms/stream", key, "item=" + encoded("牛奶") + "&note=a"));
        assertProblem(post("/forms/stream", key, "item=" + encoded("牛肉") + "&note=a"), 422, "idempotency-key-reused");
        assertProblem(post("/forms/stream", key, "item=" + encoded("牛奶") + "&note=b"), 422, "idempotency-key-reused");
        assertProblem(post("/forms/stream", key, "item=" + encoded("牛奶") + "&note=a&more=1"), 422, "idempotency-key-reused");
        assertThat(handlers.executions("stream")).isEqualTo(1);
    }

    @Test
    void aBodyBoundBeforeTheKeyIsCheckedIsFingerprintedToo() {
        for (String path : List.of("/forms/string?source=app", "/forms/map?source=app", "/forms/string")) {
            String key = newKey();
            json(post(path, key, "item=a&note=x"));
            assertProblem(post(path, key, "item=a&note=y"), 422, "idempotency-key-reused");
        }
        assertThat(handlers.executions("string")).isEqualTo(2);
        assertThat(handlers.executions("map")).isEqualTo(1);
    }

    @Test
    void fieldsInAnotherOrderOrEncodingAreTheSameRequest() {
        String key = newKey();
        HttpResponse<String> first = post("/forms/params", key, "item=" + encoded("牛奶") + "&note=fresh+milk");
        assertReplayed(post("/forms/params", key, "note=fresh%20milk&item=%e7%89%9b%e5%a5%b6"), first);
        assertThat(handlers.executions("params")).isEqualTo(1);
    }

    @Test
    void aParameterReadInFrontOfTheFiltersStillLeavesTheFieldsToFingerprint() {
        String key = newKey();
        HttpResponse<String> first = http.send(form("/forms/params", "item=a&note=x").header("Idempotency-Key", key)
                .header("X-Peek", "1"));
        assertThat(json(first).get("parameters").get("item").asString()).isEqualTo("a");
        assertProblem(http.send(form("/forms/params", "item=b&note=x").header("Idempotency-Key", key).header("X-Peek", "1")),
                422, "idempotency-key-reused");
        assertReplayed(http.send(form("/forms/params", "note=x&item=a").header("Idempotency-Key", key).header("X-Peek", "1")),
                first);
    }

    @Test
    void aFormSentWithPutIsReadThroughSpringsFormContentFilter() {
        String key = newKey();
        HttpResponse<String> first = http.send(form("/forms/put", "item=a").header("Idempotency-Key", key)
                .PUT(HttpRequest.BodyPublishers.ofString("item=a")));
        assertThat(json(first).get("item").asString()).isEqualTo("a");
        assertReplayed(http.send(form("/forms/put", "").header("Idempotency-Key", key)
                .PUT(HttpRequest.BodyPublishers.ofString("item=a"))), first);
        assertProblem(http.send(form("/forms/put", "").header("Idempotency-Key", key)
                .PUT(HttpRequest.BodyPublishers.ofString("item=b"))), 422, "idempotency-key-reused");
    }

    @Test
    void aFormLargerThanTheLimitIsRefusedWhereProtectedAndParsedByTheContainerElsewhere() {
        String large = "item=a&note=" + "x".repeat(70 * 1024);
        assertProblem(post("/forms/params", newKey(), large), 413, "idempotency-request-too-large");
        assertThat(handlers.executions("params")).isZero();
        assertThat(json(http.send(form("/plain/form", large))).get("item").asString()).isEqualTo("a");
    }

    static HttpRequest.BodyPublisher chunked(String body) {
        return HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void aChunkedFormIsReadAsWellAndOneOverTheLimitIsStillHandedOnInFull() {
        String key = newKey();
        HttpResponse<String> first = http.send(form("/forms/both", "").header("Idempotency-Key", key).POST(chunked(FORM)));
        JsonDoc seen = json(first).get("seen");
        assertThat(seen.get("body").asString()).isEqualTo(FORM);
        assertThat(seen.get("note").asString()).isEqualTo("fresh milk");
        assertReplayed(http.send(form("/forms/both", "").header("Idempotency-Key", key).POST(chunked(FORM))), first);
        String large = "item=a&note=" + "x".repeat(70 * 1024);
        assertThat(json(http.send(form("/plain/stream", "").POST(chunked(large)))).get("body").asString()).isEqualTo(large);
        assertProblem(http.send(form("/forms/stream", "").header("Idempotency-Key", newKey()).POST(chunked(large))),
                413, "idempotency-request-too-large");
    }

    /**
     * Posts a form with a new item ("牛奶-" and a UUID, percent-encoded) through the de-dup filter and
     * checks that the handler got it as sent; answers the encoded item.
     */
    String firstThroughDeDup(String path, String otherFields) {
        String item = encoded("牛奶-" + UUID.randomUUID());
        String body = "item=" + item + "&" + otherFields;
        JsonDoc seen = json(http.send(form(path, body))).get("seen");
        assertThat(seen.get("body").asString()).isEqualTo(body);
        assertThat(seen.get("item").asString()).startsWith("牛奶-");
        return item;
    }

    int status(String path, String body) {
        return http.send(form(path, body)).statusCode();
    }

    @Test
    void theDeDupFilterHandsTheFormOnExactlyAndComparesItsFields() {
        String item = firstThroughDeDup("/form-dedup/echo?source=app", "note=fresh+milk");
        assertThat(status("/form-dedup/echo?source=app", "note=fresh%20milk&item=" + item))
                .as("the same fields in another order and encoding").isEqualTo(429);
        assertThat(status("/form-dedup/echo?source=app", "item=" + item + "&note=sour+milk")).as("another value").isEqualTo(201);
        assertThat(handlers.executions("dedup")).isEqualTo(2);
    }

    @Test
    void theDeDupFilterTakesChosenFieldsFromTheBodyAndStillHandsItOn() {
        String item = firstThroughDeDup("/form-dedup-fields/echo?source=app", "note=a");
        assertThat(status("/form-dedup-fields/echo", "note=b&item=" + item)).as("only the item counts").isEqualTo(429);
        assertThat(status("/form-dedup-fields/echo?item=" + item, "note=a&item=other"))
                .as("a query parameter is no body field").isEqualTo(201);
        assertThat(handlers.executions("dedup")).isEqualTo(2);
    }
}
