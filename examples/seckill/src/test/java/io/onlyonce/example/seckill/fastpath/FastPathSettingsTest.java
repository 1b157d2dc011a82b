package io.onlyonce.example.seckill.fastpath;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import io.onlyonce.example.seckill.SeckillProperties;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class FastPathSettingsTest {

    private static SeckillProperties.FastPath withConsumers(int consumers) {
        return new SeckillProperties.FastPath(true, "seckill:fast:", 500, Duration.ofMillis(50), Duration.ofSeconds(30),
                Duration.ofSeconds(5), consumers);
    }

    @Test
    void noConsumersMakesAWebInstanceAndFewerThanNoneIsRefused() {
        assertThat(withConsumers(0).consumers()).isZero();
        assertThat(withConsumers(3).consumers()).isEqualTo(3);
        assertThatIllegalArgumentException().isThrownBy(() -> withConsumers(-1))
                .withMessage("seckill.fast-path.consumers must be 0 or more");
    }

    @Test
    void aBatchHoldsAtLeastOneReservation() {
        assertThatIllegalArgumentException().isThrownBy(() -> new SeckillProperties.FastPath(true, "p:", 0,
                Duration.ofMillis(50), Duration.ofSeconds(30), Duration.ofSeconds(5), 1))
                .withMessage("seckill.fast-path.batch-size must be positive");
    }

    @Test
    void onARedisClusterBothPrefixesNeedTheSameHashTag() {
        assertThat(FastPathConfiguration.hashTag("{seckill}oo:")).isEqualTo("seckill");
        assertThat(FastPathConfiguration.hashTag("oo:{}x{a}")).isNull();
        assertThat(FastPathConfiguration.hashTag("oo:")).isNull();
        FastPathConfiguration.requireOneSlot("{seckill}oo:", "{seckill}fast:");
        assertThatIllegalStateException().isThrownBy(() -> FastPathConfiguration.requireOneSlot("oo:", "seckill:fast:"))
                .withMessageContaining("onlyonce.redis.key-prefix (oo:)")
                .withMessageContaining("seckill.fast-path.key-prefix (seckill:fast:)");
        assertThatIllegalStateException().isThrownBy(() -> FastPathConfiguration.requireOneSlot("{a}oo:", "{b}fast:"));
    }
}
