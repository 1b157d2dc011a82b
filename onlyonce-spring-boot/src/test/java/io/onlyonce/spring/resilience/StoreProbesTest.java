package io.onlyonce.spring.resilience;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.onlyonce.StoreUnavailableException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/** The breakers of one store open together, and a probe that gets an answer closes them all. */
@ExtendWith(OutputCaptureExtension.class)
class StoreProbesTest {

    private static CircuitBreaker breaker(String name) {
        CircuitBreaker breaker = CircuitBreaker.of(name, CircuitBreakerConfig.custom().slidingWindowSize(2)
                .minimumNumberOfCalls(2).permittedNumberOfCallsInHalfOpenState(2).waitDurationInOpenState(Duration.ofHours(1))
                .recordExceptions(StoreUnavailableException.class).build());
        StoreStateLog.attach(breaker);
        return breaker;
    }

    private static void fail(CircuitBreaker breaker) {
        assertThatThrownBy(() -> breaker.executeRunnable(() -> {
            throw new StoreUnavailableException("claim", new IllegalStateException("Redis paused"));
        })).isInstanceOf(StoreUnavailableException.class);
    }

    @Test
    void whenOneBreakerOpensItsSiblingsOpenAndACallOfASiblingThatWasInFlightIsRecordedWithoutAnError(CapturedOutput output) {
        CircuitBreaker idempotency = breaker("onlyonce-idempotency");
        CircuitBreaker tokens = breaker("onlyonce-token");
        AtomicBoolean answers = new AtomicBoolean(false);
        try (StoreProbes probes = new StoreProbes(answers::get, List.of(idempotency, tokens), Duration.ofHours(1))) {
            // a token call began while its breaker was closed
            assertThat(tokens.tryAcquirePermission()).isTrue();
            tokens.onError(1, TimeUnit.MILLISECONDS, new StoreUnavailableException("consume", new IllegalStateException("x")));

            fail(idempotency);
            fail(idempotency);
            assertThat(idempotency.getState()).isEqualTo(CircuitBreaker.State.OPEN);
            assertThat(tokens.getState()).isEqualTo(CircuitBreaker.State.OPEN);
            assertThat(output).contains("OnlyOnce token store shares its server with a store found unavailable:"
                    + " circuit breaker OPEN");

            // the token call's own failure then reaches its threshold too: the breaker opens again, and
            // every call recorded afterwards is counted (resilience4j gives a forced-open breaker an empty
            // window that such a transition would keep, and the next recorded failure divided by zero)
            tokens.transitionToOpenState();
            tokens.onError(1, TimeUnit.MILLISECONDS, new StoreUnavailableException("consume", new IllegalStateException("y")));
            assertThatThrownBy(() -> tokens.executeRunnable(() -> { })).isInstanceOf(CallNotPermittedException.class);

            probes.round();
            assertThat(idempotency.getState()).as("no answer: still open").isEqualTo(CircuitBreaker.State.OPEN);
            answers.set(true);
            probes.round();
            assertThat(idempotency.getState()).isEqualTo(CircuitBreaker.State.CLOSED);
            assertThat(tokens.getState()).isEqualTo(CircuitBreaker.State.CLOSED);
        }
    }
}
