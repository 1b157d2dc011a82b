package io.onlyonce.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.onlyonce.Fingerprint;
import io.onlyonce.http.WindowFingerprint.Recipe;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The one window fingerprint recipe. The pinned values are the ones the servlet filter and the
 * gateway filter compute for the same request (their own tests pin the same hex), so a change here
 * makes the two stacks disagree unless both follow.
 */
class WindowFingerprintTest {

    /** A request as a platform would adapt it. */
    record Fixed(String method, String rawPath, @Nullable String rawQuery, Map<String, List<String>> headers,
            String caller, String remoteAddress, Map<String, String> pathVariables,
            @Nullable Map<String, List<String>> formFields, @Nullable String contentType, byte[] bytes)
            implements WindowRequest {

        @Override
        public List<String> headerValues(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                    .flatMap(e -> e.getValue().stream()).toList();
        }

        @Override
        public RequestFingerprint.Body body() {
            return "application/json".equals(contentType) ? new RequestFingerprint.Body.Json(bytes)
                    : new RequestFingerprint.Body.Opaque(sha256(bytes));
        }

        @Override
        public byte[] smallBody() {
            return bytes;
        }

        Fixed withQuery(String query) {
            return new Fixed(method, rawPath, query, headers, caller, remoteAddress, pathVariables, formFields, contentType, bytes);
        }

        Fixed withJson(String json) {
            return new Fixed(method, rawPath, rawQuery, headers, caller, remoteAddress, pathVariables, null, "application/json",
                    utf8(json));
        }

        Fixed withPath(String path, String id) {
            return new Fixed(method, path, rawQuery, headers, caller, remoteAddress, Map.of("id", id), formFields, contentType,
                    bytes);
        }

        Fixed withForm(String form) {
            return new Fixed(method, rawPath, rawQuery, headers, caller, remoteAddress, pathVariables,
                    FormFields.parse(form, StandardCharsets.UTF_8), "application/x-www-form-urlencoded", utf8(form));
        }

        Fixed withBytes(byte[] body) {
            return new Fixed(method, rawPath, rawQuery, headers, caller, remoteAddress, pathVariables, null,
                    "application/octet-stream", body);
        }
    }

    static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * {@code POST /api/orders/007?channel=app&timestamp=1700000000&b=x%20y} by alice from 203.0.113.7
     * with {@code X-Tenant: t1} and the JSON body {@code {"item":"phone","quantity":1}}, on a rule
     * {@code /api/orders/{id}} whose {@code id} is numeric and whose volatile parameter is {@code timestamp}.
     */
    static final Fixed REQUEST = new Fixed("POST", "/api/orders/007", "channel=app&timestamp=1700000000&b=x%20y",
            Map.of("X-Tenant", List.of("t1")), "p:alice", "203.0.113.7", Map.of("id", "007"), null, "application/json",
            utf8("{\"item\":\"phone\",\"quantity\":1}"));
    static final Recipe DEFAULT = new Recipe(List.of(), List.of("Timestamp"), List.of("id"));
    static final Recipe NAMED = new Recipe(List.of("principal", "var:id", "body:item", "header:x-tenant", "query:channel"),
            List.of("timestamp"), List.of("id"));

    /** The window fingerprint of {@link #REQUEST} under {@link #DEFAULT} in the scope {@code /api/orders/{id}}. */
    static final String PINNED_DEFAULT = "899c7b094d7770067035b685e8950d6744a728109ef806d70fb7584c6c62bb6f";
    /** The window fingerprint of {@link #REQUEST} under {@link #NAMED} in the scope {@code /api/orders/{id}}. */
    static final String PINNED_NAMED = "9b44a31b85835e170771564a6772a1082243d5a67b723fd2f2b638f9d0d29030";
    /**
     * The window fingerprint under {@link #DEFAULT} in the scope {@code /api/orders/{id}} of {@link #REQUEST}
     * with the form {@code item=fresh+milk&note=a&timestamp=1} for its body.
     */
    static final String PINNED_FORM = "961963fde7eadf7e06de388e4399391266c9d78f097544e485d5a4dcb61b4d2f";

    @Test
    void theRecipeIsPinned() {
        String body = Fingerprint.builder().add("json").addJson(utf8("{\"item\":\"phone\",\"quantity\":1}")).build().hex();
        assertThat(WindowFingerprint.of("/api/orders/{id}", DEFAULT, REQUEST)).isEqualTo(Fingerprint.builder().add("/api/orders/{id}")
                .add("method").add("POST")
                .add("path").add("/api/orders/7")
                .add("query").add("b=x%20y&channel=app")
                .add("body").add(body)
                .add("principal").add("p:alice").build());
        assertThat(WindowFingerprint.of("/api/orders/{id}", NAMED, REQUEST)).isEqualTo(Fingerprint.builder().add("/api/orders/{id}")
                .add("principal").add("p:alice")
                .add("var:id").add("7")
                .add("body:item").add("phone")
                .add("header:x-tenant").add("t1")
                .add("query:channel").add("app").build());
        assertThat(WindowFingerprint.of("/api/orders/{id}", DEFAULT, REQUEST).hex()).isEqualTo(PINNED_DEFAULT);
        assertThat(WindowFingerprint.of("/api/orders/{id}", NAMED, REQUEST).hex()).isEqualTo(PINNED_NAMED);
        assertThat(WindowFingerprint.of("/api/orders/{id}", DEFAULT, REQUEST.withForm("item=fresh+milk&note=a&timestamp=1")).hex())
                .isEqualTo(PINNED_FORM);
    }

    @Test
    void volatileParametersQueryOrderLeadingZerosAndJsonFieldOrderDoNotMakeAnotherRequest() {
        Fingerprint base = WindowFingerprint.of("/api/orders/{id}", DEFAULT, REQUEST);
        assertThat(WindowFingerprint.of("/api/orders/{id}", DEFAULT, REQUEST.withQuery("b=x%20y&TIMESTAMP=2&channel=app")))
                .isEqualTo(base);
        assertThat(WindowFingerprint.of("/api/orders/{id}", DEFAULT, REQUEST.withPath("/api/orders/0007", "0007"))).isEqualTo(base);
        assertThat(WindowFingerprint.of("/api/orders/{id}", DEFAULT, REQUEST.withJson("{ \"quantity\": 1, \"item\": \"phone\" }")))
                .isEqualTo(base);

        assertThat(WindowFingerprint.of("/api/orders/{id}", DEFAULT, REQUEST.withQuery("b=x%20y&channel=web"))).isNotEqualTo(base);
        assertThat(WindowFingerprint.of("/api/orders/{id}", DEFAULT, REQUEST.withPath("/api/orders/8", "8"))).isNotEqualTo(base);
        assertThat(WindowFingerprint.of("/api/orders/{id}", DEFAULT, REQUEST.withJson("{\"item\":\"phone\",\"quantity\":2}")))
                .isNotEqualTo(base);
        assertThat(WindowFingerprint.of("other", DEFAULT, REQUEST)).as("another rule or route").isNotEqualTo(base);
    }

    @Test
    void aFormIsTakenByItsDecodedFieldsWithoutTheVolatileOnes() {
        Fingerprint form = WindowFingerprint.of("/api/orders/{id}", DEFAULT, REQUEST.withForm("item=fresh+milk&note=a&timestamp=1"));
        assertThat(WindowFingerprint.of("/api/orders/{id}", DEFAULT, REQUEST.withForm("note=a&timestamp=2&item=fresh%20milk")))
                .isEqualTo(form);
        assertThat(WindowFingerprint.of("/api/orders/{id}", DEFAULT, REQUEST.withForm("item=sour+milk&note=a"))).isNotEqualTo(form);
        assertThat(new WindowFingerprint(NAMED, REQUEST.withForm("item=fresh+milk&item=2")).value("body:item"))
                .isEqualTo("fresh milk,2");
    }

    @Test
    void anyOtherBodyIsTheHexDigestOfItsBytes() {
        byte[] bytes = utf8("opaque");
        assertThat(new WindowFingerprint(DEFAULT, REQUEST.withBytes(bytes)).value("body"))
                .isEqualTo(HexFormat.of().formatHex(sha256(bytes)));
    }

    @Test
    void namedFieldsAreExactlyWhatCounts() {
        Fingerprint named = WindowFingerprint.of("/api/orders/{id}", NAMED, REQUEST);
        assertThat(WindowFingerprint.of("/api/orders/{id}", NAMED, REQUEST.withJson("{\"item\":\"phone\",\"quantity\":9}")))
                .isEqualTo(named);
        assertThat(WindowFingerprint.of("/api/orders/{id}", NAMED, REQUEST.withJson("{\"item\":\"tablet\",\"quantity\":1}")))
                .isNotEqualTo(named);
        WindowFingerprint parts = new WindowFingerprint(NAMED, REQUEST);
        assertThat(parts.present("header:X-TENANT")).isTrue();
        assertThat(parts.present("header:X-Other")).isFalse();
        assertThat(parts.present("body:buyer.id")).isFalse();
        assertThat(parts.value("body:quantity")).isEqualTo("1");
        assertThat(new WindowFingerprint(NAMED, REQUEST.withQuery("flag&x=1")).value("query")).isEqualTo("flag=&x=1");
    }

    @Test
    void anUnknownFieldIsRefusedWhenTheRecipeIsMade() {
        assertThatThrownBy(() -> new Recipe(List.of("cookie:x"), List.of(), List.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cookie:x");
        assertThatThrownBy(() -> new Recipe(List.of("header:"), List.of(), List.of()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void formFieldsAreDecodedAsAServletContainerDecodesThem() {
        Map<String, List<String>> expected = new LinkedHashMap<>();
        expected.put("a", List.of("1 2", "3"));
        expected.put("牛奶", List.of(""));
        assertThat(FormFields.parse("a=1+2&%E7%89%9B%E5%A5%B6&=x&bad=%zz&a=3", StandardCharsets.UTF_8)).isEqualTo(expected);
    }
}
