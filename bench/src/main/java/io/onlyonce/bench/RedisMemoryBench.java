package io.onlyonce.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.StringCodec;
import io.onlyonce.Fingerprint;
import io.onlyonce.IdempotencyKey;
import io.onlyonce.StoredResponse;
import io.onlyonce.redis.RedisIdempotencyStore;
import io.onlyonce.redis.RedisStoreConfig;
import io.onlyonce.redis.RedisTokenStore;
import io.onlyonce.store.ClaimResult;
import io.onlyonce.token.OneTimeToken;
import java.net.ServerSocket;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Redis memory per issued token and per completed record, measured as the difference of
 * {@code INFO memory used_memory} on a private, empty redis-server started for the run. The
 * baseline is the one-key-per-token layout ({@code SET idem:token:<token> 1 EX 600}) measured on
 * the same server in the same run.
 *
 * <pre>bench/run.sh RedisMemoryBench [--tokens=100000] [--records=20000]</pre>
 */
public final class RedisMemoryBench {

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();

    private RedisMemoryBench() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = Harness.args(args);
        int tokens = Integer.parseInt(options.getOrDefault("tokens", "100000"));
        int records = Integer.parseInt(options.getOrDefault("records", "20000"));
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        Process server = new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no").redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        RedisClient client = RedisClient.create("redis://127.0.0.1:" + port);
        try {
            StatefulRedisConnection<String, String> text = connect(client);
            StatefulRedisConnection<byte[], byte[]> binary = client.connect(ByteArrayCodec.INSTANCE);
            RedisCommands<String, String> redis = text.sync();
            System.out.printf("Redis memory per entry (private redis-server %s, used_memory deltas)%n%n",
                    redis.info("server").lines().filter(l -> l.startsWith("redis_version")).findFirst().orElse(""));
            System.out.printf("%-66s %12s %10s%n", "layout", "bytes/entry", "vs seed");

            double seed = perEntry(redis, tokens, () -> {
                for (int i = 0; i < tokens; i++) {
                    redis.setex("idem:token:" + randomId(), 600, "1");
                }
            });
            print("one key per token: SET idem:token:<token> 1 EX 600", seed, seed);

            Instant now = Instant.now();
            for (int perMinute : new int[] {tokens / 10, 1_000}) {
                for (int shards : new int[] {256, 1024}) {
                    RedisTokenStore store = RedisTokenStore.standalone(binary, new RedisStoreConfig("oo:", shards));
                    int count = Math.min(tokens, perMinute * 10);
                    double bytes = perEntry(redis, count, () -> {
                        for (int i = 0; i < count; i++) {
                            long offset = (long) i * 600_000L / count;
                            store.save(new OneTimeToken(randomId(), now.plusMillis(60_000 + offset)), Duration.ofMillis(60_000 + offset));
                        }
                    });
                    print(String.format("OnlyOnce tokens, %,d issued per minute, %d shards", perMinute, shards), bytes, seed);
                }
            }

            RedisIdempotencyStore idempotency = RedisIdempotencyStore.standalone(binary, RedisStoreConfig.ofDefaults());
            StoredResponse response = StoredResponse.of(201, new byte[200]);
            Fingerprint fingerprint = Fingerprint.of("POST", "/orders", "{}");
            double record = perEntry(redis, records, () -> {
                for (int i = 0; i < records; i++) {
                    IdempotencyKey key = new IdempotencyKey("POST /api/orders u" + (i % 1000), "u42_1764460800000_" + randomId().substring(0, 6) + i);
                    ClaimResult.Claimed claimed = (ClaimResult.Claimed) idempotency.claim(key, fingerprint, Duration.ofSeconds(30));
                    idempotency.complete(key, claimed.owner(), response, Duration.ofHours(24));
                }
            });
            print("OnlyOnce completed record, 200-byte body, typical scope and key", record, Double.NaN);
            binary.close();
            text.close();
        } finally {
            client.shutdown();
            server.destroy();
            server.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static StatefulRedisConnection<String, String> connect(RedisClient client) throws InterruptedException {
        for (int attempt = 0; ; attempt++) {
            try {
                return client.connect(StringCodec.UTF8);
            } catch (RuntimeException e) {
                if (attempt > 50) {
                    throw e;
                }
                TimeUnit.MILLISECONDS.sleep(100);
            }
        }
    }

    private static void print(String label, double bytes, double seed) {
        System.out.printf("%-66s %12.1f %10s%n", label, bytes, Double.isNaN(seed) ? "-" : String.format("%.2f", bytes / seed));
    }

    private static String randomId() {
        byte[] id = new byte[16];
        RANDOM.nextBytes(id);
        return B64.encodeToString(id);
    }

    /** Bytes of used_memory per entry written by {@code load}, on an emptied server. */
    private static double perEntry(RedisCommands<String, String> redis, int entries, Runnable load) {
        redis.flushall();
        long before = usedMemory(redis);
        load.run();
        long after = usedMemory(redis);
        redis.flushall();
        return (after - before) / (double) entries;
    }

    private static long usedMemory(RedisCommands<String, String> redis) {
        return redis.info("memory").lines()
                .filter(l -> l.startsWith("used_memory:"))
                .map(l -> Long.parseLong(l.substring("used_memory:".length()).trim()))
                .findFirst().orElseThrow();
    }
}
