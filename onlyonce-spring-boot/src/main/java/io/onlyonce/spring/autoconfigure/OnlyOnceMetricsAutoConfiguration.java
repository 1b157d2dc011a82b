package io.onlyonce.spring.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.onlyonce.spring.metrics.CircuitBreakerMeters;
import io.onlyonce.spring.metrics.MicrometerOutcomeRecorder;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer binding: {@code onlyonce.requests} (layer, outcome, endpoint),
 * {@code onlyonce.store.calls} and {@code onlyonce.store.errors} (operation), and
 * {@code onlyonce.store.circuit.state} (breaker). The outbox's gauges are bound with the message
 * layer ({@code io.onlyonce.spring.messaging.autoconfigure.OnlyOnceMessagingAutoConfiguration},
 * in {@code onlyonce-spring-boot-messaging}).
 */
@AutoConfiguration(
        before = OnlyOnceAutoConfiguration.class,
        afterName = {
            "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
            // Spring Boot 3's names of the same
            "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration"
        })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "onlyonce.enabled", matchIfMissing = true)
public class OnlyOnceMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    MicrometerOutcomeRecorder onlyOnceMicrometerRecorder(MeterRegistry registry) {
        return new MicrometerOutcomeRecorder(registry);
    }

    /** The store breakers' states ({@link CircuitBreakerMeters}), once every bean exists. */
    @Bean
    @ConditionalOnMissingBean(name = "onlyOnceCircuitBreakerMeters")
    SmartInitializingSingleton onlyOnceCircuitBreakerMeters(ObjectProvider<CircuitBreakerRegistry> breakers,
            MeterRegistry registry) {
        return () -> breakers.ifAvailable(b -> CircuitBreakerMeters.bind(b, registry));
    }
}
