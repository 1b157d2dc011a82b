package io.onlyonce.example.gateway;

import java.nio.charset.StandardCharsets;
import javax.crypto.spec.SecretKeySpec;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.oauth2.core.DelegatingOAuth2TokenValidator;
import org.springframework.security.oauth2.jose.jws.MacAlgorithm;
import org.springframework.security.oauth2.jwt.JwtValidators;
import org.springframework.security.oauth2.jwt.NimbusReactiveJwtDecoder;
import org.springframework.security.oauth2.jwt.ReactiveJwtDecoder;
import org.springframework.security.web.server.SecurityWebFilterChain;

/**
 * The gateway as a resource server of the seckill service's access tokens: HS256 with the service's
 * own secret ({@code SECKILL_JWT_SECRET}), its issuer, not expired. A verified token makes its
 * subject the exchange's principal, which the de-dup window takes as the caller; an invalid one is
 * answered 401 here. Requests without a token pass on (login, the public pages): the service decides
 * what needs one.
 */
@Configuration(proxyBeanMethods = false)
class GatewaySecurity {

    static final int MIN_SECRET_BYTES = 32;

    @Bean
    ReactiveJwtDecoder jwtDecoder(@Value("${seckill.auth.jwt-secret:}") String secret,
            @Value("${seckill.auth.issuer}") String issuer) {
        if (secret.getBytes(StandardCharsets.UTF_8).length < MIN_SECRET_BYTES) {
            throw new IllegalStateException("SECKILL_JWT_SECRET (seckill.auth.jwt-secret) must be the service's secret, "
                    + "at least " + MIN_SECRET_BYTES + " bytes");
        }
        NimbusReactiveJwtDecoder decoder = NimbusReactiveJwtDecoder
                .withSecretKey(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"))
                .macAlgorithm(MacAlgorithm.HS256).build();
        decoder.setJwtValidator(new DelegatingOAuth2TokenValidator<>(JwtValidators.createDefaultWithIssuer(issuer)));
        return decoder;
    }

    @Bean
    SecurityWebFilterChain security(ServerHttpSecurity http) {
        return http.csrf(ServerHttpSecurity.CsrfSpec::disable)
                .httpBasic(ServerHttpSecurity.HttpBasicSpec::disable)
                .formLogin(ServerHttpSecurity.FormLoginSpec::disable)
                .authorizeExchange(exchanges -> exchanges.anyExchange().permitAll())
                .oauth2ResourceServer(server -> server.jwt(jwt -> { }))
                .build();
    }
}
