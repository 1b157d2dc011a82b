package io.onlyonce.gateway.support;

import java.nio.charset.StandardCharsets;
import javax.crypto.spec.SecretKeySpec;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.oauth2.jose.jws.MacAlgorithm;
import org.springframework.security.oauth2.jwt.NimbusReactiveJwtDecoder;
import org.springframework.security.oauth2.jwt.ReactiveJwtDecoder;
import org.springframework.security.web.server.SecurityWebFilterChain;

/**
 * A gateway as an application would run it: Spring Cloud Gateway, the {@code RequestDedup} filter
 * from the auto-configuration, and a resource server that verifies HS256 access tokens with
 * {@link #JWT_SECRET}, so the exchange's principal is the token's subject. Requests without a token
 * pass anonymously; an invalid token is answered 401.
 */
@SpringBootApplication
public class TestGatewayApplication {

    public static final String JWT_SECRET = "test-jwt-secret-of-the-gateway-module-tests-0123456789";

    @Bean
    ReactiveJwtDecoder jwtDecoder() {
        return NimbusReactiveJwtDecoder.withSecretKey(new SecretKeySpec(JWT_SECRET.getBytes(StandardCharsets.UTF_8),
                "HmacSHA256")).macAlgorithm(MacAlgorithm.HS256).build();
    }

    @Bean
    SecurityWebFilterChain security(ServerHttpSecurity http) {
        return http.csrf(ServerHttpSecurity.CsrfSpec::disable)
                .authorizeExchange(exchanges -> exchanges.anyExchange().permitAll())
                .oauth2ResourceServer(server -> server.jwt(jwt -> { }))
                .build();
    }
}
