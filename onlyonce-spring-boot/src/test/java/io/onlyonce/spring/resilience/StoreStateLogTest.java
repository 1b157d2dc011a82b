package io.onlyonce.spring.resilience;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.onlyonce.StoreUnavailableException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/** What an operator reads when a store fails: one WARN when the breaker opens, every failing or refused call at DEBUG. */
@ExtendWith(OutputCaptureExtension.class)
class StoreStateLogTest {

    @Test
    void aFailingCallAndACallTheOpenBreakerRefusesEachLogOneDebugLineWithoutAStackTrace(CapturedOutput output) {
        Logger logger = (Logger) LoggerFactory.getLogger(StoreStateLog.class);
        Level before = logger.getLevel();
        logger.setLevel(Level.DEBUG);
        try {
            CircuitBreaker breaker = CircuitBreaker.of("onlyonce-idempotency", CircuitBreakerConfig.custom()
                    .slidingWindowSize(1).minimumNumberOfCalls(1).recordExceptions(StoreUnavailableException.class).build());
            StoreStateLog.attach(breaker);

            assertThatThrownBy(() -> breaker.executeRunnable(() -> {
                throw new StoreUnavailableException("claim", new IllegalStateException("Redis paused"));
            })).isInstanceOf(StoreUnavailableException.class);
            assertThatThrownBy(() -> breaker.executeRunnable(() -> { })).isInstanceOf(CallNotPermittedException.class);

            assertThat(output).contains("OnlyOnce idempotency store call failed after")
                    .contains("answered as unavailable")
                    .contains("Redis paused")
                    .contains("OnlyOnce idempotency store unavailable, circuit breaker OPEN")
                    .contains("OnlyOnce idempotency store call refused: circuit breaker OPEN")
                    .doesNotContain("\tat ");
        } finally {
            logger.setLevel(before);
        }
    }
}
