package io.onlyonce.example.seckill.auth;

import com.nimbusds.jose.jwk.source.ImmutableSecret;
import io.onlyonce.example.seckill.SeckillProperties;
import io.onlyonce.example.seckill.web.AppProblem;
import io.onlyonce.example.seckill.web.ProblemWriter;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.observation.SecurityObservationSettings;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.oauth2.core.DelegatingOAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2TokenValidator;
import org.springframework.security.oauth2.jose.jws.MacAlgorithm;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtClaimNames;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtEncoder;
import org.springframework.security.oauth2.jwt.JwtException;
import org.springframework.security.oauth2.jwt.JwtIssuerValidator;
import org.springframework.security.oauth2.jwt.JwtTimestampValidator;
import org.springframework.security.oauth2.jwt.MappedJwtClaimSetConverter;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;
import org.springframework.security.oauth2.jwt.NimbusJwtEncoder;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.access.AccessDeniedHandler;
import org.springframework.security.web.firewall.HttpFirewall;
import org.springframework.security.web.firewall.RequestRejectedHandler;
import org.springframework.security.web.firewall.StrictHttpFirewall;
import org.springframework.security.web.header.writers.DelegatingRequestMatcherHeaderWriter;
import org.springframework.security.web.header.writers.StaticHeadersWriter;
import org.springframework.security.web.servlet.util.matcher.PathPatternRequestMatcher;
import org.springframework.security.web.util.matcher.OrRequestMatcher;
import org.springframework.security.web.util.matcher.RequestMatcher;

/**
 * Every {@code /api} call needs a valid access token (Spring Security's OAuth2 resource server,
 * HS256 with {@code seckill.auth.jwt-secret}; {@code exp}, {@code sub} and a {@code uid} of an
 * existing user required), except the demo login and the payment platform's callback (which
 * carries its own HMAC signature). The OpenAPI document, Swagger UI, the web page, health and the
 * Prometheus scrape are open; health shows its components only to an operator's valid token (any
 * other token sent there is ignored). 401 and 403 are
 * problems like every other error, and so is a request the firewall refuses.
 */
@Configuration(proxyBeanMethods = false)
class SecurityConfiguration {

    /** The web page runs its own scripts and styles only: no inline code, no other origin, not in a frame. */
    static final String PAGE_POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
            + " connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

    @Bean
    SecretKey accessTokenKey(SeckillProperties properties) {
        return new SecretKeySpec(properties.auth().jwtSecret().getBytes(StandardCharsets.UTF_8), "HmacSHA256");
    }

    @Bean
    JwtEncoder jwtEncoder(SecretKey accessTokenKey) {
        return new NimbusJwtEncoder(new ImmutableSecret<>(accessTokenKey));
    }

    @Bean
    JwtDecoder jwtDecoder(SecretKey accessTokenKey, SeckillProperties properties, Clock clock, UserRepository users) {
        NimbusJwtDecoder decoder = NimbusJwtDecoder.withSecretKey(accessTokenKey).macAlgorithm(MacAlgorithm.HS256).build();
        // the issuer is a name, not a URL: the default conversion tries URI.toURL() on it and throws
        // and catches an exception on every request (6 % of GET /api/ping's CPU)
        decoder.setClaimSetConverter(MappedJwtClaimSetConverter.withDefaults(
                Map.of(JwtClaimNames.ISS, issuer -> issuer == null ? null : issuer.toString())));
        JwtTimestampValidator timestamps = new JwtTimestampValidator(Duration.ofSeconds(30));
        timestamps.setClock(clock);
        OAuth2TokenValidator<Jwt> validator = new DelegatingOAuth2TokenValidator<>(timestamps,
                new JwtIssuerValidator(properties.auth().issuer()), new AccessTokenClaims(users));
        decoder.setJwtValidator(validator);
        return new RememberingJwtDecoder(decoder, validator, 10_000, Duration.ofMinutes(5));
    }

    /**
     * No observation of the filter chain, the authentications and the authorizations: with only
     * {@code management.observations.enable.spring.security=false} Spring Security still wraps each
     * of its filters in an observation decorator that asks the registry's predicates on every request
     * (about 5 % of {@code GET /api/ping}'s CPU, docs/benchmarks.md); this setting leaves the filters
     * unwrapped. {@code http.server.requests} is not affected.
     */
    @Bean
    SecurityObservationSettings securityObservationSettings() {
        return SecurityObservationSettings.noObservations();
    }

    /**
     * Spring Security's strict firewall, with its default header-value rule decided without a regex,
     * applied to the content type too however it is read.
     */
    @Bean
    HttpFirewall httpFirewall() {
        HeaderValues allowed = new HeaderValues();
        StrictHttpFirewall firewall = new StrictHttpFirewall();
        firewall.setAllowedHeaderValues(allowed);
        return new ContentTypeFirewall(firewall, allowed);
    }

    /**
     * The answer to a request Spring Security's firewall refuses (an address with {@code ;},
     * {@code //}, {@code ..}, an encoded {@code /} or {@code %}, a backslash, a control character;
     * an unknown HTTP method; a header value with a control character): a problem that says so,
     * instead of the container's error page.
     */
    @Bean
    RequestRejectedHandler requestRejectedHandler(ProblemWriter problems) {
        return (request, response, rejection) -> {
            String reason = rejection.getMessage() == null ? "" : rejection.getMessage();
            problems.write(request, response, reason.contains("HTTP method") ? AppProblem.METHOD_NOT_ALLOWED
                    : reason.contains("header") ? AppProblem.MALFORMED_HTTP_REQUEST : AppProblem.REQUEST_REJECTED);
        };
    }

    @Bean
    SecurityFilterChain securityFilterChain(HttpSecurity http, ProblemWriter problems, JwtDecoder jwtDecoder)
            throws Exception {
        AuthenticationEntryPoint unauthorized = (request, response, failure) -> {
            // RFC 6750: no token is a bare challenge; a token that was refused is invalid_token, with
            // whether it expired and nothing of the decoder's own words
            AppProblem problem = AccessTokenFailures.problem(failure);
            response.setHeader("WWW-Authenticate", switch (problem) {
                case ACCESS_TOKEN_EXPIRED -> "Bearer error=\"invalid_token\", error_description=\"The access token expired\"";
                case ACCESS_TOKEN_INVALID -> "Bearer error=\"invalid_token\", error_description=\"The access token is not valid\"";
                default -> "Bearer";
            });
            problems.write(request, response, problem);
        };
        AccessDeniedHandler forbidden = (request, response, failure) -> problems.write(request, response, AppProblem.FORBIDDEN);
        RequestMatcher open = new OrRequestMatcher(
                // every method, so that a GET is answered 405 (with Allow: POST), not 401
                PathPatternRequestMatcher.pathPattern("/api/login"),
                PathPatternRequestMatcher.pathPattern("/api/payments/callback"),
                PathPatternRequestMatcher.pathPattern("/error"),
                PathPatternRequestMatcher.pathPattern(HttpMethod.GET, "/v3/api-docs"),
                PathPatternRequestMatcher.pathPattern(HttpMethod.GET, "/v3/api-docs/**"),
                PathPatternRequestMatcher.pathPattern(HttpMethod.GET, "/swagger-ui.html"),
                PathPatternRequestMatcher.pathPattern(HttpMethod.GET, "/swagger-ui/**"),
                EndpointRequest.to("health", "info", "prometheus"),
                // the web page (static, no data in it): its API calls carry the token; HEAD as GET
                PathPatternRequestMatcher.pathPattern(HttpMethod.GET, "/"),
                PathPatternRequestMatcher.pathPattern(HttpMethod.GET, "/index.html"),
                PathPatternRequestMatcher.pathPattern(HttpMethod.GET, "/order.html"),
                PathPatternRequestMatcher.pathPattern(HttpMethod.GET, "/assets/**"),
                PathPatternRequestMatcher.pathPattern(HttpMethod.GET, "/favicon.ico"),
                PathPatternRequestMatcher.pathPattern(HttpMethod.HEAD, "/"),
                PathPatternRequestMatcher.pathPattern(HttpMethod.HEAD, "/index.html"),
                PathPatternRequestMatcher.pathPattern(HttpMethod.HEAD, "/order.html"),
                PathPatternRequestMatcher.pathPattern(HttpMethod.HEAD, "/assets/**"));
        return http
                .csrf(csrf -> csrf.disable())
                .cors(cors -> cors.disable())
                .httpBasic(basic -> basic.disable())
                .formLogin(form -> form.disable())
                .logout(logout -> logout.disable())
                .requestCache(cache -> cache.disable())
                .headers(headers -> headers.addHeaderWriter(new DelegatingRequestMatcherHeaderWriter(new OrRequestMatcher(
                        PathPatternRequestMatcher.pathPattern(HttpMethod.GET, "/"),
                        PathPatternRequestMatcher.pathPattern(HttpMethod.GET, "/index.html"),
                        PathPatternRequestMatcher.pathPattern(HttpMethod.GET, "/order.html")),
                        new StaticHeadersWriter("Content-Security-Policy", PAGE_POLICY))))
                .sessionManagement(session -> session.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
                .authorizeHttpRequests(requests -> requests
                        .requestMatchers(open).permitAll()
                        .anyRequest().authenticated())
                .oauth2ResourceServer(server -> server
                        // health reads a valid token, if one is sent, to show an operator its components
                        .bearerTokenResolver(new BearerTokens(open, EndpointRequest.to("health"), token -> {
                            try {
                                jwtDecoder.decode(token);
                                return true;
                            } catch (JwtException refused) {
                                return false;
                            }
                        }))
                        .jwt(jwt -> { })
                        .authenticationEntryPoint(unauthorized)
                        .accessDeniedHandler(forbidden))
                .exceptionHandling(handling -> handling
                        .authenticationEntryPoint(unauthorized)
                        .accessDeniedHandler(forbidden))
                .build();
    }
}
