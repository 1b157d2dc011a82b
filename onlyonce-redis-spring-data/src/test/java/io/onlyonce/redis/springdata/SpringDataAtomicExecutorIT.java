package io.onlyonce.redis.springdata;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoreUnavailableException;
import io.onlyonce.StoredResponse;
import io.onlyonce.redis.AtomicCall;
import io.onlyonce.redis.AtomicOutcome;
import io.onlyonce.redis.RedisAtomicExecutor;
import io.onlyonce.redis.RedisEffect;
import io.onlyonce.redis.RedisIdempotencyStore;
import io.onlyonce.redis.RedisStoreConfig;
import io.onlyonce.redis.RedisStoreConnection;
import io.onlyonce.redis.RedisTokenStore;
import io.onlyonce.redis.script.CorruptValueException;
import io.onlyonce.testing.PrivateRedis;
import io.onlyonce.token.OneTimeToken;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The fused call of {@link RedisAtomicExecutor} through each Spring Data client, on a private
 * server: complete and replay, a decline with a token, a large response, a failed effect
 * ({@link IllegalStateException}) and a foreign value ({@link StoreUnavailableException}).
 */
class SpringDataAtomicExecutorIT {

    private static final RedisStoreConfig CONFIG = new RedisStoreConfig("oo-sd:", 16, Duration.ofSeconds(2));
    private static final Duration RETENTION = Duration.ofMinutes(5);
    private static final RedisEffect RESERVE = RedisEffect.of("reserve", """
            local stock = tonumber(redis.call('GET', KEYS[1]) or '0')
            if stock <= 0 then
              return {'decline', 'sold out', stock}
            end
            redis.call('DECR', KEYS[1])
            return {'complete', 202, ARGV[1], 'Location', '/reservations/ä'}
            """);
    private static final RedisEffect BROKEN = RedisEffect.of("broken", "error('no such thing')");

    @ParameterizedTest
    @EnumSource(Client.class)
    void theFusedCallRunsThroughEveryClient(Client client) throws Exception {
        try (PrivateRedis server = PrivateRedis.start();
                Client.Factory factory = client.connect("127.0.0.1", server.port(), Duration.ofSeconds(3));
                RedisStoreConnection connection = SpringDataRedisStoreConnection.of(factory.factory())) {
            RedisAtomicExecutor atomic = RedisAtomicExecutor.of(connection, CONFIG);
            RedisIdempotencyStore store = RedisIdempotencyStore.of(connection, CONFIG);
            RedisTokenStore tokens = RedisTokenStore.of(connection, CONFIG);
            lettuce(server, commands -> commands.sync().set("oo-sd:stock", "1"));
            byte[] body = new byte[64 * 1024];
            new Random(7).nextBytes(body);
            IdempotencyKey key = new IdempotencyKey("s", "first");
            AtomicCall call = AtomicCall.of(key, Fingerprint.of("a"), RETENTION, RESERVE)
                    .keys("oo-sd:stock").args(body).build();

            AtomicOutcome first = atomic.run(call);
            AtomicOutcome again = atomic.run(call);

            StoredResponse expected = new StoredResponse(202,
                    List.of(new StoredResponse.Header("Location", "/reservations/ä")), body);
            assertThat(first).isEqualTo(new AtomicOutcome.Completed(expected));
            assertThat(((AtomicOutcome.Existing) again).record().response()).isEqualTo(expected);
            assertThat(store.find(key).orElseThrow().response()).isEqualTo(expected);

            OneTimeToken token = new OneTimeToken("AAAAAAAAAAAAAAAAAAAAAA", Instant.now().plusSeconds(60));
            tokens.save(token, Duration.ofSeconds(60));
            AtomicOutcome soldOut = atomic.run(AtomicCall.of(new IdempotencyKey("s", "second"), Fingerprint.of("b"),
                    RETENTION, RESERVE).keys("oo-sd:stock").args("x").token(token).build());
            assertThat(((AtomicOutcome.Declined) soldOut).text(0)).isEqualTo("sold out");
            assertThat(((AtomicOutcome.Declined) soldOut).values().get(1)).isEqualTo(0L);
            assertThat(tokens.consume(token)).as("consumed by the decline").isFalse();

            assertThatThrownBy(() -> atomic.run(AtomicCall.of(new IdempotencyKey("s", "broken"), Fingerprint.of("c"),
                    RETENTION, BROKEN).build()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("atomic broken")
                    .hasMessageContaining("no such thing");
            assertThat(store.find(new IdempotencyKey("s", "broken"))).isEmpty();

            lettuce(server, commands -> commands.sync().rpush("oo-sd:i:s:list", "x"));
            assertThatThrownBy(() -> atomic.run(AtomicCall.of(new IdempotencyKey("s", "list"), Fingerprint.of("d"),
                    RETENTION, RESERVE).keys("oo-sd:stock").args("x").build()))
                    .isInstanceOf(StoreUnavailableException.class)
                    .cause().isInstanceOf(CorruptValueException.class).hasMessageContaining("oo-sd:i:s:list");
        }
    }

    private interface RedisAction {
        void run(StatefulRedisConnection<String, String> connection) throws Exception;
    }

    private static void lettuce(PrivateRedis server, RedisAction action) throws Exception {
        RedisClient client = RedisClient.create(server.url());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            action.run(connection);
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(3));
        }
    }
}
