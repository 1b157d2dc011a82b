package io.onlyonce.example.seckill.auth;

import jakarta.servlet.http.HttpServletRequest;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.security.oauth2.core.OAuth2AuthenticationException;
import org.springframework.security.oauth2.server.resource.BearerTokenErrors;
import org.springframework.security.oauth2.server.resource.web.BearerTokenResolver;
import org.springframework.security.web.util.matcher.RequestMatcher;

/**
 * The access token of a request, from its {@code Authorization: Bearer} header only, decided without
 * a regular expression: exactly what Spring Security's {@code DefaultBearerTokenResolver} decides
 * with its defaults (no token in the query or the form). A header that does not start with
 * {@code Bearer} (any case) names no token; one that does and is not {@code Bearer <token68>}
 * ({@code [A-Za-z0-9-._~+/]+=*}) is refused as malformed. The pattern's matcher was about 5 % of
 * {@code GET /api/ping}'s CPU (docs/benchmarks.md); {@code BearerTokensTest} compares both.
 *
 * <p>On the endpoints open without login ({@code open}: the login, the payment callback, the API
 * documents, health) no token is read, so a client's stale or foreign token does not turn them into
 * 401; except on those where a token may show more ({@code optional}: health, whose components an
 * operator sees), where a token is read if it is {@code accepted} and ignored otherwise.
 */
final class BearerTokens implements BearerTokenResolver {

    private static final String SCHEME = "bearer";

    private final RequestMatcher open;
    private final RequestMatcher optional;
    private final Predicate<String> accepted;

    BearerTokens(RequestMatcher open) {
        this(open, request -> false, token -> false);
    }

    BearerTokens(RequestMatcher open, RequestMatcher optional, Predicate<String> accepted) {
        this.open = open;
        this.optional = optional;
        this.accepted = accepted;
    }

    @Override
    public @Nullable String resolve(HttpServletRequest request) {
        boolean mayRead = optional.matches(request);
        if (!mayRead && open.matches(request)) {
            return null;
        }
        String header = request.getHeader(HttpHeaders.AUTHORIZATION);
        if (header == null || !header.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
            return null;
        }
        if (!wellFormed(header)) {
            if (mayRead) {
                return null;
            }
            throw new OAuth2AuthenticationException(BearerTokenErrors.invalidToken("Bearer token is malformed"));
        }
        String token = header.substring(SCHEME.length() + 1);
        return !mayRead || accepted.test(token) ? token : null;
    }

    /** {@code Bearer <token68>}: one space, then at least one token character, then only '='. */
    static boolean wellFormed(String header) {
        int start = SCHEME.length() + 1;
        if (header.length() <= start || header.charAt(start - 1) != ' ') {
            return false;
        }
        int i = start;
        while (i < header.length() && tokenChar(header.charAt(i))) {
            i++;
        }
        if (i == start) {
            return false;
        }
        while (i < header.length() && header.charAt(i) == '=') {
            i++;
        }
        return i == header.length();
    }

    private static boolean tokenChar(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                || c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/';
    }
}
