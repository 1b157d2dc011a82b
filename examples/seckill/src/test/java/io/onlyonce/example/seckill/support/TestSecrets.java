package io.onlyonce.example.seckill.support;

import java.util.List;
import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * Secrets for a service started outside demo mode (any profile given), which refuses to start
 * without real ones: at least 32 bytes, not the published demo values. With them, the
 * password-less {@code POST /api/login} is opened ({@code seckill.auth.password-less-login=true}):
 * the tests' identity provider, closed by default outside demo mode.
 */
public final class TestSecrets {

    public static final String JWT = "test-jwt-secret-of-the-seckill-integration-tests";
    public static final String PAYMENT = "test-payment-secret-of-the-seckill-integration-tests";
    public static final String TOKEN = "test-token-secret-of-the-seckill-integration-tests";

    private TestSecrets() {
    }

    /** The three secrets as properties. */
    public static void register(DynamicPropertyRegistry registry) {
        registry.add("seckill.auth.jwt-secret", () -> JWT);
        registry.add("seckill.payment.secret", () -> PAYMENT);
        registry.add("onlyonce.token.secrets", () -> TOKEN);
        registry.add("seckill.auth.password-less-login", () -> "true");
    }

    /** The three secrets as command-line arguments. */
    public static List<String> args() {
        return List.of("--seckill.auth.jwt-secret=" + JWT, "--seckill.payment.secret=" + PAYMENT,
                "--onlyonce.token.secrets=" + TOKEN, "--seckill.auth.password-less-login=true");
    }
}
