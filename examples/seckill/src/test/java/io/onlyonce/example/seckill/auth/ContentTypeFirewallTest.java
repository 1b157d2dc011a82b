package io.onlyonce.example.seckill.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.security.web.firewall.FirewalledRequest;
import org.springframework.security.web.firewall.RequestRejectedException;
import org.springframework.security.web.firewall.StrictHttpFirewall;

class ContentTypeFirewallTest {

    private final ContentTypeFirewall firewall = new ContentTypeFirewall(new StrictHttpFirewall(), new HeaderValues());

    @Test
    void refusesAControlCharacterInTheContentTypeHoweverItIsRead() {
        for (String control : new String[] {"\u0001", "\u0085", "\u007f"}) {
            FirewalledRequest request = firewall.getFirewalledRequest(post("application/json; charset=utf" + control + "8"));
            assertThatThrownBy(request::getContentType).as("getContentType, %04x", (int) control.charAt(0))
                    .isInstanceOf(RequestRejectedException.class).hasMessageContaining("header");
            assertThatThrownBy(() -> request.getHeader("Content-Type")).as("getHeader, %04x", (int) control.charAt(0))
                    .isInstanceOf(RequestRejectedException.class);
        }
    }

    @Test
    void refusesASecondContentTypeLineWhateverItHolds() {
        HttpServletRequest hidden = twoLines("application/json", "application/json; charset=utf\u00858");
        assertThat(hidden.getContentType()).as("what getContentType() alone sees").isEqualTo("application/json");
        assertThatThrownBy(firewall.getFirewalledRequest(hidden)::getContentType).isInstanceOf(RequestRejectedException.class)
                .hasMessageContaining("header");
        FirewalledRequest request = firewall.getFirewalledRequest(twoLines("application/json", "application/json"));
        assertThatThrownBy(request::getContentType).isInstanceOf(RequestRejectedException.class)
                .hasMessageContaining("more than once");
        assertThatThrownBy(request::getContentType).as("asked again, refused again").isInstanceOf(RequestRejectedException.class);
    }

    @Test
    void passesAPlainContentTypeAndNoneAndStillChecksTheRest() {
        assertThat(firewall.getFirewalledRequest(post("application/json; charset=UTF-8")).getContentType())
                .isEqualTo("application/json; charset=UTF-8");
        assertThat(firewall.getFirewalledRequest(post(null)).getContentType()).isNull();
        MockHttpServletRequest traversal = post("application/json");
        traversal.setRequestURI("/api/..;/orders");
        assertThatThrownBy(() -> firewall.getFirewalledRequest(traversal)).isInstanceOf(RequestRejectedException.class);
    }

    /** Two {@code Content-Type} lines, as Tomcat hands them over (the mock keeps one). */
    private static HttpServletRequest twoLines(String first, String second) {
        return new HttpServletRequestWrapper(post(first)) {
            @Override
            public Enumeration<String> getHeaders(String name) {
                return "Content-Type".equalsIgnoreCase(name) ? Collections.enumeration(List.of(first, second)) : super.getHeaders(name);
            }
        };
    }

    private static MockHttpServletRequest post(String contentType) {
        MockHttpServletRequest request = new MockHttpServletRequest("POST", "/api/orders");
        if (contentType != null) {
            request.addHeader("Content-Type", contentType);
        }
        return request;
    }
}
