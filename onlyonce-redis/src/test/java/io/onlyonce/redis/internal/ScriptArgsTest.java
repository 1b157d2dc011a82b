package io.onlyonce.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ScriptArgsTest {

    @Test
    void durationsBecomeWholeMillisecondsRoundedUp() {
        assertThat(ScriptArgs.millis(Duration.ofMillis(400), "lease")).isEqualTo(400);
        assertThat(ScriptArgs.millis(Duration.ofNanos(1), "lease")).isEqualTo(1);
        assertThat(ScriptArgs.millis(Duration.ofMillis(400).plusNanos(1), "lease")).isEqualTo(401);
        assertThat(ScriptArgs.millis(Duration.ofHours(24), "retention")).isEqualTo(86_400_000);
    }

    @Test
    void durationsThatAreNotPositiveOrTooLongAreRefused() {
        assertThatThrownBy(() -> ScriptArgs.millis(Duration.ZERO, "lease"))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("lease must be positive: PT0S");
        assertThatThrownBy(() -> ScriptArgs.millis(Duration.ofMillis(-1), "window")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ScriptArgs.millis(Duration.ofSeconds(Long.MAX_VALUE), "ttl"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("ttl is too long");
    }

    @Test
    void decimalIsAsciiDigits() {
        assertThat(ScriptArgs.decimal(-42)).containsExactly('-', '4', '2');
    }
}
