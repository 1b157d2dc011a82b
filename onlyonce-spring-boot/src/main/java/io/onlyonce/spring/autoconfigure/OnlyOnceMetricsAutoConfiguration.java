package io.onlyonce.spring.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import io.onlyonce.spring.metrics.MicrometerOutcomeRecorder;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer binding: {@code onlyonce.requests} (layer, outcome, endpoint),
 * {@code onlyonce.store.calls} and {@code onlyonce.store.errors} (operation).
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
}
