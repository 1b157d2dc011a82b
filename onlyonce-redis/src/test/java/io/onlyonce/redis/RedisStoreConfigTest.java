package io.onlyonce.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RedisStoreConfigTest {

    @Test
    void defaults() {
        assertThat(RedisStoreConfig.ofDefaults()).isEqualTo(new RedisStoreConfig("oo:", 256));
        assertThat(RedisStoreConfig.ofDefaults().commandTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(RedisStoreConfig.ofDefaults().withCommandTimeout(Duration.ofMillis(300)))
                .isEqualTo(new RedisStoreConfig("oo:", 256, Duration.ofMillis(300)));
    }

    @Test
    void emptyPrefixAndShardBoundsAreAccepted() {
        assertThat(new RedisStoreConfig("", 1).tokenShards()).isEqualTo(1);
        assertThat(new RedisStoreConfig("app:", 65536).tokenShards()).isEqualTo(65536);
    }

    @Test
    void invalidValuesAreRefused() {
        assertThatThrownBy(() -> new RedisStoreConfig(null, 1024)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RedisStoreConfig("a\nb", 1024)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RedisStoreConfig("oo:", 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RedisStoreConfig("oo:", 65537)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RedisStoreConfig("oo:", 256, null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RedisStoreConfig("oo:", 256, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("commandTimeout must be positive");
        assertThatThrownBy(() -> new RedisStoreConfig("oo:", 256, Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
    }
}
