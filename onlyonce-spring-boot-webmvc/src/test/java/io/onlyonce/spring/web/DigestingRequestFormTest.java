package io.onlyonce.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.http.RequestFingerprint;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;

/**
 * The business fingerprint Spring MVC computes for a form: by its parameters, the query string's
 * and the body's. WebFlux computes the same ({@code ReactiveIdempotentHttpTest} in
 * onlyonce-spring-boot-webflux pins the same hex), so a form retried against an instance on the
 * other stack is still the same request.
 */
class DigestingRequestFormTest {

    /** The fingerprint of {@code POST /orders/form?channel=app} with the form {@code item=fresh+milk&note=a}. */
    static final String FORM_FINGERPRINT = "a6d350f4cf13276b2c5b436ae3c35fa507ac319e3980f296c062fcdcb792d1cf";

    static String fingerprint(String form) {
        MockHttpServletRequest request = new MockHttpServletRequest("POST", "/orders/form");
        request.setQueryString("channel=app");
        request.setContentType("application/x-www-form-urlencoded");
        request.setContent(form.getBytes(StandardCharsets.UTF_8));
        try (DigestingRequest digesting = new DigestingRequest(request, 1024 * 1024)) {
            return RequestFingerprint.of(digesting.getMethod(), digesting.getRequestURI(), digesting.getQueryString(),
                    digesting.body(), List.of()).hex();
        }
    }

    @Test
    void aFormIsFingerprintedByItsParameters() {
        assertThat(fingerprint("item=fresh+milk&note=a")).isEqualTo(FORM_FINGERPRINT);
        assertThat(fingerprint("note=a&item=fresh%20milk")).isEqualTo(FORM_FINGERPRINT);
        assertThat(fingerprint("item=sour+milk&note=a")).isNotEqualTo(FORM_FINGERPRINT);
    }
}
