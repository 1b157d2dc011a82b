package io.onlyonce.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.StoredResponse;
import io.onlyonce.redis.script.CorruptValueException;
import io.onlyonce.redis.script.LuaScript;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.store.OwnerToken;
import io.onlyonce.store.RecordStatus;
import io.onlyonce.token.OneTimeToken;
import io.onlyonce.token.TokenStore;
import io.onlyonce.window.WindowStore;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The stores survive a lost script cache ({@code SCRIPT FLUSH}, as after a restart or failover):
 * {@code NOSCRIPT} makes them send the script again. And an error reply other than
 * {@code NOSCRIPT} is a {@link StoreUnavailableException}, not a made-up answer; only a reply about
 * the value under the key says the value is corrupt.
 */
class RedisScriptCacheIT {

    private static final String PREFIX = RedisTestSettings.randomPrefix();
    private static final RedisStoreConfig CONFIG = new RedisStoreConfig(PREFIX, 1024);
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final SecureRandom RANDOM = new SecureRandom();
    private static SharedRedis.Standalone standalone;
    private static SharedRedis.Cluster cluster;

    @BeforeAll
    static void connect() {
        standalone = new SharedRedis.Standalone(PREFIX);
        cluster = new SharedRedis.Cluster(PREFIX);
    }

    @AfterAll
    static void deleteKeysAndDisconnect() {
        try {
            standalone.close();
        } finally {
            cluster.close();
        }
    }

    @Test
    void localDigestIsTheOneScriptLoadAnswers() {
        LuaScript script = new LuaScript("probe", "-- naïve 订单\nreturn ARGV[1]\n");
        assertThat(standalone.commands().scriptLoad(script.source())).isEqualTo(script.sha());
    }

    @Test
    void standaloneStoresWorkAfterScriptFlush() {
        standalone.commands().scriptFlush();
        exerciseAll(RedisIdempotencyStore.standalone(standalone.connection(), CONFIG),
                RedisTokenStore.standalone(standalone.connection(), CONFIG),
                RedisWindowStore.standalone(standalone.connection(), CONFIG));
        assertThat(standalone.commands().info("memory")).containsPattern("number_of_cached_scripts:[1-9]");

        standalone.commands().scriptFlush();
        exerciseAll(RedisIdempotencyStore.standalone(standalone.connection(), CONFIG),
                RedisTokenStore.standalone(standalone.connection(), CONFIG),
                RedisWindowStore.standalone(standalone.connection(), CONFIG));
    }

    @Test
    void clusterStoresWorkAfterScriptFlushOnEveryNode() {
        RedisIdempotencyStore idempotency = RedisIdempotencyStore.cluster(cluster.connection(), CONFIG);
        RedisTokenStore tokens = RedisTokenStore.cluster(cluster.connection(), CONFIG);
        RedisWindowStore windows = RedisWindowStore.cluster(cluster.connection(), CONFIG);
        cluster.connection().sync().scriptFlush();
        for (int i = 0; i < 10; i++) {
            exerciseAll(idempotency, tokens, windows);
        }
    }

    @Test
    void aKeyOfAnotherTypeIsStoreUnavailableWithACorruptValueCause() {
        IdempotencyStore store = RedisIdempotencyStore.standalone(standalone.connection(), CONFIG);
        IdempotencyKey key = new IdempotencyKey("scope", "wrong-type-" + UUID.randomUUID());
        String redisKey = PREFIX + "i:scope:" + key.name();
        standalone.commands().hset(redisKey.getBytes(StandardCharsets.UTF_8), new byte[] {'f'}, new byte[] {'v'});
        standalone.commands().pexpire(redisKey.getBytes(StandardCharsets.UTF_8), 60_000);

        assertThatThrownBy(() -> store.claim(key, Fingerprint.of("a"), LEASE))
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessage("store unavailable during claim")
                .cause().isInstanceOf(CorruptValueException.class)
                .hasMessage("corrupt value under Redis key " + redisKey + ": another Redis type; not written by the OnlyOnce stores")
                .cause().isInstanceOf(RedisCommandExecutionException.class).hasMessageStartingWith("WRONGTYPE");
    }

    /** An error reply that is not about the value (here: out of memory under noeviction) is not called corrupt. */
    @Test
    void anOutOfMemoryReplyIsStoreUnavailable() throws Exception {
        try (PrivateRedisServer server = PrivateRedisServer.start()) {
            StatefulRedisConnection<byte[], byte[]> connection = server.connect();
            connection.sync().configSet("maxmemory-policy", "noeviction");
            connection.sync().configSet("maxmemory", "1");
            IdempotencyStore store = RedisIdempotencyStore.standalone(connection, CONFIG);
            IdempotencyKey key = new IdempotencyKey("scope", "oom-" + UUID.randomUUID());

            assertThatThrownBy(() -> store.claim(key, Fingerprint.of("a"), LEASE))
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessage("store unavailable during claim")
                    .cause().isInstanceOf(RedisCommandExecutionException.class).hasMessageStartingWith("OOM");
            connection.sync().configSet("maxmemory", "0");
            assertThat(connection.sync().dbsize()).isZero();
        }
    }

    private void exerciseAll(IdempotencyStore idempotency, TokenStore tokens, WindowStore windows) {
        IdempotencyKey key = new IdempotencyKey("scope", "flush-" + UUID.randomUUID());
        Fingerprint fingerprint = Fingerprint.of("a", UUID.randomUUID().toString());
        OwnerToken owner = ((ClaimResult.Claimed) idempotency.claim(key, fingerprint, LEASE)).owner();
        assertThat(idempotency.claim(key, fingerprint, LEASE)).isInstanceOf(ClaimResult.Existing.class);
        assertThat(idempotency.complete(key, owner, StoredResponse.of(200, new byte[] {1}), LEASE)).isTrue();
        assertThat(idempotency.find(key).orElseThrow().status()).isEqualTo(RecordStatus.COMPLETED);
        IdempotencyKey released = new IdempotencyKey("scope", "flush-" + UUID.randomUUID());
        OwnerToken holder = ((ClaimResult.Claimed) idempotency.claim(released, fingerprint, LEASE)).owner();
        assertThat(idempotency.release(released, holder)).isTrue();

        byte[] id = new byte[16];
        RANDOM.nextBytes(id);
        OneTimeToken token = new OneTimeToken(Base64.getUrlEncoder().withoutPadding().encodeToString(id), Instant.now().plusSeconds(60));
        assertThat(tokens.save(token, Duration.ofSeconds(60))).isTrue();
        assertThat(tokens.consume(token)).isTrue();
        assertThat(tokens.restore(token)).isTrue();
        assertThat(tokens.consume(token)).isTrue();

        assertThat(windows.hit(fingerprint, LEASE).first()).isTrue();
        assertThat(windows.hit(fingerprint, LEASE).count()).isEqualTo(2);
    }
}
