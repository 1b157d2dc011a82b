package io.onlyonce.example.webflux;

import io.onlyonce.spring.reactive.OnlyOnceHandlerFilters;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.userdetails.MapReactiveUserDetailsService;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;

/** A payment service on WebFlux: payments through an annotated controller, refunds through a functional route. */
@SpringBootApplication
public class WebfluxServiceApplication {

    public static void main(String[] args) {
        SpringApplication.run(WebfluxServiceApplication.class, args);
    }

    @Bean
    SecurityWebFilterChain security(ServerHttpSecurity http) {
        return http.csrf(ServerHttpSecurity.CsrfSpec::disable)
                .authorizeExchange(exchanges -> exchanges.anyExchange().authenticated())
                .httpBasic(basic -> { })
                .build();
    }

    /** Two users for the demo; passwords are {@code <name>-pw}. */
    @Bean
    MapReactiveUserDetailsService users() {
        return new MapReactiveUserDetailsService(
                User.withUsername("alice").password("{noop}alice-pw").roles("USER").build(),
                User.withUsername("bob").password("{noop}bob-pw").roles("USER").build());
    }

    /** {@code POST /refunds}: a functional route, made idempotent by OnlyOnce's handler filter. */
    @Bean
    RouterFunction<ServerResponse> refundRoutes(OnlyOnceHandlerFilters onlyOnce, Ledger ledger) {
        return RouterFunctions.route()
                .POST("/refunds", request -> request.bodyToMono(RefundRequest.class)
                        .flatMap(refund -> ledger.refund(refund))
                        .flatMap(refund -> ServerResponse.status(201).header("Location", "/refunds/" + refund.id())
                                .bodyValue(refund)))
                .filter(onlyOnce.idempotent())
                .build();
    }
}
