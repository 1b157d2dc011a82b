package io.onlyonce.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.Fingerprint;
import io.onlyonce.http.RequestFingerprint.Body;
import io.onlyonce.http.RequestFingerprint.Header;
import io.onlyonce.http.RequestFingerprint.Part;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The one business fingerprint recipe. The pinned values are what records already stored were
 * keyed with: a change to the recipe would turn every retry of a request in flight during an upgrade
 * into a 422, so they must not change.
 */
class RequestFingerprintTest {

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] sha256(byte[] bytes) throws Exception {
        return MessageDigest.getInstance("SHA-256").digest(bytes);
    }

    private static Fingerprint json(String body) {
        return RequestFingerprint.of("POST", "/api/orders", "channel=app", new Body.Json(utf8(body)), List.of());
    }

    @Test
    void theRecipeIsPinned() throws Exception {
        assertThat(json("{\"item\":\"phone\",\"quantity\":1}").hex())
                .isEqualTo(Fingerprint.builder().add("POST").add("/api/orders").add("channel=app")
                        .add("json").addJson(utf8("{\"item\":\"phone\",\"quantity\":1}")).build().hex());
        assertThat(RequestFingerprint.of("POST", "/api/orders", null, Body.NONE,
                List.of(new Header("X-Tenant", List.of("t1", "t2")))).hex())
                .isEqualTo(Fingerprint.builder().add("POST").add("/api/orders").add("").add("no body")
                        .add("x-tenant").add("t1\nt2").build().hex());
        assertThat(json("{\"item\":\"phone\",\"quantity\":1}").hex()).isEqualTo(PINNED_JSON);
    }

    /** The fingerprint of {@code POST /api/orders?channel=app} with {@code {"item":"phone","quantity":1}}. */
    private static final String PINNED_JSON = "2fa960d9eed20b144aa41c2d268fd064633ce0b7aa78c92c402214205ce78cff";

    @Test
    void fieldOrderAndWhitespaceOfAJsonBodyDoNotMakeAnotherRequest() {
        assertThat(json("{ \"quantity\": 1, \"item\": \"phone\" }")).isEqualTo(json("{\"item\":\"phone\",\"quantity\":1}"));
        assertThat(json("{\"item\":\"phone\",\"quantity\":2}")).isNotEqualTo(json("{\"item\":\"phone\",\"quantity\":1}"));
    }

    @Test
    void eachPartOfTheRequestCounts() throws Exception {
        Fingerprint base = RequestFingerprint.of("POST", "/a", "x=1", new Body.Opaque(sha256(utf8("body"))), List.of());

        assertThat(RequestFingerprint.of("PUT", "/a", "x=1", new Body.Opaque(sha256(utf8("body"))), List.of())).isNotEqualTo(base);
        assertThat(RequestFingerprint.of("POST", "/b", "x=1", new Body.Opaque(sha256(utf8("body"))), List.of())).isNotEqualTo(base);
        assertThat(RequestFingerprint.of("POST", "/a", "x=2", new Body.Opaque(sha256(utf8("body"))), List.of())).isNotEqualTo(base);
        assertThat(RequestFingerprint.of("POST", "/a", "x=1", new Body.Opaque(sha256(utf8("other"))), List.of())).isNotEqualTo(base);
        assertThat(RequestFingerprint.of("POST", "/a", "x=1", new Body.Opaque(sha256(utf8("body"))),
                List.of(new Header("X-Tenant", List.of("t1"))))).isNotEqualTo(base);
        // a path and query that would concatenate alike are still two requests: every part is length-prefixed
        assertThat(RequestFingerprint.of("POST", "/ax", "=1", Body.NONE, List.of()))
                .isNotEqualTo(RequestFingerprint.of("POST", "/a", "x=1", Body.NONE, List.of()));
    }

    @Test
    void aFormAMultipartBodyAndRawBytesAreTakenEachByItsKind() throws Exception {
        byte[] content = sha256(utf8("file content"));
        Fingerprint multipart = RequestFingerprint.of("POST", "/upload", null,
                new Body.Multipart(List.of(new Part("file", "a.txt", "TEXT/PLAIN", content))), List.of());

        assertThat(multipart).isEqualTo(Fingerprint.builder().add("POST").add("/upload").add("").add("multipart")
                .add("file").add("file:a.txt").add("text/plain").add(content).build());
        assertThat(RequestFingerprint.of("POST", "/upload", null,
                new Body.Multipart(List.of(new Part("file", "b.txt", "text/plain", content))), List.of())).isNotEqualTo(multipart);
        assertThat(RequestFingerprint.of("POST", "/f", null, new Body.Form("a=1&b=2"), List.of()))
                .isEqualTo(Fingerprint.builder().add("POST").add("/f").add("").add("form").add("a=1&b=2").build());
    }
}
