package io.onlyonce.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.codec.ByteArrayCodec;
import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.token.OneTimeToken;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The budget of a store call ({@link RedisStoreConfig#commandTimeout()}) on private servers the
 * tests pause, start late or never start, with clients on Lettuce's defaults (a 60 s command
 * timeout, reconnecting): a call ends within its budget, whatever the client would wait. The upper
 * bounds asserted (10 s) only prove "not the client's 60 s".
 */
class RedisCommandBudgetIT {

    private static final Duration BUDGET = Duration.ofMillis(500);
    private static final long FAR_BELOW_THE_CLIENT_TIMEOUT = TimeUnit.SECONDS.toNanos(10);
    private static final RedisStoreConfig CONFIG = new RedisStoreConfig(RedisTestSettings.randomPrefix(), 16, BUDGET);
    private static final Fingerprint FINGERPRINT = Fingerprint.of("budget");
    private static final Duration LEASE = Duration.ofSeconds(30);

    @Test
    void aServerThatStopsAnsweringFailsTheCallWithinItsBudgetNotTheClientsTimeout() throws Exception {
        try (PrivateRedisServer server = PrivateRedisServer.start()) {
            RedisClient client = RedisClient.create(RedisURI.create("redis://127.0.0.1:" + server.uri().getPort()));
            try {
                StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE);
                assertThat(connection.getTimeout()).isEqualTo(Duration.ofSeconds(60));
                RedisIdempotencyStore store = RedisIdempotencyStore.standalone(connection, CONFIG);
                assertThat(store.claim(key("before"), FINGERPRINT, LEASE)).isInstanceOf(ClaimResult.Claimed.class);

                server.pause();
                long start = System.nanoTime();
                assertThatThrownBy(() -> store.claim(key("paused"), FINGERPRINT, LEASE))
                        .isInstanceOf(StoreUnavailableException.class)
                        .hasRootCauseInstanceOf(RedisCommandTimeoutException.class);
                assertThat(System.nanoTime() - start).isLessThan(FAR_BELOW_THE_CLIENT_TIMEOUT);

                server.resume();
                assertThat(store.claim(key("after"), FINGERPRINT, LEASE)).isInstanceOf(ClaimResult.Claimed.class);
            } finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(5));
            }
        }
    }

    /**
     * A claim and a token consume that Redis runs after their caller gave up (the server was paused
     * past the budget, and the caller was told the store is unavailable) do nothing: the retry of the
     * request that never ran claims its key, rather than being told it is in progress for the whole
     * lease, and its one-time token is still alive.
     */
    @Test
    void aClaimOrATokenConsumeRedisRunsAfterItsCallerGaveUpDoesNothing() throws Exception {
        try (PrivateRedisServer server = PrivateRedisServer.start()) {
            StatefulRedisConnection<byte[], byte[]> connection = server.connect();
            RedisIdempotencyStore store = RedisIdempotencyStore.of(connection, CONFIG);
            RedisTokenStore tokens = RedisTokenStore.of(connection, CONFIG);
            OneTimeToken token = AbstractRedisAtomicExecutorIT.newToken();
            tokens.save(token, Duration.ofMinutes(2));
            assertThat(store.claim(key("first"), FINGERPRINT, LEASE)).isInstanceOf(ClaimResult.Claimed.class);
            assertThat(tokens.consume(AbstractRedisAtomicExecutorIT.newToken())).isFalse();
            // Redis's clock is read after the first answered call of each store, without blocking it
            Thread.sleep(500);

            server.pause();
            try {
                assertThatThrownBy(() -> store.claim(key("late"), FINGERPRINT, LEASE))
                        .isInstanceOf(StoreUnavailableException.class);
                assertThatThrownBy(() -> tokens.consume(token)).isInstanceOf(StoreUnavailableException.class);
                Thread.sleep(BUDGET.toMillis());
            } finally {
                server.resume();
            }
            // both calls sent while Redis was paused have run (and done nothing) before these are answered
            assertThat(store.find(key("late"))).isEmpty();
            assertThat(store.claim(key("late"), FINGERPRINT, LEASE)).isInstanceOf(ClaimResult.Claimed.class);
            assertThat(tokens.consume(token)).isTrue();
        }
    }

    @Test
    void anAsynchronousCallToAServerThatStopsAnsweringNeverBlocksAndFailsWithinItsBudget() throws Exception {
        try (PrivateRedisServer server = PrivateRedisServer.start()) {
            RedisClient client = RedisClient.create(RedisURI.create("redis://127.0.0.1:" + server.uri().getPort()));
            try {
                RedisIdempotencyStore store = RedisIdempotencyStore.standalone(client.connect(ByteArrayCodec.INSTANCE), CONFIG);
                assertThat(store.claimAsync(key("before"), FINGERPRINT, LEASE).toCompletableFuture().get(10, TimeUnit.SECONDS))
                        .isInstanceOf(ClaimResult.Claimed.class);

                server.pause();
                long start = System.nanoTime();
                CompletableFuture<ClaimResult> paused = store.claimAsync(key("paused"), FINGERPRINT, LEASE).toCompletableFuture();
                assertThat(paused).as("the call returns before the server answers").isNotDone();
                assertThatThrownBy(() -> paused.get(10, TimeUnit.SECONDS))
                        .hasCauseInstanceOf(StoreUnavailableException.class);
                assertThat(System.nanoTime() - start).isLessThan(FAR_BELOW_THE_CLIENT_TIMEOUT);

                server.resume();
                assertThat(store.claimAsync(key("after"), FINGERPRINT, LEASE).toCompletableFuture().get(10, TimeUnit.SECONDS))
                        .isInstanceOf(ClaimResult.Claimed.class);
            } finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(5));
            }
        }
    }

    @Test
    void anAsynchronousCallWhileTheFirstConnectionCannotBeMadeFailsWithoutBlocking() throws Exception {
        int port = PrivateRedisServer.freePort();
        RedisClient client = RedisClient.create(RedisURI.create("redis://127.0.0.1:" + port));
        try (RedisStoreConnection connection = RedisStoreConnection.onFirstUse(() -> client, made -> { })) {
            RedisIdempotencyStore store = RedisIdempotencyStore.of(connection, CONFIG);
            long start = System.nanoTime();
            CompletableFuture<ClaimResult> down = store.claimAsync(key("down"), FINGERPRINT, LEASE).toCompletableFuture();
            assertThatThrownBy(() -> down.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(StoreUnavailableException.class);
            assertThat(System.nanoTime() - start).isLessThan(FAR_BELOW_THE_CLIENT_TIMEOUT);
            try (PrivateRedisServer server = PrivateRedisServer.startOn(port)) {
                assertThat(store.claimAsync(key("up"), FINGERPRINT, LEASE).toCompletableFuture().get(10, TimeUnit.SECONDS))
                        .isInstanceOf(ClaimResult.Claimed.class);
            }
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(5));
        }
    }

    @Test
    void storesOnAConnectionMadeOnFirstUseWorkOnceRedisComesUp() throws Exception {
        int port = PrivateRedisServer.freePort();
        RedisClient client = RedisClient.create(RedisURI.create("redis://127.0.0.1:" + port));
        List<StatefulConnection<byte[], byte[]>> connected = new CopyOnWriteArrayList<>();
        try (RedisStoreConnection connection = RedisStoreConnection.onFirstUse(() -> client, connected::add)) {
            RedisIdempotencyStore store = RedisIdempotencyStore.of(connection, CONFIG);
            RedisWindowStore windows = RedisWindowStore.of(connection, CONFIG);

            long start = System.nanoTime();
            assertThatThrownBy(() -> store.claim(key("down"), FINGERPRINT, LEASE)).isInstanceOf(StoreUnavailableException.class);
            assertThatThrownBy(() -> windows.hit(FINGERPRINT, LEASE)).isInstanceOf(StoreUnavailableException.class);
            assertThat(System.nanoTime() - start).isLessThan(FAR_BELOW_THE_CLIENT_TIMEOUT);
            assertThat(connection.isConnected()).isFalse();
            assertThat(connected).isEmpty();

            try (PrivateRedisServer server = PrivateRedisServer.startOn(port)) {
                assertThat(store.claim(key("up"), FINGERPRINT, LEASE)).isInstanceOf(ClaimResult.Claimed.class);
                assertThat(store.claim(key("up"), FINGERPRINT, LEASE)).isInstanceOf(ClaimResult.Existing.class);
                assertThat(windows.hit(FINGERPRINT, LEASE).first()).isTrue();
                assertThat(connection.isConnected()).isTrue();
                awaitSize(connected, 1);
                assertThat(connected).as("one connection, told once").hasSize(1);
            }
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(5));
        }
    }

    @Test
    void aClusterClientThatExistsOnlyLaterIsConnectedByTheFirstCallAfterIt() throws Exception {
        try (PrivateRedisServer server = PrivateRedisServer.startClusterNode()) {
            AtomicReference<AbstractRedisClient> client = new AtomicReference<>();
            RedisStoreConnection connection = RedisStoreConnection.onFirstUse(() -> {
                AbstractRedisClient started = client.get();
                if (started == null) {
                    throw new IllegalStateException("the client is not started yet");
                }
                return started;
            });
            RedisIdempotencyStore store = RedisIdempotencyStore.of(connection, CONFIG);
            assertThatThrownBy(() -> store.claim(key("early"), FINGERPRINT, LEASE))
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasRootCauseMessage("the client is not started yet");

            RedisClusterClient cluster = RedisClusterClient.create(RedisURI.create("redis://127.0.0.1:" + server.uri().getPort()));
            client.set(cluster);
            try {
                assertThat(store.claim(key("late"), FINGERPRINT, LEASE)).isInstanceOf(ClaimResult.Claimed.class);
                assertThat(store.find(key("late"))).isPresent();

                connection.close();
                assertThatThrownBy(() -> store.find(key("late"))).isInstanceOf(StoreUnavailableException.class);
            } finally {
                cluster.shutdown(Duration.ZERO, Duration.ofSeconds(5));
            }
        }
    }

    private static IdempotencyKey key(String name) {
        return new IdempotencyKey("budget", name);
    }

    private static void awaitSize(List<?> list, int size) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (list.size() < size && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
    }
}
