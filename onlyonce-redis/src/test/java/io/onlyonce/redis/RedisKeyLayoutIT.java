package io.onlyonce.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.sync.RedisCommands;
import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoredResponse;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.IdempotencyRecord;
import io.onlyonce.store.OwnerToken;
import io.onlyonce.store.StoredResponseCodec;
import io.onlyonce.token.OneTimeToken;
import io.onlyonce.window.WindowHit;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What a user sees in Redis (standalone): the documented key names, types and values, a TTL on
 * every key that is the lease, retention or window itself (counted on Redis's clock), token
 * expiries taken from Redis's {@code TIME}, and token hashes that stay in listpack encoding.
 */
class RedisKeyLayoutIT {

    private static final String PREFIX = RedisTestSettings.randomPrefix();
    private static final RedisStoreConfig CONFIG = new RedisStoreConfig(PREFIX, 1024);
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration RETENTION = Duration.ofHours(24);
    /** What may pass between a write and the test reading the key back. */
    private static final long SLACK_MILLIS = 2_000;
    private static SharedRedis.Standalone redis;

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

    /** Redis's own time in epoch milliseconds. */
    private static long redisMillis() {
        List<byte[]> time = commands().time();
        return Long.parseLong(new String(time.get(0), StandardCharsets.US_ASCII)) * 1000
                + Long.parseLong(new String(time.get(1), StandardCharsets.US_ASCII)) / 1000;
    }

    @Test
    void idempotencyRecordIsOneStringUnderAnEscapedKeyWhoseTtlIsTheLeaseThenTheRetention() {
        RedisIdempotencyStore store = RedisIdempotencyStore.standalone(redis.connection(), CONFIG);
        String id = UUID.randomUUID().toString();
        IdempotencyKey key = new IdempotencyKey("user:1%/orders/{id}-" + id, "k:%{x}");
        byte[] redisKey = bytes(PREFIX + "i:user%3A1%25/orders/%7Bid%7D-" + id + ":k:%25%7Bx%7D");
        Fingerprint fingerprint = Fingerprint.of("POST", "/orders", "a");

        OwnerToken owner = ((ClaimResult.Claimed) store.claim(key, fingerprint, LEASE)).owner();
        assertThat(commands().type(redisKey)).isEqualTo("string");
        byte[] claimed = commands().get(redisKey);
        assertThat(claimed).hasSize(55);
        assertThat(new String(claimed, 0, 23, StandardCharsets.US_ASCII)).isEqualTo("R" + owner.value());
        assertThat(Arrays.copyOfRange(claimed, 23, 55)).isEqualTo(fingerprint.bytes());
        assertThat(commands().pttl(redisKey)).isBetween(LEASE.toMillis() - SLACK_MILLIS, LEASE.toMillis());

        StoredResponse response = StoredResponse.of(201, bytes("{\"id\":42}"));
        assertThat(store.complete(key, owner, response, RETENTION)).isTrue();
        byte[] completed = commands().get(redisKey);
        assertThat(completed[0]).isEqualTo((byte) 'D');
        assertThat(Arrays.copyOfRange(completed, 1, 55)).isEqualTo(Arrays.copyOfRange(claimed, 1, 55));
        assertThat(Arrays.copyOfRange(completed, 55, completed.length)).isEqualTo(StoredResponseCodec.encode(response));
        assertThat(commands().pttl(redisKey)).isBetween(RETENTION.toMillis() - SLACK_MILLIS, RETENTION.toMillis());
    }

    @Test
    void completedWithoutResponseIsStatusNOwnerAndFingerprintKeptForTheRetention() {
        RedisIdempotencyStore store = RedisIdempotencyStore.standalone(redis.connection(), CONFIG);
        IdempotencyKey key = new IdempotencyKey("scope", "lost-" + UUID.randomUUID());
        byte[] redisKey = bytes(PREFIX + "i:scope:" + key.name());
        Fingerprint fingerprint = Fingerprint.of("a");
        OwnerToken owner = ((ClaimResult.Claimed) store.claim(key, fingerprint, LEASE)).owner();

        assertThat(store.complete(key, owner, null, RETENTION)).isTrue();
        byte[] value = commands().get(redisKey);
        assertThat(value).hasSize(55);
        assertThat(new String(value, 0, 23, StandardCharsets.US_ASCII)).isEqualTo("N" + owner.value());
        assertThat(Arrays.copyOfRange(value, 23, 55)).isEqualTo(fingerprint.bytes());
        assertThat(commands().pttl(redisKey)).isBetween(RETENTION.toMillis() - SLACK_MILLIS, RETENTION.toMillis());
    }

    @Test
    void expiresInIsTheKeysPttl() {
        RedisIdempotencyStore store = RedisIdempotencyStore.standalone(redis.connection(), CONFIG);
        IdempotencyKey key = new IdempotencyKey("scope", "pttl-" + UUID.randomUUID());
        byte[] redisKey = bytes(PREFIX + "i:scope:" + key.name());
        store.claim(key, Fingerprint.of("a"), LEASE);
        commands().pexpire(redisKey, 12_345);

        long before = commands().pttl(redisKey);
        IdempotencyRecord record = store.find(key).orElseThrow();
        long after = commands().pttl(redisKey);
        assertThat(before).isLessThanOrEqualTo(12_345);
        assertThat(record.expiresIn().toMillis()).isBetween(after, before);
    }

    @Test
    void releaseDeletesTheRecord() {
        RedisIdempotencyStore store = RedisIdempotencyStore.standalone(redis.connection(), CONFIG);
        IdempotencyKey key = new IdempotencyKey("scope", "release-" + UUID.randomUUID());
        OwnerToken owner = ((ClaimResult.Claimed) store.claim(key, Fingerprint.of("a"), LEASE)).owner();
        assertThat(commands().exists(bytes(PREFIX + "i:scope:" + key.name()))).isOne();
        assertThat(store.release(key, owner)).isTrue();
        assertThat(commands().exists(bytes(PREFIX + "i:scope:" + key.name()))).isZero();
    }

    @Test
    void tokenIsAFieldOfItsSignedMinuteAndShardHoldingRedisTimePlusTtl() {
        RedisTokenStore store = RedisTokenStore.standalone(redis.connection(), CONFIG);
        byte[] id = new byte[16];
        id[0] = 0x12;
        id[1] = 0x34;
        id[15] = (byte) 0xF0;
        // Signed by an issuer whose clock runs an hour ahead: the address follows the signature, the life follows Redis.
        OneTimeToken token = new OneTimeToken(Base64.getUrlEncoder().withoutPadding().encodeToString(id),
                Instant.now().plus(Duration.ofHours(1)));
        long bucket = token.expiresAt().toEpochMilli() / 60_000;
        byte[] hash = bytes(PREFIX + "t:" + bucket + ":" + (0x1234 % 1024));
        Duration ttl = Duration.ofMinutes(10);

        long before = redisMillis();
        assertThat(store.save(token, ttl)).isTrue();
        long after = redisMillis();
        assertThat(commands().type(hash)).isEqualTo("hash");
        assertThat(commands().hlen(hash)).isOne();
        String created = new String(commands().hget(hash, id), StandardCharsets.US_ASCII);
        assertThat(created).matches("[1-9][0-9]*");
        assertThat(Long.parseLong(created)).isBetween(before + ttl.toMillis(), after + ttl.toMillis());
        assertThat(commands().pttl(hash)).isBetween(ttl.toMillis() + 1_000 - SLACK_MILLIS, ttl.toMillis() + 1_000);

        assertThat(store.consume(token)).isTrue();
        assertThat(commands().hget(hash, id)).asString().isEqualTo("-" + created);
        assertThat(store.restore(token)).isTrue();
        assertThat(commands().hget(hash, id)).asString().isEqualTo(created);
    }

    @Test
    void aTokenHashsTtlIsNeverShortenedAndCoversItsLongestToken() {
        RedisTokenStore store = RedisTokenStore.standalone(redis.connection(), new RedisStoreConfig(PREFIX + "ttl:", 1));
        Instant signed = Instant.now().plus(Duration.ofMinutes(90));
        byte[] hash = bytes(PREFIX + "ttl:t:" + signed.toEpochMilli() / 60_000 + ":0");
        Base64.Encoder encoder = Base64.getUrlEncoder().withoutPadding();

        store.save(new OneTimeToken(encoder.encodeToString(bytes("first-token-0001")), signed), Duration.ofMinutes(10));
        long longest = Duration.ofMinutes(10).toMillis() + 1_000;
        assertThat(commands().pttl(hash)).isBetween(longest - SLACK_MILLIS, longest);

        store.save(new OneTimeToken(encoder.encodeToString(bytes("short-token-0002")), signed), Duration.ofSeconds(5));
        assertThat(commands().pttl(hash)).as("a shorter token leaves the hash's TTL").isBetween(longest - SLACK_MILLIS, longest);

        store.save(new OneTimeToken(encoder.encodeToString(bytes("long--token-0003")), signed), Duration.ofMinutes(20));
        long longer = Duration.ofMinutes(20).toMillis() + 1_000;
        assertThat(commands().pttl(hash)).as("a longer token raises it").isBetween(longer - SLACK_MILLIS, longer);
        assertThat(commands().hlen(hash)).isEqualTo(3);
    }

    @Test
    void hundredTokensOfOneMinuteStayInOneListpackHash() {
        RedisTokenStore store = RedisTokenStore.standalone(redis.connection(), new RedisStoreConfig(PREFIX, 1));
        long bucket = Instant.now().toEpochMilli() / 60_000 + 10;
        Base64.Encoder encoder = Base64.getUrlEncoder().withoutPadding();
        for (int i = 0; i < 100; i++) {
            byte[] id = bytes(String.format("token-%010d", i));
            store.save(new OneTimeToken(encoder.encodeToString(id), Instant.ofEpochMilli(bucket * 60_000 + i * 500L)),
                    Duration.ofMinutes(10));
        }
        byte[] hash = bytes(PREFIX + "t:" + bucket + ":0");
        assertThat(commands().hlen(hash)).isEqualTo(100);
        assertThat(commands().objectEncoding(hash)).isEqualTo("listpack");
    }

    @Test
    void windowIsACounterWhoseTtlIsTheWindowAndRepeatsDoNotExtendIt() {
        RedisWindowStore store = RedisWindowStore.standalone(redis.connection(), CONFIG);
        Fingerprint fingerprint = Fingerprint.of("GET", "/orders", UUID.randomUUID().toString());
        Duration window = Duration.ofSeconds(30);
        byte[] key = bytes(PREFIX + "w:" + fingerprint.hex());

        WindowHit first = store.hit(fingerprint, window);
        assertThat(first).isEqualTo(new WindowHit(1, window));
        assertThat(commands().type(key)).isEqualTo("string");
        assertThat(commands().get(key)).asString().isEqualTo("1");
        commands().pexpire(key, 20_000);

        WindowHit second = store.hit(fingerprint, window);
        assertThat(second.count()).isEqualTo(2);
        assertThat(second.remaining().toMillis()).isBetween(20_000 - SLACK_MILLIS, 20_000L);
        assertThat(commands().get(key)).asString().isEqualTo("2");
        assertThat(commands().pttl(key)).isBetween(20_000 - SLACK_MILLIS, second.remaining().toMillis());
    }
}
