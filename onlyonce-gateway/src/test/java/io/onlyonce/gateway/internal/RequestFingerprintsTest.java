package io.onlyonce.gateway.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.http.WindowFingerprint;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;

/**
 * The gateway computes the window fingerprint by the one recipe of core: for the request that
 * {@code WindowFingerprintTest} (onlyonce-core) and the servlet filter's {@code RequestDedupFilterFingerprintTest}
 * (onlyonce-spring-boot-webmvc) pin, it gives the same hex, so the same rule means the same request
 * behind the gateway and in a service without one.
 */
class RequestFingerprintsTest {

    /** The values of {@code WindowFingerprintTest}. */
    static final String PINNED_DEFAULT = "899c7b094d7770067035b685e8950d6744a728109ef806d70fb7584c6c62bb6f";
    static final String PINNED_NAMED = "9b44a31b85835e170771564a6772a1082243d5a67b723fd2f2b638f9d0d29030";
    static final String PINNED_FORM = "961963fde7eadf7e06de388e4399391266c9d78f097544e485d5a4dcb61b4d2f";

    static final WindowFingerprint.Recipe DEFAULT = new WindowFingerprint.Recipe(List.of(), List.of("timestamp"),
            List.of("id"));
    static final WindowFingerprint.Recipe NAMED = new WindowFingerprint.Recipe(
            List.of("principal", "var:id", "body:item", "header:x-tenant", "query:channel"), List.of("timestamp"),
            List.of("id"));

    static RequestFingerprints parts(WindowFingerprint.Recipe recipe, MediaType type, String body) throws Exception {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        MockServerHttpRequest request = MockServerHttpRequest
                .method(HttpMethod.POST, URI.create("http://gateway/api/orders/007?channel=app&timestamp=1700000000&b=x%20y"))
                .header("X-Tenant", "t1")
                .contentType(type)
                .remoteAddress(new InetSocketAddress("203.0.113.7", 40000))
                .body(body);
        return new RequestFingerprints(request, recipe, Map.of("id", "007"),
                new RequestBody(bytes, MessageDigest.getInstance("SHA-256").digest(bytes)), "p:alice");
    }

    @Test
    void theGatewayGivesTheWindowFingerprintPinnedInCore() throws Exception {
        String json = "{\"item\":\"phone\",\"quantity\":1}";
        assertThat(parts(DEFAULT, MediaType.APPLICATION_JSON, json).fingerprint("/api/orders/{id}").hex()).isEqualTo(PINNED_DEFAULT);
        assertThat(parts(NAMED, MediaType.APPLICATION_JSON, json).fingerprint("/api/orders/{id}").hex()).isEqualTo(PINNED_NAMED);
        assertThat(parts(DEFAULT, MediaType.APPLICATION_FORM_URLENCODED, "item=fresh+milk&note=a&timestamp=1")
                .fingerprint("/api/orders/{id}").hex()).isEqualTo(PINNED_FORM);
    }

    @Test
    void aReorderedJsonBodyOrReencodedFormIsTheSameRequest() throws Exception {
        assertThat(parts(DEFAULT, MediaType.APPLICATION_JSON, "{ \"quantity\": 1, \"item\": \"phone\" }")
                .fingerprint("/api/orders/{id}").hex()).isEqualTo(PINNED_DEFAULT);
        assertThat(parts(DEFAULT, MediaType.APPLICATION_FORM_URLENCODED, "timestamp=2&note=a&item=fresh%20milk")
                .fingerprint("/api/orders/{id}").hex()).isEqualTo(PINNED_FORM);
    }
}
