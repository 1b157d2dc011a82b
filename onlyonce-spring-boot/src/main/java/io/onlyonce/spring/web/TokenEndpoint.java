package io.onlyonce.spring.web;

import io.onlyonce.spring.PrincipalResolver;
import io.onlyonce.token.IssuedToken;
import io.onlyonce.token.TokenService;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /idempotency/tokens} (path from {@code onlyonce.token.path}): issues a one-time
 * token bound to the caller and an optional {@code scope} (query parameter or JSON body).
 * Answers 201 {@code {"token": "...", "expiresAt": "..."}}.
 */
@RestController
public class TokenEndpoint {

    /** Longest accepted scope. */
    static final int MAX_SCOPE = 100;

    private final TokenService tokens;
    private final PrincipalResolver principals;
    private final boolean principalRequired;

    public TokenEndpoint(TokenService tokens, PrincipalResolver principals, boolean principalRequired) {
        this.tokens = tokens;
        this.principals = principals;
        this.principalRequired = principalRequired;
    }

    /**
     * The token response.
     *
     * @param token the value to send back in the token header
     * @param expiresAt when the token stops being accepted
     */
    public record TokenResponse(String token, Instant expiresAt) {
    }

    /**
     * The optional request body.
     *
     * @param scope the operation the token is for; empty for tokens accepted by unscoped endpoints
     */
    public record TokenRequest(@Nullable String scope) {
    }

    @PostMapping(path = "${onlyonce.token.path:/idempotency/tokens}", produces = MediaType.APPLICATION_JSON_VALUE)
    @ResponseStatus(HttpStatus.CREATED)
    public TokenResponse issue(HttpServletRequest request,
            @RequestParam(name = "scope", required = false) @Nullable String scopeParameter,
            @RequestBody(required = false) @Nullable TokenRequest body) {
        String principal = principals.resolve(request);
        if (principal == null && principalRequired) {
            throw OnlyOnceRejection.problem(ProblemType.PRINCIPAL_REQUIRED);
        }
        String scope = scopeParameter != null ? scopeParameter : body != null && body.scope() != null ? body.scope() : "";
        if (scope.length() > MAX_SCOPE || scope.chars().anyMatch(c -> c < 0x20 || c == 0x7F)) {
            throw OnlyOnceRejection.problem(ProblemType.TOKEN_SCOPE_INVALID);
        }
        IssuedToken issued = tokens.issue(principal == null ? "" : principal, scope);
        return new TokenResponse(issued.value(), issued.expiresAt());
    }
}
