package io.onlyonce.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.http.RequestFingerprint;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockPart;

/**
 * The business fingerprint Spring MVC computes for a multipart body: by its parts. WebFlux computes
 * the same ({@code ReactiveIdempotentHttpTest} in onlyonce-spring-boot-webflux pins the same hex), so
 * an upload retried against an instance on the other stack is still the same request.
 */
class DigestingRequestMultipartTest {

    /**
     * The fingerprint of {@code POST /orders/upload} with the parts {@code note=first} and the file
     * {@code report.bin} ({@code application/octet-stream}, the bytes of {@code "file content"}).
     */
    static final String UPLOAD_FINGERPRINT = "7ecbacef18a93474cc3d0379454c3062a3a4e3aa6f77fcd7ed2b6569c8c25eab";

    static String fingerprint(String note, String content) {
        MockHttpServletRequest request = new MockHttpServletRequest("POST", "/orders/upload");
        request.setContentType("multipart/form-data; boundary=b1");
        request.addPart(new MockPart("note", note.getBytes(StandardCharsets.UTF_8)));
        MockPart file = new MockPart("file", "report.bin", content.getBytes(StandardCharsets.UTF_8));
        file.getHeaders().setContentType(MediaType.APPLICATION_OCTET_STREAM);
        request.addPart(file);
        try (DigestingRequest digesting = new DigestingRequest(request, 1024 * 1024)) {
            return RequestFingerprint.of(digesting.getMethod(), digesting.getRequestURI(), digesting.getQueryString(),
                    digesting.body(), List.of()).hex();
        }
    }

    @Test
    void aMultipartBodyIsFingerprintedByItsParts() {
        assertThat(fingerprint("first", "file content")).isEqualTo(UPLOAD_FINGERPRINT);
        assertThat(fingerprint("second", "file content")).isNotEqualTo(UPLOAD_FINGERPRINT);
        assertThat(fingerprint("first", "other content")).isNotEqualTo(UPLOAD_FINGERPRINT);
    }
}
