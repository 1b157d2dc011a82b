package io.onlyonce.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.token.OneTimeToken;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The fused call on the standalone test server; and its cost: one {@code EVALSHA} per call, on a server of its own. */
class RedisAtomicExecutorIT extends AbstractRedisAtomicExecutorIT {

    private final String prefix = RedisTestSettings.randomPrefix();
    private SharedRedis.Standalone standalone;

    @Override
    StatefulConnection<byte[], byte[]> connect(RedisStoreConfig config) {
        standalone = new SharedRedis.Standalone(prefix);
        return standalone.connection();
    }

    @Override
    String keyPrefix() {
        return prefix;
    }

    @Override
    void disconnect() {
        standalone.close();
    }

    @Test
    void everyCallIsExactlyOneEvalshaOnceTheScriptIsLoaded() throws Exception {
        try (PrivateRedisServer server = PrivateRedisServer.start()) {
            StatefulRedisConnection<byte[], byte[]> connection = server.connect();
            RedisStoreConfig config = new RedisStoreConfig("oo:", 64);
            RedisAtomicExecutor executor = RedisAtomicExecutor.of(connection, config);
            RedisTokenStore tokenStore = RedisTokenStore.of(connection, config);
            Fingerprint window = newFingerprint();
            executor.run(counting(newKey(), newFingerprint(), "oo:fx:runs"));
            int calls = 20;
            List<OneTimeToken> saved = new ArrayList<>();
            for (int i = 0; i < calls; i++) {
                OneTimeToken token = newToken();
                tokenStore.save(token, Duration.ofSeconds(60));
                saved.add(token);
            }
            connection.sync().configResetstat();

            for (int i = 0; i < calls; i++) {
                IdempotencyKey key = newKey();
                executor.run(AtomicCall.of(key, newFingerprint(), RETENTION, COUNTING).keys("oo:fx:runs").args("x")
                        .token(saved.get(i)).window(i < 2 ? window : newFingerprint(), Duration.ofSeconds(30)).build());
            }
            String stats = connection.sync().info("commandstats");

            assertThat(count(stats, "evalsha")).isEqualTo(calls);
            assertThat(count(stats, "eval")).isZero();
            assertThat(stats).doesNotContain("cmdstat_script");
        }
    }

    /** The server's own refusal met by the effect is an unavailable store, not a failed effect. */
    @Test
    void outOfMemoryInTheEffectIsStoreUnavailable() throws Exception {
        try (PrivateRedisServer server = PrivateRedisServer.start()) {
            StatefulRedisConnection<byte[], byte[]> connection = server.connect();
            RedisStoreConfig config = new RedisStoreConfig("oo:", 64);
            RedisAtomicExecutor executor = RedisAtomicExecutor.of(connection, config);
            connection.sync().configSet("maxmemory-policy", "noeviction");
            connection.sync().configSet("maxmemory", "1");

            assertThatThrownBy(() -> executor.run(counting(newKey(), newFingerprint(), "oo:fx:runs")))
                    .isInstanceOf(StoreUnavailableException.class)
                    .cause().hasMessageStartingWith("OOM");
            connection.sync().configSet("maxmemory", "0");
            assertThat(connection.sync().dbsize()).isZero();
        }
    }

    @Test
    void anEffectThatDoesNotCompileIsAnIllegalState() {
        RedisEffect unfinished = RedisEffect.of("unfinished", "return {'complete', 200");
        assertThatThrownBy(() -> atomic.run(AtomicCall.of(newKey(), newFingerprint(), RETENTION, unfinished).build()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("atomic unfinished does not compile")
                .hasMessageContaining("user_script:");
    }

    /**
     * A call that Redis runs after its caller gave up (the server was paused past the budget) does
     * nothing: no unit taken, no record, so the caller's "unavailable" is true.
     */
    @Test
    void aCallRedisRunsAfterItsBudgetDoesNothing() throws Exception {
        try (PrivateRedisServer server = PrivateRedisServer.start()) {
            StatefulRedisConnection<byte[], byte[]> connection = server.connect();
            RedisStoreConfig config = new RedisStoreConfig("oo:", 64).withCommandTimeout(Duration.ofMillis(300));
            RedisAtomicExecutor executor = RedisAtomicExecutor.of(connection, config);
            RedisIdempotencyStore records = RedisIdempotencyStore.of(connection, config);
            connection.sync().set("oo:fx:stock".getBytes(UTF_8), "5".getBytes(UTF_8));
            assertThat(executor.run(AtomicCall.of(newKey(), newFingerprint(), RETENTION, RESERVE).keys("oo:fx:stock").build()))
                    .isInstanceOf(AtomicOutcome.Completed.class);
            // Redis's clock is read after the first answered call, without blocking it
            Thread.sleep(500);

            IdempotencyKey late = newKey();
            server.pause();
            try {
                assertThatThrownBy(() -> executor.run(AtomicCall.of(late, newFingerprint(), RETENTION, RESERVE)
                        .keys("oo:fx:stock").build())).isInstanceOf(StoreUnavailableException.class);
            } finally {
                server.resume();
            }
            // the call sent while Redis was paused has run by the time a later command is answered
            assertThat(new String(connection.sync().get("oo:fx:stock".getBytes(UTF_8)), UTF_8)).isEqualTo("4");
            assertThat(records.find(late)).isEmpty();
        }
    }

    /** The deadline is on Redis's clock, measured against ours: a call past it is refused and does nothing. */
    @Test
    void aCallPastItsDeadlineOnRedisClockDoesNothing() throws Exception {
        try (PrivateRedisServer server = PrivateRedisServer.start()) {
            StatefulRedisConnection<byte[], byte[]> connection = server.connect();
            RedisStoreConfig config = new RedisStoreConfig("oo:", 64);
            AtomicLong now = new AtomicLong(System.currentTimeMillis() + 3_600_000);
            InstantSource clock = () -> Instant.ofEpochMilli(now.get());
            RedisAtomicExecutor executor = RedisAtomicExecutor.of(connection, config, clock);
            RedisIdempotencyStore records = RedisIdempotencyStore.of(connection, config);
            connection.sync().set("oo:fx:stock".getBytes(UTF_8), "5".getBytes(UTF_8));
            // an hour ahead of Redis: the offset makes up for it
            assertThat(executor.run(AtomicCall.of(newKey(), newFingerprint(), RETENTION, RESERVE).keys("oo:fx:stock").build()))
                    .isInstanceOf(AtomicOutcome.Completed.class);
            Thread.sleep(500);

            // our clock goes back a minute: the call's deadline is long past on Redis's
            now.addAndGet(-60_000);
            IdempotencyKey late = newKey();
            assertThatThrownBy(() -> executor.run(AtomicCall.of(late, newFingerprint(), RETENTION, RESERVE)
                    .keys("oo:fx:stock").build()))
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("ran after its budget: nothing was done");
            assertThat(new String(connection.sync().get("oo:fx:stock".getBytes(UTF_8)), UTF_8)).isEqualTo("4");
            assertThat(records.find(late)).isEmpty();
        }
    }

    private static long count(String stats, String command) {
        Matcher matcher = Pattern.compile("cmdstat_" + command + ":calls=([0-9]+)").matcher(stats);
        return matcher.find() ? Long.parseLong(matcher.group(1)) : 0;
    }
}
