package io.onlyonce.redis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.SlotHash;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.redis.internal.RedisKeys;
import io.onlyonce.token.OneTimeToken;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The fused call on a Redis Cluster (a one-node Cluster of the test's own, owning every slot): the
 * whole suite with a key prefix that holds a hash tag, so that record, token, window and effect keys
 * share a slot; and, with a prefix without one, the refusal of keys that span slots, before anything
 * is sent, and a record pinned to the effect's slot with {@link AtomicCall.Builder#recordSlot(String)}.
 */
class RedisClusterAtomicExecutorIT extends AbstractRedisAtomicExecutorIT {

    private final String prefix = "{" + RedisTestSettings.randomPrefix().replace(":", "") + "}:";
    private final String untagged = RedisTestSettings.randomPrefix();
    private PrivateRedisServer server;
    private RedisAtomicExecutor spread;
    private RedisIdempotencyStore spreadStore;
    private RedisTokenStore spreadTokens;

    @Override
    StatefulConnection<byte[], byte[]> connect(RedisStoreConfig config) throws Exception {
        server = PrivateRedisServer.startClusterNode();
        StatefulConnection<byte[], byte[]> connection = server.connectCluster();
        RedisStoreConfig spreadConfig = new RedisStoreConfig(untagged, 64);
        spread = RedisAtomicExecutor.of(connection, spreadConfig);
        spreadStore = RedisIdempotencyStore.of(connection, spreadConfig);
        spreadTokens = RedisTokenStore.of(connection, spreadConfig);
        return connection;
    }

    @Override
    String keyPrefix() {
        return prefix;
    }

    @Override
    void disconnect() throws Exception {
        server.close();
    }

    @Test
    void keysOfSeveralSlotsAreRefusedBeforeAnythingIsSent() {
        IdempotencyKey key = newKey();
        String counter = untagged + "fx:runs:" + UUID.randomUUID();
        byte[] recordKey = new RedisKeys(untagged).idempotency(key);
        AtomicCall call = AtomicCall.of(key, newFingerprint(), RETENTION, COUNTING).keys(counter).args("x").build();

        assertThatThrownBy(() -> spread.run(call))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("atomic counting")
                .hasMessageContaining(new String(recordKey, UTF_8) + " (slot " + SlotHash.getSlot(recordKey) + ")")
                .hasMessageContaining(counter + " (slot " + SlotHash.getSlot(counter) + ")");
        assertThatThrownBy(() -> spread.runAsync(call).toCompletableFuture().join())
                .hasCauseInstanceOf(IllegalArgumentException.class);
        assertThat(get(counter)).isNull();
        assertThat(spreadStore.find(key)).isEmpty();
    }

    @Test
    void aTokenWithoutTheRecordsSlotIsRefused() {
        OneTimeToken token = newToken();
        spreadTokens.save(token, Duration.ofSeconds(60));
        IdempotencyKey key = newKey();

        assertThatThrownBy(() -> spread.run(AtomicCall.of(key, newFingerprint(), RETENTION, COUNTING)
                .keys("{sale-" + UUID.randomUUID() + "}:runs").args("x").recordSlot("elsewhere").token(token).build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("slot");
        assertThat(spreadTokens.consume(token)).as("untouched").isTrue();
    }

    @Test
    void aRecordPinnedToTheEffectsSlotJoinsIt() {
        String sale = "sale-" + UUID.randomUUID();
        String stock = "{" + sale + "}:stock";
        commands().set(stock.getBytes(UTF_8), "1".getBytes(UTF_8));
        IdempotencyKey key = newKey();
        AtomicCall call = AtomicCall.of(key, newFingerprint(), RETENTION, RESERVE).keys(stock).recordSlot(sale).build();
        byte[] recordKey = new RedisKeys(untagged).idempotency(key, sale);
        assertThat(new String(recordKey, UTF_8)).startsWith(untagged + "i{" + sale + "}:");
        assertThat(SlotHash.getSlot(recordKey)).isEqualTo(SlotHash.getSlot(stock));

        AtomicOutcome first = spread.run(call);
        AtomicOutcome again = spread.run(call);

        assertThat(first).isInstanceOf(AtomicOutcome.Completed.class);
        assertThat(((AtomicOutcome.Existing) again).record().response())
                .isEqualTo(((AtomicOutcome.Completed) first).response());
        assertThat(get(stock)).isEqualTo("0");
        assertThat(spread.find(key, sale).orElseThrow().response()).isEqualTo(((AtomicOutcome.Completed) first).response());
        assertThat(spreadStore.find(key)).as("another key than the store's").isEmpty();
        assertThat(spread.find(key, null)).isEmpty();
    }
}
