package io.onlyonce.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The breakers' state gauge and the background sample the store gauges read. */
class OperatorMetersTest {

    @Test
    void eachBreakerReadsZeroClosedOneOpenTwoHalfOpenAlsoOneAddedLater() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        CircuitBreakerRegistry breakers = CircuitBreakerRegistry.of(CircuitBreakerConfig.ofDefaults());
        CircuitBreaker store = breakers.circuitBreaker("onlyonce-idempotency");
        CircuitBreakerMeters.bind(breakers, registry);
        CircuitBreaker later = breakers.circuitBreaker("onlyonce-window");

        assertThat(state(registry, "onlyonce-idempotency")).isZero();
        store.transitionToOpenState();
        assertThat(state(registry, "onlyonce-idempotency")).isEqualTo(1);
        store.transitionToHalfOpenState();
        assertThat(state(registry, "onlyonce-idempotency")).isEqualTo(2);
        later.transitionToForcedOpenState();
        assertThat(state(registry, "onlyonce-window")).as("forced open is open").isEqualTo(1);
        later.transitionToDisabledState();
        assertThat(state(registry, "onlyonce-window")).as("a disabled breaker lets every call through").isZero();
    }

    @Test
    void aSampleIsThereWhileItsLastReadSucceededAndIsFresh() {
        AtomicLong now = new AtomicLong();
        AtomicBoolean failing = new AtomicBoolean();
        AtomicInteger reads = new AtomicInteger();
        AtomicInteger told = new AtomicInteger();
        PeriodicSample<Integer> sample = new PeriodicSample<>("test", Duration.ofMillis(100), () -> {
            if (failing.get()) {
                throw new IllegalStateException("store down");
            }
            return reads.incrementAndGet();
        }, value -> told.set(value), now::get);

        assertThat(sample.current()).as("never read").isEmpty();
        sample.readOnce();
        assertThat(sample.current()).contains(1);
        assertThat(told.get()).isEqualTo(1);
        failing.set(true);
        sample.readOnce();
        assertThat(sample.current()).as("the last read failed").isEmpty();
        assertThat(sample.gauge(value -> value)).as("what a gauge reads then").isNaN();
        failing.set(false);
        sample.readOnce();
        assertThat(sample.current()).contains(2);
        assertThat(sample.gauge(value -> value * 10)).isEqualTo(20);
        now.addAndGet(Duration.ofMillis(200).toNanos());
        assertThat(sample.current()).as("twice the interval").contains(2);
        now.incrementAndGet();
        assertThat(sample.current()).as("older than twice the interval").isEmpty();
    }

    private static double state(SimpleMeterRegistry registry, String breaker) {
        return registry.get(CircuitBreakerMeters.STATE).tag("breaker", breaker).gauge().value();
    }
}
