package io.onlyonce.spring.autoconfigure;

import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.onlyonce.spring.dedup.DedupRules;
import io.onlyonce.spring.metrics.OnlyOnceStatistics;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/** The {@code onlyonce} Actuator endpoint, when Actuator is present and the endpoint exposed. */
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
}
