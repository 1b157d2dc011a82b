package io.onlyonce.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.AclSetuserArgs;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.protocol.CommandType;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link RedisEvictionPolicy#check} on private servers whose policy the test sets (the shared test
 * servers are never reconfigured): a warning for every policy that can evict the stores' keys,
 * nothing for {@code noeviction}, and nothing, never an exception, from a server that refuses
 * {@code CONFIG} or is gone.
 */
class RedisEvictionPolicyIT {

    private static final String ADVICE = ". Every OnlyOnce key has a TTL, so when memory runs out Redis may evict running"
            + " claims, completed records and tokens, and an evicted record lets its request run twice. Set"
            + " maxmemory-policy noeviction, or give OnlyOnce a Redis instance of its own that runs noeviction.";

    @Test
    void noevictionIsSafe() throws Exception {
        try (PrivateRedisServer server = PrivateRedisServer.start()) {
            StatefulRedisConnection<byte[], byte[]> connection = server.connect();
            connection.sync().configSet("maxmemory", "100mb");
            connection.sync().configSet("maxmemory-policy", "noeviction");
            assertThat(connection.sync().configGet("maxmemory-policy")).containsEntry("maxmemory-policy", "noeviction");

            assertThat(RedisEvictionPolicy.check(connection)).isEmpty();
        }
    }

    @Test
    void volatileTtlIsNamedWithItsLimitAndTheAdvice() throws Exception {
        try (PrivateRedisServer server = PrivateRedisServer.start()) {
            StatefulRedisConnection<byte[], byte[]> connection = server.connect();
            connection.sync().configSet("maxmemory", "100mb");
            connection.sync().configSet("maxmemory-policy", "volatile-ttl");

            assertThat(RedisEvictionPolicy.check(connection)).contains("Redis runs maxmemory-policy volatile-ttl"
                    + " (maxmemory 104857600 bytes), which evicts the keys nearest to expiry, running claims first" + ADVICE);
        }
    }

    @Test
    void everyOtherPolicyIsAWarningToo() throws Exception {
        try (PrivateRedisServer server = PrivateRedisServer.start()) {
            StatefulRedisConnection<byte[], byte[]> connection = server.connect();
            for (String policy : new String[] {"volatile-lru", "volatile-lfu", "volatile-random", "allkeys-lru",
                    "allkeys-lfu", "allkeys-random"}) {
                connection.sync().configSet("maxmemory-policy", policy);
                connection.sync().configSet("maxmemory", "0");
                assertThat(RedisEvictionPolicy.check(connection)).as(policy).contains("Redis runs maxmemory-policy " + policy
                        + " (maxmemory 0, no limit yet: nothing is evicted until one is set)" + ADVICE);
                connection.sync().configSet("maxmemory", "2gb");
                assertThat(RedisEvictionPolicy.check(connection)).as(policy).hasValueSatisfying(warning ->
                        assertThat(warning).startsWith("Redis runs maxmemory-policy " + policy + " (maxmemory 2147483648 bytes)"));
            }
        }
    }

    @Test
    void aServerThatRenamedConfigAwayYieldsNothing() throws Exception {
        try (PrivateRedisServer server = PrivateRedisServer.start("--maxmemory-policy", "allkeys-lru",
                "--rename-command", "CONFIG", "")) {
            StatefulRedisConnection<byte[], byte[]> connection = server.connect();
            assertThatThrownBy(() -> connection.sync().configGet("maxmemory-policy"))
                    .isInstanceOf(RedisCommandExecutionException.class);

            assertThat(RedisEvictionPolicy.check(connection)).isEmpty();
        }
    }

    @Test
    void aUserDeniedConfigYieldsNothing() throws Exception {
        try (PrivateRedisServer server = PrivateRedisServer.start("--maxmemory-policy", "allkeys-lru")) {
            RedisCommands<byte[], byte[]> admin = server.connect().sync();
            admin.aclSetuser("app", AclSetuserArgs.Builder.on().addPassword("secret").allKeys().allCommands()
                    .removeCommand(CommandType.CONFIG));
            StatefulRedisConnection<byte[], byte[]> app = server.connectAs("app", "secret");
            assertThatThrownBy(() -> app.sync().configGet("maxmemory-policy"))
                    .isInstanceOf(RedisCommandExecutionException.class).hasMessageStartingWith("NOPERM");
            assertThat(admin.configGet("maxmemory-policy")).isEqualTo(Map.of("maxmemory-policy", "allkeys-lru"));

            assertThat(RedisEvictionPolicy.check(app)).isEmpty();
        }
    }

    @Test
    void aServerThatIsGoneYieldsNothing() throws Exception {
        try (PrivateRedisServer server = PrivateRedisServer.start("--maxmemory-policy", "allkeys-lru")) {
            StatefulRedisConnection<byte[], byte[]> connection = server.connect();
            assertThat(RedisEvictionPolicy.check(connection)).isPresent();
            server.kill();

            assertThat(RedisEvictionPolicy.check(connection)).isEmpty();
        }
    }

    @Test
    void everyClusterMasterIsChecked() throws Exception {
        try (PrivateRedisServer node = PrivateRedisServer.startClusterNode()) {
            StatefulRedisClusterConnection<byte[], byte[]> cluster = node.connectCluster();
            assertThat(RedisEvictionPolicy.check(cluster)).isEmpty();

            StatefulRedisConnection<byte[], byte[]> direct = node.connect();
            direct.sync().configSet("maxmemory", "1gb");
            direct.sync().configSet("maxmemory-policy", "volatile-lru");
            String address = cluster.getPartitions().getPartition(0).getUri().getHost() + ":"
                    + cluster.getPartitions().getPartition(0).getUri().getPort();

            assertThat(RedisEvictionPolicy.check(cluster)).contains("Redis Cluster node " + address
                    + " runs maxmemory-policy volatile-lru (maxmemory 1073741824 bytes)" + ADVICE);
        }
    }
}
