package io.onlyonce.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.sync.RedisCommands;
import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoredResponse;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.OwnerToken;
import io.onlyonce.store.StoredResponseCodec;
import io.onlyonce.token.OneTimeToken;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.Base64;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What a user sees in Redis (standalone): the documented key names and values, a TTL on every key
 * that never ends before the logical deadline, and token hashes that stay in listpack encoding.
 */
class RedisKeyLayoutIT {

    private static final String PREFIX = RedisTestSettings.randomPrefix();
    private static final RedisStoreConfig CONFIG = new RedisStoreConfig(PREFIX, 1024);
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration RETENTION = Duration.ofHours(24);
    private static SharedRedis.Standalone redis;

    private final Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);

    @BeforeAll
    static void connect() {
        redis = new SharedRedis.Standalone(PREFIX);
    }

    @AfterAll
    static void deleteKeysAndDisconnect() {
        redis.close();
    }

    /** Every key any test wrote carries a TTL. */
    @AfterEach
    void everyKeyHasATtl() {
        ScanIterator<byte[]> keys = ScanIterator.scan(commands(), ScanArgs.Builder.matches(PREFIX + "*"));
        while (keys.hasNext()) {
            byte[] key = keys.next();
            assertThat(commands().pttl(key)).as(new String(key, StandardCharsets.UTF_8)).isPositive();
        }
    }

    private static RedisCommands<byte[], byte[]> commands() {
        return redis.commands();
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void idempotencyRecordIsOneStringUnderAnEscapedKeyLivingUntilExpiresAt() {
        RedisIdempotencyStore store = RedisIdempotencyStore.standalone(redis.connection(), CONFIG);
        String id = UUID.randomUUID().toString();
        IdempotencyKey key = new IdempotencyKey("user:1%/orders/{id}-" + id, "k:%{x}");
        byte[] redisKey = bytes(PREFIX + "i:user%3A1%25/orders/%7Bid%7D-" + id + ":k:%25%7Bx%7D");
        Fingerprint fingerprint = Fingerprint.of("POST", "/orders", "a");

        OwnerToken owner = ((ClaimResult.Claimed) store.claim(key, fingerprint, now, LEASE)).owner();
        assertThat(commands().type(redisKey)).isEqualTo("string");
        byte[] claimed = commands().get(redisKey);
        assertThat(new String(claimed, 0, 14, StandardCharsets.US_ASCII)).isEqualTo("P%013d", now.plus(LEASE).toEpochMilli());
        assertThat(new String(claimed, 14, 22, StandardCharsets.US_ASCII)).isEqualTo(owner.value());
        assertThat(Arrays.copyOfRange(claimed, 36, claimed.length)).isEqualTo(fingerprint.bytes());
        assertThat(commands().pttl(redisKey)).isPositive().isLessThanOrEqualTo(LEASE.toMillis());

        StoredResponse response = StoredResponse.of(201, bytes("{\"id\":42}"));
        Instant completedAt = now.plusMillis(5);
        assertThat(store.complete(key, owner, response, completedAt, RETENTION)).isTrue();
        byte[] completed = commands().get(redisKey);
        assertThat(new String(completed, 0, 14, StandardCharsets.US_ASCII))
                .isEqualTo("C%013d", completedAt.plus(RETENTION).toEpochMilli());
        assertThat(Arrays.copyOfRange(completed, 14, 68)).isEqualTo(Arrays.copyOfRange(claimed, 14, 68));
        assertThat(Arrays.copyOfRange(completed, 68, completed.length)).isEqualTo(StoredResponseCodec.encode(response));
        assertThat(commands().pttl(redisKey)).isGreaterThan(LEASE.toMillis()).isLessThanOrEqualTo(RETENTION.toMillis());
    }

    @Test
    void releaseDeletesTheRecord() {
        RedisIdempotencyStore store = RedisIdempotencyStore.standalone(redis.connection(), CONFIG);
        IdempotencyKey key = new IdempotencyKey("scope", "release-" + UUID.randomUUID());
        OwnerToken owner = ((ClaimResult.Claimed) store.claim(key, Fingerprint.of("a"), now, LEASE)).owner();
        assertThat(store.release(key, owner, now)).isTrue();
        assertThat(commands().exists(bytes(PREFIX + "i:scope:" + key.name()))).isZero();
    }

    @Test
    void tokenIsAFieldOfItsMinuteAndShardHashLivingUntilTheEndOfTheMinute() {
        RedisTokenStore store = RedisTokenStore.standalone(redis.connection(), CONFIG);
        byte[] id = new byte[16];
        id[0] = 0x12;
        id[1] = 0x34;
        id[15] = (byte) 0xF0;
        OneTimeToken token = new OneTimeToken(Base64.getUrlEncoder().withoutPadding().encodeToString(id), now.plusSeconds(600));
        long expiresAt = token.expiresAt().toEpochMilli();
        long bucket = expiresAt / 60_000;
        byte[] hash = bytes(PREFIX + "t:" + bucket + ":" + (0x1234 % 1024));

        store.save(token, now);
        assertThat(commands().type(hash)).isEqualTo("hash");
        assertThat(commands().hget(hash, id)).asString().isEqualTo(Long.toString(expiresAt));
        assertThat(commands().pttl(hash)).isPositive().isLessThanOrEqualTo((bucket + 1) * 60_000 + 1_000 - now.toEpochMilli());

        assertThat(store.consume(token, now)).isTrue();
        assertThat(commands().hget(hash, id)).asString().isEqualTo("-" + expiresAt);
        assertThat(store.restore(token, now)).isTrue();
        assertThat(commands().hget(hash, id)).asString().isEqualTo(Long.toString(expiresAt));
    }

    @Test
    void hundredTokensOfOneMinuteStayInOneListpackHash() {
        RedisTokenStore store = RedisTokenStore.standalone(redis.connection(), new RedisStoreConfig(PREFIX, 1));
        long bucket = now.toEpochMilli() / 60_000 + 10;
        Base64.Encoder encoder = Base64.getUrlEncoder().withoutPadding();
        for (int i = 0; i < 100; i++) {
            byte[] id = bytes(String.format("token-%010d", i));
            store.save(new OneTimeToken(encoder.encodeToString(id), Instant.ofEpochMilli(bucket * 60_000 + i * 500L)), now);
        }
        byte[] hash = bytes(PREFIX + "t:" + bucket + ":0");
        assertThat(commands().hlen(hash)).isEqualTo(100);
        assertThat(commands().objectEncoding(hash)).isEqualTo("listpack");
    }

    @Test
    void windowIsAStringHoldingItsEndLivingUntilThatEnd() {
        RedisWindowStore store = RedisWindowStore.standalone(redis.connection(), CONFIG);
        Fingerprint fingerprint = Fingerprint.of("GET", "/orders", UUID.randomUUID().toString());
        Duration window = Duration.ofSeconds(3);
        byte[] key = bytes(PREFIX + "w:" + fingerprint.hex());

        assertThat(store.firstInWindow(fingerprint, window, now)).isTrue();
        assertThat(commands().get(key)).asString().isEqualTo(Long.toString(now.plus(window).toEpochMilli()));
        assertThat(commands().pttl(key)).isPositive().isLessThanOrEqualTo(window.toMillis());
    }
}
