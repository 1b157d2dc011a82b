package io.onlyonce.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.redis.script.LuaScript;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class AtomicCallTest {

    private static final RedisEffect EFFECT = RedisEffect.of("e", "return {'decline'}");
    private static final IdempotencyKey KEY = new IdempotencyKey("s", "k");

    @Test
    void anEffectIsValidatedAndItsFusedScriptMadeOnce() {
        assertThat(EFFECT.sha()).isEqualTo(EFFECT.script().sha()).hasSize(40);
        assertThat(new String(EFFECT.script().source(), java.nio.charset.StandardCharsets.UTF_8))
                .startsWith("local effect = function(KEYS, ARGV) return {'decline'}\nend\n");
        assertThat(RedisEffect.of("e", "return {'decline'}").sha()).isEqualTo(EFFECT.sha());
        assertThat(RedisEffect.of("other", "return {'decline'}").sha()).as("the name is not in the script").isEqualTo(EFFECT.sha());
        assertThatThrownBy(() -> RedisEffect.of(" ", "return 1")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisEffect.of("e", " \n")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisEffect.of("e", "#!lua flags=no-writes\nreturn 1"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shebang");
        assertThat(new LuaScript("x", "return 1").sha()).isNotEqualTo(EFFECT.sha());
    }

    @Test
    void aCallRefusesWhatTheScriptCouldNotTake() {
        assertThatThrownBy(() -> AtomicCall.of(KEY, Fingerprint.of("a"), Duration.ZERO, EFFECT).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("retention");
        assertThatThrownBy(() -> AtomicCall.of(KEY, Fingerprint.of("a"), Duration.ofMinutes(1), EFFECT)
                .window(Fingerprint.of("w"), Duration.ofMillis(-1)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("window");
        assertThatThrownBy(() -> AtomicCall.of(KEY, Fingerprint.of("a"), Duration.ofMinutes(1), EFFECT).recordSlot("{x}"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new AtomicCall(KEY, Fingerprint.of("a"), Duration.ofMinutes(1), EFFECT,
                java.util.List.of(), java.util.List.of(), null, true, Fingerprint.of("w"), null, null))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aCallKeepsCopiesOfItsKeysAndArguments() {
        byte[] key = {'k'};
        AtomicCall call = AtomicCall.of(KEY, Fingerprint.of("a"), Duration.ofMinutes(1), EFFECT).keys(key).args("a", "b").build();
        key[0] = 'x';
        assertThat(call.keys()).singleElement().isEqualTo(new byte[] {'k'});
        assertThat(call.args()).hasSize(2);
        assertThat(call.consumeTokenOnDecline()).isTrue();
        assertThat(call.token()).isNull();
    }
}
