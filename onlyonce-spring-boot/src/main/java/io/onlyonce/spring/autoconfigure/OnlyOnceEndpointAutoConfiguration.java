package io.onlyonce.spring.autoconfigure;

import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.onlyonce.spring.http.DedupRules;
import io.onlyonce.spring.metrics.OnlyOnceStatistics;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.token.TokenStore;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code onlyonce} Actuator endpoint, when Actuator is present and the endpoint exposed, and the
 * {@code onlyonce} health indicator.
 */
@AutoConfiguration(after = OnlyOnceAutoConfiguration.class)
@ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
@ConditionalOnBooleanProperty(name = "onlyonce.enabled", matchIfMissing = true)
public class OnlyOnceEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    OnlyOnceEndpoint onlyOnceEndpoint(OnlyOnceProperties properties, OnlyOnceStatistics statistics,
            CircuitBreakerRegistry breakers, ObjectProvider<DedupRules> rules) {
        return new OnlyOnceEndpoint(properties, statistics, breakers, rules.getIfAvailable());
    }

    /**
     * The {@code onlyonce} health indicator (off with {@code management.health.onlyonce.enabled=false}).
     * Put it in the readiness group with
     * {@code management.endpoint.health.group.readiness.include=readinessState,onlyonce}.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    @ConditionalOnEnabledHealthIndicator("onlyonce")
    static class HealthIndicatorConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "onlyonceHealthIndicator")
        HealthIndicator onlyonceHealthIndicator(ObjectProvider<IdempotencyStore> idempotency,
                ObjectProvider<TokenStore> tokens, OnlyOnceProperties properties, CircuitBreakerRegistry breakers) {
            IdempotencyStore store = OnlyOnceAutoConfiguration.requireStore(idempotency, IdempotencyStore.class, properties);
            TokenStore tokenStore = properties.token().enabled() ? tokens.getIfAvailable() : null;
            return new OnlyOnceHealthIndicator(OnlyOnceAutoConfiguration.guardedIdempotency(store, properties, breakers),
                    tokenStore == null ? null : OnlyOnceAutoConfiguration.guardedTokens(tokenStore, properties, breakers));
        }
    }
}
