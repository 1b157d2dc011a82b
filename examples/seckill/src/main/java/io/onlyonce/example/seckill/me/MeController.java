package io.onlyonce.example.seckill.me;

import io.onlyonce.example.seckill.auth.CurrentUser;
import io.onlyonce.example.seckill.web.ApiException;
import io.onlyonce.example.seckill.web.AppProblem;
import java.math.BigDecimal;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** {@code GET /api/me}: the caller, with the points the message layer credited for paid orders. */
@RestController
public class MeController {

    /**
     * The caller.
     *
     * @param userId the user id
     * @param username the user name
     * @param points the points: the sum of the amounts of the user's paid orders, once each
     */
    public record Me(long userId, String username, BigDecimal points) {
    }

    private final JdbcClient jdbc;

    public MeController(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    @GetMapping("/api/me")
    public Me me(@AuthenticationPrincipal Jwt jwt) {
        long userId = CurrentUser.of(jwt).id();
        return jdbc.sql("SELECT id, username, points FROM users WHERE id = ?").param(userId)
                .query((rs, n) -> new Me(rs.getLong("id"), rs.getString("username"), rs.getBigDecimal("points")))
                .optional()
                .orElseThrow(() -> new ApiException(AppProblem.UNAUTHORIZED));
    }
}
