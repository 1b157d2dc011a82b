package io.onlyonce.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.onlyonce.Fingerprint;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A window hit that names its opener ({@link RedisWindowStore#hitAsync(Fingerprint, Duration, String)}):
 * the opener's own later hits are not counted, every other hit is, on one key that the blocking
 * store reads and counts as well.
 */
class RedisWindowOpenerIT {

    @RegisterExtension
    static final SharedRedis.OnStandalone REDIS = new SharedRedis.OnStandalone();
    private static final String PREFIX = REDIS.prefix();
    private static final RedisStoreConfig CONFIG = new RedisStoreConfig(PREFIX, 1);
    private static final Duration WINDOW = Duration.ofSeconds(30);

    @Test
    void theOpenersOwnHitsAreNotCountedAndEveryOtherHitIs() throws Exception {
        RedisWindowStore store = RedisWindowStore.standalone(REDIS.connection(), CONFIG);
        Fingerprint fingerprint = Fingerprint.of("w", UUID.randomUUID().toString());

        RedisWindowStore.KeyedHit opened = Futures.join(store.hitAsync(fingerprint, WINDOW, "0a1b"));
        assertThat(opened.hit().first()).isTrue();
        assertThat(opened.retry()).isFalse();

        RedisWindowStore.KeyedHit retried = Futures.join(store.hitAsync(fingerprint, WINDOW, "0a1b"));
        assertThat(retried.retry()).isTrue();
        assertThat(retried.hit().count()).as("not counted").isEqualTo(1);

        assertThat(Futures.join(store.hitAsync(fingerprint, WINDOW, "ffff")).hit().count()).isEqualTo(2);
        assertThat(Futures.join(store.hitAsync(fingerprint, WINDOW)).count()).isEqualTo(3);
        assertThat(store.hit(fingerprint, WINDOW).count()).as("the blocking store counts it too").isEqualTo(4);

        RedisWindowStore.KeyedHit later = Futures.join(store.hitAsync(fingerprint, WINDOW, "0a1b"));
        assertThat(later.retry()).isTrue();
        assertThat(later.hit().count()).isEqualTo(4);
        byte[] key = (PREFIX + "w:" + fingerprint.hex()).getBytes(StandardCharsets.UTF_8);
        assertThat(REDIS.commands().get(key)).asString().isEqualTo("4:0a1b");
        assertThat(REDIS.commands().pttl(key)).isBetween(1L, WINDOW.toMillis());
    }

    @Test
    void anOpenerThatIsNotOneTo64LowerCaseHexDigitsOrAWindowThatIsNotPositiveIsRefused() {
        RedisWindowStore store = RedisWindowStore.standalone(REDIS.connection(), CONFIG);
        Fingerprint fingerprint = Fingerprint.of("w", UUID.randomUUID().toString());

        for (String opener : new String[] {"", "0A1B", "0a1g", "0".repeat(65)}) {
            assertThatThrownBy(() -> Futures.join(store.hitAsync(fingerprint, WINDOW, opener)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("opener");
        }
        assertThatThrownBy(() -> Futures.join(store.hitAsync(fingerprint, Duration.ZERO)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("window");
        assertThat(REDIS.commands().exists((PREFIX + "w:" + fingerprint.hex()).getBytes(StandardCharsets.UTF_8)))
                .as("nothing sent").isZero();
    }
}
