package io.onlyonce.example.seckill.auth;

import io.swagger.v3.oas.annotations.Operation;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /api/login}: the password-less login of the demo. Anyone may log in as any user name,
 * without a password, and gets an access token for it; the user id is made on first login. A real
 * service puts its identity provider here; everything behind the token stays as it is.
 *
 * <p>Open in demo mode only, unless {@code seckill.auth.password-less-login=true} opens it outside
 * demo mode too (test environments, benches: a warning is logged at start-up). Closed, the path
 * answers 404 like any other unknown path.
 */
@RestController
@Conditional(LoginController.Open.class)
public class LoginController {

    /**
     * Whether the login is open: {@code seckill.auth.password-less-login} (any boolean Spring reads:
     * true, false, on, off, yes, no), by default {@code seckill.demo.enabled}.
     */
    static final class Open extends SpringBootCondition {

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            Binder binder = Binder.get(context.getEnvironment());
            boolean demo = binder.bind("seckill.demo.enabled", Boolean.class).orElse(false);
            boolean open = binder.bind("seckill.auth.password-less-login", Boolean.class).orElse(demo);
            return open ? ConditionOutcome.match("the password-less login is open")
                    : ConditionOutcome.noMatch("the password-less login is closed outside demo mode");
        }
    }

    private final UserRepository users;
    private final AccessTokens tokens;
    private final Clock clock;

    public LoginController(UserRepository users, AccessTokens tokens, Clock clock) {
        this.users = users;
        this.tokens = tokens;
        this.clock = clock;
    }

    /**
     * The login request.
     *
     * @param username 1 to 32 letters, digits, '.', '_' or '-'; case-insensitive
     */
    public record LoginRequest(@NotBlank @Size(max = 32) @Pattern(regexp = "[A-Za-z0-9._-]*") String username) {
    }

    /**
     * The access token and who it is for.
     *
     * @param accessToken send as {@code Authorization: Bearer <accessToken>}
     * @param tokenType always {@code Bearer}
     * @param expiresIn seconds until the token expires
     * @param userId the numeric user id (business ids start with {@code u<userId>_})
     * @param username the normalised user name
     */
    public record LoginResponse(String accessToken, String tokenType, long expiresIn, long userId, String username) {
    }

    @PostMapping(path = "/api/login", consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(summary = "Password-less login: demo mode or seckill.auth.password-less-login only (test environments)",
            description = "Issues an access token for any user name, without a password. Closed (404) outside demo mode"
                    + " unless seckill.auth.password-less-login=true; a real service puts its identity provider here.")
    public LoginResponse login(@Valid @RequestBody LoginRequest request) {
        String username = request.username().toLowerCase(Locale.ROOT);
        long userId = users.idOf(username);
        AccessTokens.AccessToken token = tokens.issue(userId, username);
        long expiresIn = Math.max(0, Duration.between(clock.instant(), token.expiresAt()).toSeconds());
        return new LoginResponse(token.value(), "Bearer", expiresIn, userId, username);
    }
}
