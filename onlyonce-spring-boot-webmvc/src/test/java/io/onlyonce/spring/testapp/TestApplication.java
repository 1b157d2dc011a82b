package io.onlyonce.spring.testapp;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.onlyonce.testing.MutableClock;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.UUID;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * A small order service protected by OnlyOnce, used by the HTTP tests. Users alice and bob (HTTP
 * Basic). Its clock stands still until a test moves it, so leases, retention and token expiry are
 * tested without waiting.
 */
@SpringBootApplication
public class TestApplication {

    /** The request id header set by {@link #requestIdFilter()}. */
    public static final String REQUEST_ID = "X-Request-ID";

    /** This instance's clock; {@code test.clock-offset} sets it apart from the others' (another machine). */
    @Bean
    MutableClock clock(@Value("${test.clock-offset:0s}") java.time.Duration offset) {
        MutableClock clock = MutableClock.startingNow();
        clock.advance(offset);
        return clock;
    }

    @Bean
    SimpleMeterRegistry meterRegistry() {
        return new SimpleMeterRegistry();
    }

    @Bean
    InMemoryUserDetailsManager users() {
        return new InMemoryUserDetailsManager(
                User.withUsername("alice").password("{noop}alice-pw").roles("USER").build(),
                User.withUsername("bob").password("{noop}bob-pw").roles("USER").build());
    }

    /**
     * {@code X-Request-ID}, as services set it in their outermost filter: the caller's, or a new one
     * per request. It belongs to each request, so a replay must carry its own.
     */
    @Bean
    FilterRegistrationBean<OncePerRequestFilter> requestIdFilter() {
        FilterRegistrationBean<OncePerRequestFilter> registration = new FilterRegistrationBean<>(new OncePerRequestFilter() {
            @Override
            protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
                    throws ServletException, IOException {
                String id = request.getHeader(REQUEST_ID);
                response.setHeader(REQUEST_ID, id != null ? id : UUID.randomUUID().toString());
                chain.doFilter(request, response);
            }
        });
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
        return registration;
    }

    @Bean
    SecurityFilterChain security(HttpSecurity http) throws Exception {
        return http
                .csrf(csrf -> csrf.disable())
                .authorizeHttpRequests(a -> a.requestMatchers("/public/**", "/error", "/actuator/**").permitAll()
                        .anyRequest().authenticated())
                .httpBasic(Customizer.withDefaults())
                .build();
    }
}
