package io.onlyonce.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.api.sync.RedisCommands;
import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.StoredResponse;
import io.onlyonce.redis.script.CorruptValueException;
import io.onlyonce.store.OwnerToken;
import io.onlyonce.token.OneTimeToken;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.UUID;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A key of the stores holding a value they did not write (garbage, another Redis type, the layout
 * of an earlier version, a value without TTL) is {@link StoreUnavailableException} with a
 * {@link CorruptValueException} cause on every operation, and is left as it was: never a made-up
 * answer, never an {@code IllegalStateException}, never overwritten.
 */
class RedisForeignValueIT {

    private static final String PREFIX = RedisTestSettings.randomPrefix();
    private static final RedisStoreConfig CONFIG = new RedisStoreConfig(PREFIX, 1);
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static SharedRedis.Standalone redis;

    @BeforeAll
    static void connect() {
        redis = new SharedRedis.Standalone(PREFIX);
    }

    @AfterAll
    static void deleteKeysAndDisconnect() {
        redis.close();
    }

    private static RedisCommands<byte[], byte[]> commands() {
        return redis.commands();
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static void assertCorrupt(ThrowingCallable call, String operation, String redisKey) {
        assertThatThrownBy(call)
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessage("store unavailable during " + operation)
                .cause().isInstanceOf(CorruptValueException.class)
                .hasMessageStartingWith("corrupt value under Redis key " + redisKey + ": ");
    }

    private static IdempotencyKey newKey() {
        return new IdempotencyKey("scope", "foreign-" + UUID.randomUUID());
    }

    private static void assertEveryIdempotencyOperationIsCorrupt(IdempotencyKey key, String redisKey, OwnerToken owner) {
        RedisIdempotencyStore store = RedisIdempotencyStore.standalone(redis.connection(), CONFIG);
        assertCorrupt(() -> store.claim(key, Fingerprint.of("a"), LEASE), "claim", redisKey);
        assertCorrupt(() -> store.find(key), "find", redisKey);
        assertCorrupt(() -> store.complete(key, owner, StoredResponse.of(200, new byte[0]), LEASE), "complete", redisKey);
        assertCorrupt(() -> store.complete(key, owner, null, LEASE), "complete", redisKey);
        assertCorrupt(() -> store.release(key, owner), "release", redisKey);
    }

    @Test
    void garbageUnderAnIdempotencyKey() {
        IdempotencyKey key = newKey();
        String redisKey = PREFIX + "i:scope:" + key.name();
        commands().set(bytes(redisKey), bytes("garbage"));
        commands().pexpire(bytes(redisKey), 60_000);

        assertEveryIdempotencyOperationIsCorrupt(key, redisKey, OwnerToken.random());
        assertThat(commands().get(bytes(redisKey))).asString().isEqualTo("garbage");
    }

    @Test
    void anotherTypeUnderAnIdempotencyKey() {
        IdempotencyKey key = newKey();
        String redisKey = PREFIX + "i:scope:" + key.name();
        commands().rpush(bytes(redisKey), bytes("a"), bytes("b"));
        commands().pexpire(bytes(redisKey), 60_000);

        assertEveryIdempotencyOperationIsCorrupt(key, redisKey, OwnerToken.random());
        assertThat(commands().type(bytes(redisKey))).isEqualTo("list");
        assertThat(commands().llen(bytes(redisKey))).isEqualTo(2);
    }

    @Test
    void theLayoutOfTheFirstVersionIsNotMisread() {
        IdempotencyKey key = newKey();
        String redisKey = PREFIX + "i:scope:" + key.name();
        OwnerToken owner = OwnerToken.random();
        byte[] head = bytes("P" + String.format("%013d", Instant.now().plusSeconds(30).toEpochMilli()) + owner.value());
        byte[] old = new byte[head.length + Fingerprint.LENGTH];
        System.arraycopy(head, 0, old, 0, head.length);
        System.arraycopy(Fingerprint.of("a").bytes(), 0, old, head.length, Fingerprint.LENGTH);
        commands().set(bytes(redisKey), old);
        commands().pexpire(bytes(redisKey), 60_000);

        assertEveryIdempotencyOperationIsCorrupt(key, redisKey, owner);
        assertThat(commands().get(bytes(redisKey))).isEqualTo(old);
    }

    @Test
    void aRecordWithoutTtlIsNotOurs() {
        RedisIdempotencyStore store = RedisIdempotencyStore.standalone(redis.connection(), CONFIG);
        IdempotencyKey key = newKey();
        String redisKey = PREFIX + "i:scope:" + key.name();
        store.claim(key, Fingerprint.of("a"), LEASE);
        commands().persist(bytes(redisKey));

        assertCorrupt(() -> store.claim(key, Fingerprint.of("a"), LEASE), "claim", redisKey);
        assertCorrupt(() -> store.find(key), "find", redisKey);
        assertThat(commands().ttl(bytes(redisKey))).isEqualTo(-1);
        commands().pexpire(bytes(redisKey), 60_000);
    }

    @Test
    void foreignTokenHashesAndFields() {
        RedisTokenStore store = RedisTokenStore.standalone(redis.connection(), CONFIG);
        byte[] id = new byte[16];
        id[15] = 0x10;
        Instant signed = Instant.now().plus(Duration.ofMinutes(10));
        OneTimeToken token = new OneTimeToken(Base64.getUrlEncoder().withoutPadding().encodeToString(id), signed);
        String hash = PREFIX + "t:" + signed.toEpochMilli() / 60_000 + ":0";

        commands().set(bytes(hash), bytes("not a hash"));
        commands().pexpire(bytes(hash), 60_000);
        assertCorrupt(() -> store.save(token, Duration.ofMinutes(10)), "save token", hash);
        assertCorrupt(() -> store.consume(token), "consume token", hash);
        assertCorrupt(() -> store.restore(token), "restore token", hash);
        assertThat(commands().get(bytes(hash))).asString().isEqualTo("not a hash");

        commands().del(bytes(hash));
        commands().hset(bytes(hash), id, bytes("soon"));
        commands().pexpire(bytes(hash), 60_000);
        assertCorrupt(() -> store.consume(token), "consume token", hash);
        assertCorrupt(() -> store.restore(token), "restore token", hash);
        assertThat(commands().hlen(bytes(hash))).isOne();
        assertThat(commands().hget(bytes(hash), id)).asString().isEqualTo("soon");
    }

    /** The blocking hit, the asynchronous one and the one that names an opener, alike. */
    private static void assertEveryWindowHitIsCorrupt(RedisWindowStore store, Fingerprint fingerprint, String redisKey) {
        assertCorrupt(() -> store.hit(fingerprint, LEASE), "hit", redisKey);
        assertCorrupt(() -> Futures.join(store.hitAsync(fingerprint, LEASE)), "hit", redisKey);
        assertCorrupt(() -> Futures.join(store.hitAsync(fingerprint, LEASE, "0a1b")), "hit", redisKey);
    }

    /** Text that is no counter, and a counter whose opener is not hex digits. */
    @ParameterizedTest
    @ValueSource(strings = {"abc", "3:not-hex"})
    void textUnderAWindowKey(String text) {
        RedisWindowStore store = RedisWindowStore.standalone(redis.connection(), CONFIG);
        Fingerprint fingerprint = Fingerprint.of("w", UUID.randomUUID().toString());
        String key = PREFIX + "w:" + fingerprint.hex();
        commands().psetex(bytes(key), 60_000, bytes(text));

        assertEveryWindowHitIsCorrupt(store, fingerprint, key);
        assertThat(commands().get(bytes(key))).asString().isEqualTo(text);
    }

    @Test
    void anotherTypeUnderAWindowKey() {
        RedisWindowStore store = RedisWindowStore.standalone(redis.connection(), CONFIG);
        Fingerprint fingerprint = Fingerprint.of("w", UUID.randomUUID().toString());
        String key = PREFIX + "w:" + fingerprint.hex();
        commands().hset(bytes(key), bytes("f"), bytes("1"));
        commands().pexpire(bytes(key), 60_000);

        assertEveryWindowHitIsCorrupt(store, fingerprint, key);
        assertThat(commands().hgetall(bytes(key))).hasSize(1);
    }

    @Test
    void aWindowCounterWithoutTtlWouldNeverEnd() {
        RedisWindowStore store = RedisWindowStore.standalone(redis.connection(), CONFIG);
        Fingerprint fingerprint = Fingerprint.of("w", UUID.randomUUID().toString());
        String key = PREFIX + "w:" + fingerprint.hex();
        commands().set(bytes(key), bytes("5"));

        assertEveryWindowHitIsCorrupt(store, fingerprint, key);
        assertThat(commands().get(bytes(key))).asString().isEqualTo("5");
        commands().pexpire(bytes(key), 60_000);
    }
}
