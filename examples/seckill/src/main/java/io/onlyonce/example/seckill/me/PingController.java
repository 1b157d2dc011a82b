package io.onlyonce.example.seckill.me;

import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /api/ping}: who the access token says the caller is, from the token alone (no database,
 * no Redis). A liveness check for a logged-in client, and the load bench's trivial authenticated
 * endpoint: everything a request pays before it reaches its business (security filters, token
 * validation, the servlet stack) and nothing else.
 */
@RestController
public class PingController {

    /**
     * The caller as the access token names it.
     *
     * @param username the token's subject
     */
    public record Pong(String username) {
    }

    @GetMapping("/api/ping")
    public Pong ping(@AuthenticationPrincipal Jwt jwt) {
        return new Pong(jwt.getSubject());
    }
}
