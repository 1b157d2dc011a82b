package io.onlyonce.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.redis.RedisIdempotencyStore;
import io.onlyonce.redis.RedisStoreConfig;
import io.onlyonce.spring.resilience.CircuitBreakerIdempotencyStore;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.testing.PrivateRedis;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * A Redis that answers, but slowly ({@code CLIENT PAUSE} on a private server), opens the store's
 * circuit breaker as one that fails does: the breaker of the auto-configuration counts slow calls
 * ({@code onlyonce.circuit-breaker.slow-call-*}). Every call here succeeds; none is a failure.
 */
@ExtendWith(OutputCaptureExtension.class)
class SlowRedisOpensTheBreakerIT {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(OnlyOnceAutoConfiguration.class))
            .withPropertyValues(TestSettings.SECRET,
                    "onlyonce.circuit-breaker.slow-call-duration-threshold=200ms",
                    "onlyonce.circuit-breaker.slow-call-rate-threshold=50",
                    "onlyonce.circuit-breaker.minimum-number-of-calls=2",
                    "onlyonce.circuit-breaker.sliding-window-size=2");

    @Test
    void slowAnswersWithinTheBudgetOpenTheBreaker(CapturedOutput output) throws Exception {
        try (PrivateRedis server = PrivateRedis.start()) {
            RedisClient client = RedisClient.create(server.url());
            try (StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE);
                    StatefulRedisConnection<String, String> admin = client.connect()) {
                IdempotencyStore redis = RedisIdempotencyStore.standalone(connection,
                        new RedisStoreConfig("oo-slow:", 16, Duration.ofSeconds(2)));
                runner.run(context -> {
                    CircuitBreaker breaker = context.getBean(CircuitBreakerRegistry.class)
                            .circuitBreaker(OnlyOnceAutoConfiguration.IDEMPOTENCY_BREAKER);
                    IdempotencyStore store = new CircuitBreakerIdempotencyStore(redis, breaker);
                    IdempotencyKey key = new IdempotencyKey("slow", "k");

                    for (int i = 0; i < 2; i++) {
                        admin.sync().clientPause(500);
                        assertThat(store.find(key)).as("slow, but answered").isEmpty();
                    }

                    assertThat(breaker.getMetrics().getNumberOfFailedCalls()).isZero();
                    assertThat(breaker.getMetrics().getNumberOfSlowSuccessfulCalls()).isEqualTo(2);
                    assertThat(breaker.getState()).isEqualTo(CircuitBreaker.State.OPEN);
                    assertThatThrownBy(() -> store.find(key)).isInstanceOf(StoreUnavailableException.class)
                            .hasCauseInstanceOf(CallNotPermittedException.class);
                    assertThat(output.getAll()).containsOnlyOnce("OnlyOnce idempotency store unavailable, circuit breaker OPEN");
                });
            } finally {
                client.shutdown();
            }
        }
    }
}
