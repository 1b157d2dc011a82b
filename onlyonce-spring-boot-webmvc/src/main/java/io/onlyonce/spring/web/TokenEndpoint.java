package io.onlyonce.spring.web;

import io.onlyonce.spring.http.IdempotentRequests;
import io.onlyonce.spring.http.OnlyOnceRejection;
import io.onlyonce.spring.http.TokenLimits;
import io.onlyonce.spring.PrincipalResolver;
import io.onlyonce.token.IssuedToken;
import io.onlyonce.token.TokenService;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Duration;
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
 * Answers 201 {@code {"token": "...", "expiresAt": "..."}}; 429 with {@code Retry-After} once the
 * caller reached its {@link TokenLimits}; 400 for a missing principal or an invalid scope.
 */
@RestController
public class TokenEndpoint {

    /** Longest accepted scope. */
    static final int MAX_SCOPE = IdempotentRequests.MAX_TOKEN_SCOPE;

    private final TokenService tokens;
    private final PrincipalResolver principals;
    private final boolean principalRequired;
    private final TokenLimits limits;
    private final Duration unavailableRetryAfter;

    /**
     * @param unavailableRetryAfter the {@code Retry-After} of a 503 when the token store is down or full
     */
    public TokenEndpoint(TokenService tokens, PrincipalResolver principals, boolean principalRequired, TokenLimits limits,
            Duration unavailableRetryAfter) {
        this.tokens = tokens;
        this.principals = principals;
        this.principalRequired = principalRequired;
        this.limits = limits;
        this.unavailableRetryAfter = unavailableRetryAfter;
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
        try {
            return issueFor(request, scopeParameter, body);
        } catch (OnlyOnceRejection rejection) {
            IdempotentExchange.refuse(request, rejection);
            throw rejection;
        }
    }

    private TokenResponse issueFor(HttpServletRequest request, @Nullable String scopeParameter, @Nullable TokenRequest body) {
        String scope = scopeParameter != null ? scopeParameter : body != null && body.scope() != null ? body.scope() : "";
        IssuedToken issued = IdempotentRequests.issue(tokens, limits, principals.resolve(request), principalRequired, scope,
                unavailableRetryAfter);
        return new TokenResponse(issued.value(), issued.expiresAt());
    }
}
