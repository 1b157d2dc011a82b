package io.onlyonce.example.gateway;

import io.onlyonce.gateway.GatewayProblems;
import java.nio.charset.StandardCharsets;
import javax.crypto.spec.SecretKeySpec;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpHeaders;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.oauth2.core.DelegatingOAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2AuthenticationException;
import org.springframework.security.oauth2.core.OAuth2Error;
import org.springframework.security.oauth2.jose.jws.MacAlgorithm;
import org.springframework.security.oauth2.jwt.JwtValidationException;
import org.springframework.security.oauth2.jwt.JwtValidators;
import org.springframework.security.oauth2.jwt.NimbusReactiveJwtDecoder;
import org.springframework.security.oauth2.jwt.ReactiveJwtDecoder;
import org.springframework.security.oauth2.server.resource.web.server.authentication.ServerBearerTokenAuthenticationConverter;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.security.web.server.ServerAuthenticationEntryPoint;
import org.springframework.security.web.server.authentication.ServerAuthenticationConverter;
import org.springframework.security.web.server.authorization.ServerAccessDeniedHandler;
import org.springframework.security.web.server.savedrequest.NoOpServerRequestCache;
import org.springframework.security.web.server.util.matcher.ServerWebExchangeMatcher;
import org.springframework.security.web.server.util.matcher.ServerWebExchangeMatchers;
import reactor.core.publisher.Mono;

/**
 * The gateway as a resource server of the seckill service's access tokens: HS256 with the service's
 * own secret ({@code SECKILL_JWT_SECRET}), its issuer, not expired. A verified token makes its
 * subject the exchange's principal, which the de-dup window takes as the caller.
 *
 * <p>As the service decides it: every {@code /api} call needs a token except the login and the
 * payment platform's callback (which carries its own signature), where no token is read at all; the
 * web page needs none. A missing token is answered 401 {@code unauthorized} with a bare
 * {@code WWW-Authenticate: Bearer}; a refused one 401 {@code access-token-expired} or
 * {@code access-token-invalid} with {@code error="invalid_token"} and a plain description, never
 * the decoder's own words.
 */
@Configuration(proxyBeanMethods = false)
class GatewaySecurity {

    static final int MIN_SECRET_BYTES = 32;

    static final ServerWebExchangeMatcher API = ServerWebExchangeMatchers.pathMatchers("/api/**");
    /** The service's endpoints open without a token. */
    static final ServerWebExchangeMatcher OPEN = ServerWebExchangeMatchers.pathMatchers("/api/login", "/api/payments/callback");

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
    SecurityWebFilterChain security(ServerHttpSecurity http, GatewayProblems problems) {
        ServerAuthenticationEntryPoint unauthorized = (exchange, failure) -> {
            GatewayProblems.Type problem = problem(failure);
            exchange.getResponse().getHeaders().set(HttpHeaders.WWW_AUTHENTICATE, problem == GatewayProblemTypes.ACCESS_TOKEN_EXPIRED
                    ? "Bearer error=\"invalid_token\", error_description=\"The access token expired\""
                    : problem == GatewayProblemTypes.ACCESS_TOKEN_INVALID
                    ? "Bearer error=\"invalid_token\", error_description=\"The access token is not valid\""
                    : "Bearer");
            return problems.write(exchange, problem);
        };
        ServerAccessDeniedHandler forbidden = (exchange, denied) -> problems.write(exchange, GatewayProblemTypes.FORBIDDEN);
        ServerBearerTokenAuthenticationConverter bearer = new ServerBearerTokenAuthenticationConverter();
        // a token is read on the API only, so a stale one does not turn the login or the page into 401
        ServerAuthenticationConverter tokens = exchange -> OPEN.matches(exchange)
                .flatMap(open -> open.isMatch() ? Mono.empty() : API.matches(exchange))
                .flatMap(api -> api.isMatch() ? bearer.convert(exchange) : Mono.empty());
        return http.csrf(ServerHttpSecurity.CsrfSpec::disable)
                .httpBasic(ServerHttpSecurity.HttpBasicSpec::disable)
                .formLogin(ServerHttpSecurity.FormLoginSpec::disable)
                .logout(ServerHttpSecurity.LogoutSpec::disable)
                .requestCache(cache -> cache.requestCache(NoOpServerRequestCache.getInstance()))
                .authorizeExchange(exchanges -> exchanges
                        .matchers(OPEN).permitAll()
                        .matchers(API).authenticated()
                        .anyExchange().permitAll())
                .oauth2ResourceServer(server -> server
                        .bearerTokenConverter(tokens)
                        .authenticationEntryPoint(unauthorized)
                        .accessDeniedHandler(forbidden)
                        .jwt(jwt -> { }))
                .exceptionHandling(handling -> handling
                        .authenticationEntryPoint(unauthorized)
                        .accessDeniedHandler(forbidden))
                .build();
    }

    /** No token at all, an expired one (the timestamp validator's only "expired" error), or one that is not valid. */
    static GatewayProblems.Type problem(AuthenticationException failure) {
        if (!(failure instanceof OAuth2AuthenticationException)) {
            return GatewayProblemTypes.UNAUTHORIZED;
        }
        for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof JwtValidationException invalid) {
                for (OAuth2Error error : invalid.getErrors()) {
                    if (error.getDescription() != null && error.getDescription().startsWith("Jwt expired at")) {
                        return GatewayProblemTypes.ACCESS_TOKEN_EXPIRED;
                    }
                }
            }
        }
        return GatewayProblemTypes.ACCESS_TOKEN_INVALID;
    }
}
