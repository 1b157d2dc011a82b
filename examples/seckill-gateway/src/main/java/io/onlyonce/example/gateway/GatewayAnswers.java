package io.onlyonce.example.gateway;

import io.onlyonce.gateway.GatewayProblems;
import io.onlyonce.gateway.RequestDedupProperties;
import java.net.ConnectException;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.security.web.server.firewall.ServerExchangeRejectedHandler;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.server.WebExceptionHandler;
import reactor.core.publisher.Mono;

/**
 * Every answer the gateway writes itself is a problem in English or Chinese: an address no route
 * takes (404), a method a route does not take (405), an address the firewall refuses ({@code ..},
 * an encoded {@code /} or a backslash: 400), no instance answering (503), anything else that fails
 * (500). Nothing of the failure itself (class, message, stack) reaches the client; a 5xx is logged.
 */
@Configuration(proxyBeanMethods = false)
class GatewayAnswers {

    private static final Logger log = LoggerFactory.getLogger(GatewayAnswers.class);

    @Bean
    GatewayProblems gatewayProblems(@Value("${onlyonce.gateway.problem-type-base:urn:onlyonce:problem:}") String typeBase) {
        return new GatewayProblems(typeBase, List.of("messages"));
    }

    /** Ahead of Spring Boot's error handler (order -1), which would answer its own JSON. */
    @Bean
    @Order(-2)
    WebExceptionHandler problemAnswers(GatewayProblems problems, RequestDedupProperties properties) {
        return (exchange, failure) -> {
            if (exchange.getResponse().isCommitted()) {
                return Mono.error(failure);
            }
            int status = failure instanceof ResponseStatusException answered ? answered.getStatusCode().value() : 500;
            if (failure instanceof ResponseStatusException answered) {
                answered.getHeaders().forEach((name, values) -> exchange.getResponse().getHeaders().addAll(name, values));
            }
            if (unreachable(failure)) {
                status = 503;
            }
            if (status >= 500) {
                log.warn("{} {} answered {}: {}", exchange.getRequest().getMethod(), exchange.getRequest().getPath(), status,
                        failure.toString());
            }
            return switch (status) {
                case 404 -> problems.write(exchange, GatewayProblemTypes.NOT_FOUND);
                case 405 -> problems.write(exchange, GatewayProblemTypes.METHOD_NOT_ALLOWED);
                case 413 -> problems.write(exchange, GatewayProblems.PAYLOAD_TOO_LARGE,
                        Long.toString(properties.maxBodySize().toBytes()));
                case 415 -> problems.write(exchange, GatewayProblemTypes.UNSUPPORTED_MEDIA_TYPE);
                case 502, 503, 504 -> problems.write(exchange, GatewayProblemTypes.SERVICE_UNAVAILABLE);
                default -> problems.write(exchange, status >= 500 ? GatewayProblemTypes.INTERNAL_ERROR
                        : GatewayProblemTypes.MALFORMED_REQUEST);
            };
        };
    }

    /**
     * The answer to a request Spring Security's firewall refuses: an unknown HTTP method, a header
     * with a control character, or an address with {@code ..}, {@code //}, {@code ;}, an encoded
     * {@code /}, {@code %} or {@code .}, a backslash.
     */
    @Bean
    ServerExchangeRejectedHandler exchangeRejectedHandler(GatewayProblems problems) {
        return (exchange, rejection) -> {
            String reason = rejection.getMessage() == null ? "" : rejection.getMessage();
            return problems.write(exchange, reason.contains("HTTP method") ? GatewayProblemTypes.METHOD_NOT_ALLOWED
                    : reason.contains("header") ? GatewayProblemTypes.MALFORMED_HTTP_REQUEST
                    : GatewayProblemTypes.REQUEST_REJECTED);
        };
    }

    /** Whether no instance could be reached: a refused connection or a timeout on the way to it. */
    private static boolean unreachable(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof ConnectException || cause instanceof TimeoutException) {
                return true;
            }
        }
        return false;
    }
}
