package io.onlyonce.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.StoredResponse;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.IdempotencyRecord;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.store.OwnerToken;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The {@code onlyonce} health indicator: registered with Actuator, UP while the stores answer, DOWN otherwise. */
class OnlyOnceHealthIndicatorTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(OnlyOnceAutoConfiguration.class, OnlyOnceEndpointAutoConfiguration.class))
            .withPropertyValues(TestSettings.SECRET);

    @Test
    void upWhileTheStoresAnswer() {
        runner.run(context -> {
            Health health = context.getBean("onlyonceHealthIndicator", HealthIndicator.class).health();
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails()).isEqualTo(Map.of("idempotencyStore", "reachable", "tokenStore", "reachable"));
        });
    }

    @Test
    void downWhileTheIdempotencyStoreFailsWithoutSayingWhy() {
        runner.withBean(IdempotencyStore.class, DownStore::new)
                .withPropertyValues("onlyonce.token.enabled=false")
                .run(context -> {
                    Health health = context.getBean("onlyonceHealthIndicator", HealthIndicator.class).health();
                    assertThat(health.getStatus()).isEqualTo(Status.DOWN);
                    assertThat(health.getDetails()).isEqualTo(Map.of("idempotencyStore", "unreachable"));
                });
    }

    @Test
    void offWhenDisabledOrWithoutActuatorHealth() {
        runner.withPropertyValues("management.health.onlyonce.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean("onlyonceHealthIndicator"));
        runner.withClassLoader(new FilteredClassLoader(HealthIndicator.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean("onlyonceHealthIndicator"));
    }

    /** A store whose server is gone. */
    private static final class DownStore implements IdempotencyStore {

        @Override
        public ClaimResult claim(IdempotencyKey key, Fingerprint fingerprint, Duration lease) {
            throw down("claim");
        }

        @Override
        public boolean complete(IdempotencyKey key, OwnerToken owner, @Nullable StoredResponse response, Duration retention) {
            throw down("complete");
        }

        @Override
        public boolean release(IdempotencyKey key, OwnerToken owner) {
            throw down("release");
        }

        @Override
        public Optional<IdempotencyRecord> find(IdempotencyKey key) {
            throw down("find");
        }

        private static StoreUnavailableException down(String operation) {
            return new StoreUnavailableException(operation, new IllegalStateException("connection refused by 10.0.0.9:6379"));
        }
    }
}
