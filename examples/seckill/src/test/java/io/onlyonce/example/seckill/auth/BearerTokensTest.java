package io.onlyonce.example.seckill.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.security.oauth2.core.OAuth2AuthenticationException;
import org.springframework.security.oauth2.server.resource.web.BearerTokenResolver;
import org.springframework.security.oauth2.server.resource.web.DefaultBearerTokenResolver;

class BearerTokensTest {

    private static final BearerTokenResolver SPRING = new DefaultBearerTokenResolver();
    private static final BearerTokenResolver OURS = new BearerTokens(request -> false);

    /** What a resolver answers: the token, "none", or "refused: <error code>". */
    private static String answer(BearerTokenResolver resolver, String header) {
        MockHttpServletRequest request = new MockHttpServletRequest("GET", "/api/ping");
        if (header != null) {
            request.addHeader("Authorization", header);
        }
        try {
            String token = resolver.resolve(request);
            return token == null ? "none" : "token " + token;
        } catch (OAuth2AuthenticationException e) {
            return "refused: " + e.getError().getErrorCode() + " " + e.getError().getDescription();
        }
    }

    @Test
    void decidesWhatSpringSecuritysDefaultResolverDecides() {
        List<String> headers = new ArrayList<>(List.of("Bearer abc.DEF-ghi_jkl~mno+pqr/stu", "bearer abc", "BEARER abc",
                "Bearer abc==", "Bearer abc=", "Bearer abc=d", "Bearer =", "Bearer ", "Bearer", "Bearerabc", "Bearer  abc",
                "Bearer abc ", " Bearer abc", "Bearer a b", "Bearer ab\tc", "Bearer é", "Basic dXNlcjpwYXNz", "", "Bear abc",
                "Bearer\tabc", "Bearer abc,def", "Bearer abc;", "Bearer ey.J0.eXA", "bEaReR x", "Bearers abc", "Bearer 🙂"));
        headers.add(null);
        Random random = new Random(7);
        String alphabet = "aZ09-._~+/= \t,;éB";
        for (int n = 0; n < 20_000; n++) {
            StringBuilder header = new StringBuilder(random.nextInt(3) == 0 ? "bearer" : "Bearer ");
            for (int i = random.nextInt(8); i > 0; i--) {
                header.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            headers.add(header.toString());
        }
        for (String header : headers) {
            assertThat(answer(OURS, header)).as("Authorization: [%s]", header).isEqualTo(answer(SPRING, header));
        }
        assertThat(answer(OURS, "Bearer abc.def")).isEqualTo("token abc.def");
        assertThat(answer(OURS, "Bearer a b")).startsWith("refused: invalid_token");
        assertThat(answer(OURS, "Basic dXNlcjpwYXNz")).isEqualTo("none");
    }

    @Test
    void onAnOpenEndpointNoTokenIsReadAtAll() {
        BearerTokens resolver = new BearerTokens(request -> "/api/login".equals(request.getRequestURI()));
        MockHttpServletRequest login = new MockHttpServletRequest("POST", "/api/login");
        login.addHeader("Authorization", "Bearer stale.token.here");
        MockHttpServletRequest malformed = new MockHttpServletRequest("POST", "/api/login");
        malformed.addHeader("Authorization", "Bearer a b");
        MockHttpServletRequest orders = new MockHttpServletRequest("GET", "/api/orders");
        orders.addHeader("Authorization", "Bearer stale.token.here");
        assertThat(resolver.resolve(login)).isNull();
        assertThat(resolver.resolve(malformed)).isNull();
        assertThat(resolver.resolve(orders)).isEqualTo("stale.token.here");
    }
}
