package io.onlyonce.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.onlyonce.Fingerprint;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.gateway.internal.LazyRedisConnection;
import io.onlyonce.redis.RedisStoreConfig;
import io.onlyonce.redis.RedisWindowStore;
import io.onlyonce.redis.script.CorruptValueException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The gateway's window store as the auto-configuration builds it ({@link LazyRedisConnection}, the
 * store's budget the filter's timeout), on the real Redis (127.0.0.1:6379 unless
 * {@code ONLYONCE_REDIS_URI} says otherwise) under a prefix of this run's own: it counts the
 * windows the blocking {@link RedisWindowStore} counts, and a window key holding a value the stores
 * did not write is answered exactly as {@code RedisWindowStore} answers it, and left alone.
 */
class ReactiveRedisWindowStoreIT {

    private static final String REDIS = System.getenv().getOrDefault("ONLYONCE_REDIS_URI", "redis://127.0.0.1:6379");
    private static final String PREFIX = "oo-gw-store-" + UUID.randomUUID().toString().substring(0, 8) + ":";
    private static final RedisStoreConfig CONFIG = new RedisStoreConfig(PREFIX, RedisStoreConfig.DEFAULT_TOKEN_SHARDS,
            Duration.ofSeconds(2));
    private static final Duration WINDOW = Duration.ofSeconds(30);
    private static final Duration ANSWER_WITHIN = Duration.ofSeconds(10);

    private static LazyRedisConnection gateway;
    private static RedisClient client;
    private static StatefulRedisConnection<byte[], byte[]> service;
    private static ReactiveRedisWindowStore reactive;
    private static RedisWindowStore blocking;

    @BeforeAll
    static void connect() {
        gateway = new LazyRedisConnection(REDIS, Duration.ofSeconds(3));
        reactive = new ReactiveRedisWindowStore(RedisWindowStore.of(gateway.connection(), CONFIG));
        client = RedisClient.create(REDIS);
        service = client.connect(ByteArrayCodec.INSTANCE);
        blocking = RedisWindowStore.standalone(service, CONFIG);
    }

    @AfterAll
    static void deleteKeysAndDisconnect() {
        try {
            // SCAN, not KEYS: its signature is the same on Lettuce 6 (Boot 3.5) and 7
            List<byte[]> keys = new java.util.ArrayList<>();
            io.lettuce.core.ScanCursor cursor = io.lettuce.core.ScanCursor.INITIAL;
            do {
                io.lettuce.core.KeyScanCursor<byte[]> page =
                        commands().scan(cursor, io.lettuce.core.ScanArgs.Builder.matches(PREFIX + "*").limit(1000));
                keys.addAll(page.getKeys());
                cursor = page;
            } while (!cursor.isFinished());
            if (!keys.isEmpty()) {
                commands().del(keys.toArray(byte[][]::new));
            }
        } finally {
            service.close();
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            gateway.close();
        }
    }

    @Test
    void theGatewayAndAServiceCountOneWindow() {
        Fingerprint fingerprint = fingerprint();

        assertThat(reactive.hit(fingerprint, WINDOW).block(ANSWER_WITHIN).first()).isTrue();
        assertThat(blocking.hit(fingerprint, WINDOW).count()).isEqualTo(2);
        KeyedWindowHit keyed = reactive.hit(fingerprint, WINDOW, "0a1b").block(ANSWER_WITHIN);
        assertThat(keyed.hit().count()).isEqualTo(3);
        assertThat(keyed.retry()).isFalse();
        assertThat(commands().get(key(fingerprint))).asString().isEqualTo("3");
    }

    static Stream<Arguments> foreignValues() {
        return Stream.of(
                Arguments.of("text", (Consumer<byte[]>) key -> commands().psetex(key, 60_000, bytes("abc"))),
                Arguments.of("another type", (Consumer<byte[]>) key -> {
                    commands().hset(key, bytes("f"), bytes("1"));
                    commands().pexpire(key, 60_000);
                }),
                Arguments.of("a counter without TTL", (Consumer<byte[]>) key -> commands().set(key, bytes("5"))),
                Arguments.of("an opener that is not hex", (Consumer<byte[]>) key -> commands().psetex(key, 60_000, bytes("3:xyz"))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("foreignValues")
    void aForeignValueUnderTheWindowKeyIsAnsweredAsTheBlockingStoreAnswersIt(String kind, Consumer<byte[]> write) {
        Fingerprint fingerprint = fingerprint();
        byte[] key = key(fingerprint);
        write.accept(key);
        String before = commands().type(key);

        Throwable expected = catchThrowable(() -> blocking.hit(fingerprint, WINDOW));
        assertThat(expected).isInstanceOf(StoreUnavailableException.class)
                .hasMessage("store unavailable during hit")
                .cause().isInstanceOf(CorruptValueException.class)
                .hasMessageStartingWith("corrupt value under Redis key " + PREFIX + "w:" + fingerprint.hex() + ": ");

        for (Throwable answered : List.of(
                catchThrowable(() -> reactive.hit(fingerprint, WINDOW).block(ANSWER_WITHIN)),
                catchThrowable(() -> reactive.hit(fingerprint, WINDOW, "0a1b").block(ANSWER_WITHIN)))) {
            assertThat(answered).isInstanceOf(expected.getClass()).hasMessage(expected.getMessage());
            assertThat(answered.getCause()).isInstanceOf(expected.getCause().getClass())
                    .hasMessage(expected.getCause().getMessage());
        }
        assertThat(commands().type(key)).as("left alone").isEqualTo(before);
        commands().del(key);
    }

    private static Fingerprint fingerprint() {
        return Fingerprint.of("gateway", UUID.randomUUID().toString());
    }

    private static byte[] key(Fingerprint fingerprint) {
        return bytes(PREFIX + "w:" + fingerprint.hex());
    }

    private static RedisCommands<byte[], byte[]> commands() {
        return service.sync();
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
