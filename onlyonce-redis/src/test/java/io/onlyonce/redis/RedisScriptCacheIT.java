package io.onlyonce.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisCommandExecutionException;
import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.StoredResponse;
import io.onlyonce.redis.internal.LuaScript;
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
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The stores survive a lost script cache ({@code SCRIPT FLUSH}, as after a restart or failover):
 * {@code NOSCRIPT} makes them send the script again. And an error reply other than
 * {@code NOSCRIPT} is a {@link StoreUnavailableException}, not a made-up answer.
 */
class RedisScriptCacheIT {

    private static final String PREFIX = RedisTestSettings.randomPrefix();
    private static final RedisStoreConfig CONFIG = new RedisStoreConfig(PREFIX, 1024);
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final SecureRandom RANDOM = new SecureRandom();
    private static SharedRedis.Standalone standalone;
    private static SharedRedis.Cluster cluster;

    private final Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);

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
    void anErrorReplyIsStoreUnavailable() {
        IdempotencyStore store = RedisIdempotencyStore.standalone(standalone.connection(), CONFIG);
        IdempotencyKey key = new IdempotencyKey("scope", "wrong-type-" + UUID.randomUUID());
        byte[] redisKey = (PREFIX + "i:scope:" + key.name()).getBytes(StandardCharsets.UTF_8);
        standalone.commands().hset(redisKey, new byte[] {'f'}, new byte[] {'v'});
        standalone.commands().pexpire(redisKey, 60_000);

        assertThatThrownBy(() -> store.claim(key, Fingerprint.of("a"), now, LEASE))
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessage("store unavailable during claim")
                .hasCauseInstanceOf(RedisCommandExecutionException.class);
        assertThatThrownBy(() -> store.find(key, now))
                .isInstanceOf(StoreUnavailableException.class)
                .hasCauseInstanceOf(RedisCommandExecutionException.class);
    }

    private void exerciseAll(IdempotencyStore idempotency, TokenStore tokens, WindowStore windows) {
        IdempotencyKey key = new IdempotencyKey("scope", "flush-" + UUID.randomUUID());
        Fingerprint fingerprint = Fingerprint.of("a", UUID.randomUUID().toString());
        OwnerToken owner = ((ClaimResult.Claimed) idempotency.claim(key, fingerprint, now, LEASE)).owner();
        assertThat(idempotency.claim(key, fingerprint, now, LEASE)).isInstanceOf(ClaimResult.Existing.class);
        assertThat(idempotency.complete(key, owner, StoredResponse.of(200, new byte[] {1}), now, LEASE)).isTrue();
        assertThat(idempotency.find(key, now).orElseThrow().status()).isEqualTo(RecordStatus.COMPLETED);
        IdempotencyKey released = new IdempotencyKey("scope", "flush-" + UUID.randomUUID());
        OwnerToken holder = ((ClaimResult.Claimed) idempotency.claim(released, fingerprint, now, LEASE)).owner();
        assertThat(idempotency.release(released, holder, now)).isTrue();

        byte[] id = new byte[16];
        RANDOM.nextBytes(id);
        OneTimeToken token = new OneTimeToken(Base64.getUrlEncoder().withoutPadding().encodeToString(id), now.plusSeconds(60));
        tokens.save(token, now);
        assertThat(tokens.consume(token, now)).isTrue();
        assertThat(tokens.restore(token, now)).isTrue();
        assertThat(tokens.consume(token, now)).isTrue();

        assertThat(windows.firstInWindow(fingerprint, LEASE, now)).isTrue();
        assertThat(windows.firstInWindow(fingerprint, LEASE, now)).isFalse();
    }
}
