package io.onlyonce.redis.springdata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.redis.RedisIdempotencyStore;
import io.onlyonce.redis.RedisStoreConfig;
import io.onlyonce.redis.RedisStoreConnection;
import io.onlyonce.redis.script.CorruptValueException;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.store.IdempotencyStore;
import io.onlyonce.testing.PrivateRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What each client must do beyond the contract, each on a private server: the script cache lost
 * ({@code SCRIPT FLUSH}), a key of another type, a paused server answered within the store's budget
 * whatever the client's own 60 s timeout, an application started while Redis is down, and the
 * eviction-policy warning.
 */
class SpringDataClientsIT {

    private static final Duration LEASE = Duration.ofSeconds(30);
    /** The clients' own timeout in these tests: a store that waited for it would fail them. */
    private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration BUDGET = Duration.ofMillis(300);
    private static final RedisStoreConfig CONFIG = new RedisStoreConfig("oo-sd:", 16, BUDGET);

    @ParameterizedTest
    @EnumSource(Client.class)
    void aLostScriptCacheIsRefilledAndTheScriptRunsOnce(Client client) throws Exception {
        onPrivateServer(client, Duration.ofSeconds(2), (server, store) -> {
            IdempotencyKey first = new IdempotencyKey("s", "first");
            assertThat(store.claim(first, Fingerprint.of("a"), LEASE)).isInstanceOf(ClaimResult.Claimed.class);
            lettuce(server, commands -> commands.sync().scriptFlush());

            IdempotencyKey second = new IdempotencyKey("s", "second");
            assertThat(store.claim(second, Fingerprint.of("a"), LEASE)).isInstanceOf(ClaimResult.Claimed.class);
            assertThat(store.claim(second, Fingerprint.of("a"), LEASE)).isInstanceOf(ClaimResult.Existing.class);
            lettuce(server, commands -> assertThat(commands.sync().exists("oo-sd:i:s:second")).isEqualTo(1));
        });
    }

    @ParameterizedTest
    @EnumSource(Client.class)
    void aKeyOfAnotherTypeIsReportedAsCorruptAndLeftAlone(Client client) throws Exception {
        onPrivateServer(client, Duration.ofSeconds(2), (server, store) -> {
            lettuce(server, commands -> commands.sync().rpush("oo-sd:i:s:list", "x"));
            lettuce(server, commands -> commands.sync().set("oo-sd:i:s:text", "not a record"));

            assertThatThrownBy(() -> store.claim(new IdempotencyKey("s", "list"), Fingerprint.of("a"), LEASE))
                    .isInstanceOf(StoreUnavailableException.class)
                    .cause().isInstanceOf(CorruptValueException.class).hasMessageContaining("oo-sd:i:s:list");
            assertThatThrownBy(() -> store.find(new IdempotencyKey("s", "text")))
                    .isInstanceOf(StoreUnavailableException.class)
                    .cause().isInstanceOf(CorruptValueException.class).hasMessageContaining("oo-sd:i:s:text");
            lettuce(server, commands -> assertThat(commands.sync().get("oo-sd:i:s:text")).isEqualTo("not a record"));
        });
    }

    @ParameterizedTest
    @EnumSource(Client.class)
    void aPausedServerIsAnsweredWithinTheBudgetNotTheClientsTimeout(Client client) throws Exception {
        onPrivateServer(client, BUDGET, (server, store) -> {
            IdempotencyKey key = new IdempotencyKey("s", "paused");
            assertThat(store.claim(key, Fingerprint.of("a"), LEASE)).isInstanceOf(ClaimResult.Claimed.class);
            server.pause();
            try {
                for (int call = 0; call < 3; call++) {
                    long start = System.nanoTime();
                    assertThatThrownBy(() -> store.find(key)).isInstanceOf(StoreUnavailableException.class)
                            .hasMessageContaining("budget");
                    // the budget is 300 ms, the client's own timeout 60 s
                    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
                }
            } finally {
                server.resume();
            }
            assertThat(await(() -> store.find(key).isPresent())).isTrue();
        });
    }

    @ParameterizedTest
    @EnumSource(Client.class)
    void aHungServerHoldsAtMostThePoolsThreadsAndTheRestAreRefusedAtOnce(Client client) throws Exception {
        try (PrivateRedis server = PrivateRedis.start();
                Client.Factory factory = client.connect("127.0.0.1", server.port(), CLIENT_TIMEOUT);
                RedisStoreConnection connection = SpringDataRedisStoreConnection.of(factory.factory(), 2, warning -> { })) {
            IdempotencyStore store = RedisIdempotencyStore.of(connection, CONFIG);
            assertThat(store.find(new IdempotencyKey("s", "warm"))).isEmpty();
            Set<String> before = redisThreads();
            server.pause();
            try {
                int calls = 16;
                ExecutorService callers = Executors.newFixedThreadPool(calls);
                List<Future<Throwable>> failures = new ArrayList<>();
                long start = System.nanoTime();
                for (int i = 0; i < calls; i++) {
                    IdempotencyKey key = new IdempotencyKey("s", "hung-" + i);
                    failures.add(callers.submit(() -> {
                        try {
                            store.claim(key, Fingerprint.of("a"), LEASE);
                            return null;
                        } catch (StoreUnavailableException e) {
                            return e;
                        }
                    }));
                }
                List<String> messages = new ArrayList<>();
                for (Future<Throwable> failure : failures) {
                    Throwable thrown = failure.get(10, TimeUnit.SECONDS);
                    assertThat(thrown).isInstanceOf(StoreUnavailableException.class);
                    messages.add(thrown.getMessage());
                }
                callers.shutdownNow();
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
                assertThat(messages).anyMatch(message -> message.contains("every Redis thread is waiting"));
                Set<String> added = redisThreads();
                added.removeAll(before);
                assertThat(added).as("threads the stuck calls hold").hasSizeLessThanOrEqualTo(2);
            } finally {
                server.resume();
            }
        }
    }

    /** The names of the live threads of the store connections' pools. */
    private static Set<String> redisThreads() {
        Set<String> names = new HashSet<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().startsWith("onlyonce-redis-") && !thread.getName().contains("connect")) {
                names.add(thread.getName());
            }
        }
        return names;
    }

    @ParameterizedTest
    @EnumSource(Client.class)
    void anApplicationStartsWhileRedisIsDownAndConnectsOnFirstUse(Client client) throws Exception {
        int port = PrivateRedis.freePort();
        try (Client.Factory factory = client.connect("127.0.0.1", port, Duration.ofSeconds(1));
                RedisStoreConnection connection = SpringDataRedisStoreConnection.of(factory.factory())) {
            IdempotencyStore store = RedisIdempotencyStore.of(connection, CONFIG);
            assertThat(connection.isConnected()).isFalse();
            IdempotencyKey key = new IdempotencyKey("s", "later");
            long start = System.nanoTime();
            assertThatThrownBy(() -> store.claim(key, Fingerprint.of("a"), LEASE)).isInstanceOf(StoreUnavailableException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));

            try (PrivateRedis server = PrivateRedis.start(port)) {
                assertThat(await(() -> store.claim(key, Fingerprint.of("a"), LEASE) instanceof ClaimResult.Claimed)).isTrue();
                assertThat(connection.isConnected()).isTrue();
                lettuce(server, commands -> assertThat(commands.sync().exists("oo-sd:i:s:later")).isEqualTo(1));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Client.class)
    void aServerThatCanEvictIsReportedOnceAfterTheFirstCall(Client client) throws Exception {
        try (PrivateRedis server = PrivateRedis.start();
                Client.Factory factory = client.connect("127.0.0.1", server.port(), CLIENT_TIMEOUT)) {
            lettuce(server, commands -> commands.sync().configSet("maxmemory-policy", "volatile-ttl"));
            List<String> warnings = new CopyOnWriteArrayList<>();
            try (RedisStoreConnection connection = SpringDataRedisStoreConnection.of(factory.factory(), 4, warnings::add)) {
                IdempotencyStore store = RedisIdempotencyStore.of(connection, CONFIG.withCommandTimeout(Duration.ofSeconds(2)));
                assertThat(warnings).isEmpty();
                store.find(new IdempotencyKey("s", "a"));
                store.find(new IdempotencyKey("s", "b"));
                assertThat(await(() -> !warnings.isEmpty())).isTrue();
                Thread.sleep(200);
                assertThat(warnings).singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
                        .contains("Redis runs maxmemory-policy volatile-ttl").contains("noeviction");
            }
        }
    }

    private interface OnServer {
        void run(PrivateRedis server, IdempotencyStore store) throws Exception;
    }

    /** Runs {@code test} with a store on a private server through {@code client}, whose own timeout is 60 s. */
    private static void onPrivateServer(Client client, Duration budget, OnServer test) throws Exception {
        try (PrivateRedis server = PrivateRedis.start();
                Client.Factory factory = client.connect("127.0.0.1", server.port(), CLIENT_TIMEOUT);
                RedisStoreConnection connection = SpringDataRedisStoreConnection.of(factory.factory())) {
            test.run(server, RedisIdempotencyStore.of(connection, CONFIG.withCommandTimeout(budget)));
        }
    }

    private interface RedisAction {
        void run(StatefulRedisConnection<String, String> connection) throws Exception;
    }

    /** Plain commands on the private server, behind the stores' back. */
    private static void lettuce(PrivateRedis server, RedisAction action) throws Exception {
        RedisClient client = RedisClient.create(server.url());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            action.run(connection);
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(3));
        }
    }

    private interface Condition {
        boolean holds() throws Exception;
    }

    /** Whether {@code condition} holds within 15 s, failures counting as "not yet". */
    private static boolean await(Condition condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (System.nanoTime() < deadline) {
            try {
                if (condition.holds()) {
                    return true;
                }
            } catch (Exception notYet) {
                // try again
            }
            Thread.sleep(100);
        }
        return false;
    }
}
