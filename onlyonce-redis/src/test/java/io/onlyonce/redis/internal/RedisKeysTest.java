package io.onlyonce.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.redis.script.ClusterSlots;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RedisKeysTest {

    private final RedisKeys keys = new RedisKeys("oo:");

    private String idempotency(String scope, String name) {
        return new String(keys.idempotency(new IdempotencyKey(scope, name)), StandardCharsets.UTF_8);
    }

    @Test
    void scopeEscapesPercentColonAndBraces() {
        assertThat(idempotency("user-1:POST /orders/{id}", "k")).isEqualTo("oo:i:user-1%3APOST /orders/%7Bid%7D:k");
        assertThat(idempotency("100%", "k")).isEqualTo("oo:i:100%25:k");
        assertThat(idempotency("", "k")).isEqualTo("oo:i::k");
        assertThat(idempotency("用户", "k")).isEqualTo("oo:i:用户:k");
    }

    @Test
    void nameKeepsColonsButEscapesPercentAndBraces() {
        assertThat(idempotency("s", "a:b")).isEqualTo("oo:i:s:a:b");
        assertThat(idempotency("s", "%7B{}")).isEqualTo("oo:i:s:%257B%7B%7D");
    }

    @Test
    void scopeAndNameBoundariesCannotCollide() {
        assertThat(idempotency("a:b", "c")).isNotEqualTo(idempotency("a", "b:c"));
        assertThat(idempotency("a%3Ab", "c")).isNotEqualTo(idempotency("a:b", "c"));
        assertThat(idempotency("{", "c")).isNotEqualTo(idempotency("%7B", "c"));
    }

    @Test
    void aTaggedRecordKeyHashesByItsTagAndNeverMeetsAnUntaggedOne() {
        IdempotencyKey key = new IdempotencyKey("POST /orders/{id}", "k");
        String tagged = new String(keys.idempotency(key, "sale:42"), StandardCharsets.UTF_8);
        assertThat(tagged).isEqualTo("oo:i{sale:42}:POST /orders/%7Bid%7D:k");
        assertThat(io.lettuce.core.cluster.SlotHash.getSlot(tagged.getBytes(StandardCharsets.UTF_8)))
                .isEqualTo(io.lettuce.core.cluster.SlotHash.getSlot("{sale:42}:stock".getBytes(StandardCharsets.UTF_8)));
        assertThat(tagged).doesNotStartWith("oo:i:");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> keys.idempotency(key, ""))
                .isInstanceOf(IllegalArgumentException.class);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> keys.idempotency(key, "a}b"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void keysOfSeveralClusterSlotsAreRefusedWithTheirSlots() {
        byte[][] same = {"{t}a".getBytes(StandardCharsets.UTF_8), "{t}b".getBytes(StandardCharsets.UTF_8)};
        ClusterSlots.requireOneSlot("op", same);
        byte[][] spread = {"a".getBytes(StandardCharsets.UTF_8), "b".getBytes(StandardCharsets.UTF_8)};
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ClusterSlots.requireOneSlot("op", spread))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("a (slot 15495)")
                .hasMessageContaining("b (slot 3300)");
    }

    @Test
    void tokenAndWindowKeys() {
        assertThat(new String(keys.tokens(29_933_346, 564), StandardCharsets.UTF_8)).isEqualTo("oo:t:29933346:564");
        Fingerprint fingerprint = Fingerprint.of("x");
        assertThat(new String(keys.window(fingerprint), StandardCharsets.UTF_8)).isEqualTo("oo:w:" + fingerprint.hex());
    }
}
