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
    static final String PINNED_DEFAULT = "891260d80d8f8b15e2785d451f6021c052b146a996e0ede9dbd1057a28c91fcd";
    static final String PINNED_NAMED = "0829f3c8a3f6c3b72409af0338395691ea0431c6c6251e1686e7ebf9f5a6649a";
    static final String PINNED_FORM = "11a7dbcc489d3fadb7f7eb15e3074971de9290cb6caab52d4c6fa40bcc894926";

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
        assertThat(parts(DEFAULT, MediaType.APPLICATION_JSON, json).fingerprint("orders").hex()).isEqualTo(PINNED_DEFAULT);
        assertThat(parts(NAMED, MediaType.APPLICATION_JSON, json).fingerprint("orders").hex()).isEqualTo(PINNED_NAMED);
        assertThat(parts(DEFAULT, MediaType.APPLICATION_FORM_URLENCODED, "item=fresh+milk&note=a&timestamp=1")
                .fingerprint("orders").hex()).isEqualTo(PINNED_FORM);
    }

    @Test
    void aReorderedJsonBodyOrReencodedFormIsTheSameRequest() throws Exception {
        assertThat(parts(DEFAULT, MediaType.APPLICATION_JSON, "{ \"quantity\": 1, \"item\": \"phone\" }")
                .fingerprint("orders").hex()).isEqualTo(PINNED_DEFAULT);
        assertThat(parts(DEFAULT, MediaType.APPLICATION_FORM_URLENCODED, "timestamp=2&note=a&item=fresh%20milk")
                .fingerprint("orders").hex()).isEqualTo(PINNED_FORM);
    }
}
