package io.onlyonce.redis.springdata;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoredResponse;
import io.onlyonce.redis.RedisIdempotencyStore;
import io.onlyonce.redis.RedisStoreConfig;
import io.onlyonce.redis.RedisStoreConnection;
import io.onlyonce.redis.RedisTokenStore;
import io.onlyonce.redis.RedisWindowStore;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.IdempotencyRecord;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.store.OwnerToken;
import io.onlyonce.store.RecordStatus;
import io.onlyonce.token.OneTimeToken;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * One Redis, instances on different clients: what one writes, the others read, since every client
 * runs the same scripts on the same keys with the same value encoding.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CrossClientIT {

    private final RedisStoreConfig config = new RedisStoreConfig(TestServer.randomPrefix(), 64);
    private RedisClient lettuceClient;
    private RedisStoreConnection lettuce;
    private Client.Factory jedisFactory;
    private RedisStoreConnection jedis;
    private Client.Factory redissonFactory;
    private RedisStoreConnection redisson;

    @BeforeAll
    void connect() {
        lettuceClient = TestServer.lettuceClient();
        lettuce = RedisStoreConnection.onFirstUse(() -> lettuceClient);
        jedisFactory = Client.JEDIS.connectToTestServer();
        jedis = SpringDataRedisStoreConnection.of(jedisFactory.factory());
        redissonFactory = Client.REDISSON.connectToTestServer();
        redisson = SpringDataRedisStoreConnection.of(redissonFactory.factory());
    }

    @AfterAll
    void deleteKeysAndDisconnect() {
        TestServer.deleteKeys(config.keyPrefix());
        lettuce.close();
        lettuceClient.shutdown(Duration.ZERO, Duration.ofSeconds(3));
        jedis.close();
        jedisFactory.close();
        redisson.close();
        redissonFactory.close();
    }

    @Test
    void aRecordClaimedThroughLettuceIsReadAndCompletedThroughJedisAndReplayedThroughRedisson() {
        IdempotencyStore onLettuce = RedisIdempotencyStore.of(lettuce, config);
        IdempotencyStore onJedis = RedisIdempotencyStore.of(jedis, config);
        IdempotencyStore onRedisson = RedisIdempotencyStore.of(redisson, config);
        IdempotencyKey key = new IdempotencyKey("alice:POST /orders/{id}", "order-42");
        Fingerprint fingerprint = Fingerprint.of("{\"item\":\"book\"}");

        ClaimResult claimed = onLettuce.claim(key, fingerprint, Duration.ofSeconds(30));
        assertThat(claimed).isInstanceOf(ClaimResult.Claimed.class);
        OwnerToken owner = ((ClaimResult.Claimed) claimed).owner();

        IdempotencyRecord seenByJedis = onJedis.find(key).orElseThrow();
        assertThat(seenByJedis.status()).isEqualTo(RecordStatus.IN_PROGRESS);
        assertThat(seenByJedis.owner()).isEqualTo(owner);
        assertThat(seenByJedis.fingerprint()).isEqualTo(fingerprint);
        assertThat(onJedis.claim(key, fingerprint, Duration.ofSeconds(30))).isInstanceOf(ClaimResult.Existing.class);

        StoredResponse response = new StoredResponse(201, List.of(new StoredResponse.Header("Content-Type", "application/json"),
                new StoredResponse.Header("Location", "/orders/42")),
                "{\"id\":42,\"note\":\"caf\u00e9\"}".getBytes(StandardCharsets.UTF_8));
        assertThat(onJedis.complete(key, owner, response, Duration.ofHours(1))).isTrue();

        for (IdempotencyStore reader : List.of(onLettuce, onRedisson, onJedis)) {
            IdempotencyRecord completed = reader.find(key).orElseThrow();
            assertThat(completed.status()).isEqualTo(RecordStatus.COMPLETED);
            assertThat(completed.response()).isEqualTo(response);
            assertThat(completed.expiresIn()).isGreaterThan(Duration.ofMinutes(59));
        }
        assertThat(lettuceClient.connect().sync().exists(config.keyPrefix() + "i:alice%3APOST /orders/%7Bid%7D:order-42"))
                .isEqualTo(1);
    }

    @Test
    void aTokenSavedThroughRedissonIsConsumedOnceWhicheverClientTries() {
        byte[] id = new byte[16];
        new SecureRandom().nextBytes(id);
        OneTimeToken token = new OneTimeToken(Base64.getUrlEncoder().withoutPadding().encodeToString(id),
                Instant.now().plus(Duration.ofMinutes(10)));
        assertThat(RedisTokenStore.of(redisson, config).save(token, Duration.ofMinutes(10))).isTrue();

        assertThat(RedisTokenStore.of(jedis, config).consume(token)).isTrue();
        assertThat(RedisTokenStore.of(lettuce, config).consume(token)).isFalse();
        assertThat(RedisTokenStore.of(redisson, config).consume(token)).isFalse();
        assertThat(RedisTokenStore.of(lettuce, config).restore(token)).isTrue();
        assertThat(RedisTokenStore.of(redisson, config).consume(token)).isTrue();
    }

    @Test
    void aWindowIsOneCounterWhicheverClientHitsIt() {
        Fingerprint request = Fingerprint.of("POST /orders alice book");
        Duration window = Duration.ofSeconds(30);
        assertThat(RedisWindowStore.of(jedis, config).hit(request, window).count()).isEqualTo(1);
        assertThat(RedisWindowStore.of(lettuce, config).hit(request, window).count()).isEqualTo(2);
        assertThat(RedisWindowStore.of(redisson, config).hit(request, window).count()).isEqualTo(3);
    }
}
