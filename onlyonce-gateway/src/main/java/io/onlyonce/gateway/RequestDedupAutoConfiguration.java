package io.onlyonce.gateway;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.micrometer.core.instrument.MeterRegistry;
import io.onlyonce.gateway.internal.LazyRedisConnection;
import io.onlyonce.redis.RedisStoreConfig;
import io.onlyonce.redis.RedisWindowStore;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.cloud.gateway.filter.factory.AbstractGatewayFilterFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Sets up the {@code RequestDedup} filter factory on Spring Cloud Gateway: the window store on Redis
 * ({@code onlyonce.gateway.redis-url}, connected on first use), the circuit breaker, the live rules,
 * Micrometer metrics when a registry is present and the Actuator endpoint {@code requestdedup}.
 * Every bean backs off when the application defines its own.
 */
@AutoConfiguration
@ConditionalOnClass(AbstractGatewayFilterFactory.class)
@ConditionalOnProperty(prefix = "onlyonce.gateway", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(RequestDedupProperties.class)
public class RequestDedupAutoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(RequestDedupAutoConfiguration.class);

    /** The name of the circuit breaker bean. */
    public static final String CIRCUIT_BREAKER = "onlyonceGatewayCircuitBreaker";

    @Bean
    @ConditionalOnMissingBean
    public RequestDedupRules requestDedupRules() {
        return new RequestDedupRules();
    }

    @Bean(name = CIRCUIT_BREAKER)
    @ConditionalOnMissingBean(name = CIRCUIT_BREAKER)
    public CircuitBreaker onlyonceGatewayCircuitBreaker(RequestDedupProperties properties) {
        RequestDedupProperties.CircuitBreaker settings = properties.circuitBreaker();
        CircuitBreaker breaker = CircuitBreaker.of("onlyonce-gateway", CircuitBreakerConfig.custom()
                .failureRateThreshold(settings.failureRateThreshold())
                .minimumNumberOfCalls(settings.minimumNumberOfCalls())
                .slidingWindowSize(settings.slidingWindowSize())
                .waitDurationInOpenState(settings.waitDurationInOpenState())
                .automaticTransitionFromOpenToHalfOpenEnabled(false)
                .build());
        breaker.getEventPublisher().onStateTransition(event ->
                log.warn("request de-dup window store circuit: {}", event.getStateTransition()));
        return breaker;
    }

    @Bean
    @ConditionalOnMissingBean
    public RequestDedupMetrics requestDedupMetrics() {
        return RequestDedupMetrics.NONE;
    }

    @Bean
    @ConditionalOnMissingBean
    public RequestDedupGatewayFilterFactory requestDedupGatewayFilterFactory(ReactiveWindowStore store,
            RequestDedupRules rules, ObjectProvider<CircuitBreaker> breakers, RequestDedupMetrics metrics,
            RequestDedupProperties properties) {
        CircuitBreaker breaker = breakers.stream().filter(b -> b.getName().equals("onlyonce-gateway")).findFirst()
                .orElseGet(() -> CircuitBreaker.ofDefaults("onlyonce-gateway"));
        return new RequestDedupGatewayFilterFactory(store, rules, breaker, metrics, properties.timeout(),
                properties.maxBodySize().toBytes(), properties.problemTypeBase(), properties.keyHeader());
    }

    /** The window store on Redis, unless the application has a {@link ReactiveWindowStore}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingBean(ReactiveWindowStore.class)
    static class RedisStoreConfiguration {

        @Bean(destroyMethod = "close")
        LazyRedisConnection onlyonceGatewayRedisConnection(RequestDedupProperties properties) {
            // the filter's budget decides; Lettuce's own timeout only ends commands nobody waits for
            return new LazyRedisConnection(properties.redisUrl(), properties.timeout().plus(Duration.ofSeconds(1)));
        }

        @Bean
        ReactiveWindowStore reactiveWindowStore(LazyRedisConnection connection, RequestDedupProperties properties) {
            return new ReactiveRedisWindowStore(RedisWindowStore.of(connection.connection(),
                    new RedisStoreConfig(properties.keyPrefix(), RedisStoreConfig.DEFAULT_TOKEN_SHARDS, properties.timeout())));
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    static class MicrometerConfiguration {

        /** Micrometer's when the application has a registry; nested classes are read first, so this wins. */
        @Bean
        @ConditionalOnMissingBean
        RequestDedupMetrics requestDedupMetrics(ObjectProvider<MeterRegistry> registry) {
            MeterRegistry meters = registry.getIfAvailable();
            return meters == null ? RequestDedupMetrics.NONE : new MicrometerRequestDedupMetrics(meters);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(Endpoint.class)
    static class EndpointConfiguration {

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnAvailableEndpoint
        RequestDedupEndpoint requestDedupEndpoint(RequestDedupRules rules) {
            return new RequestDedupEndpoint(rules);
        }
    }
}
