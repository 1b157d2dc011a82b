package io.onlyonce.redis;

import io.lettuce.core.RedisException;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisServerCommands;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import org.jspecify.annotations.Nullable;

/**
 * Checks that Redis will not evict the stores' keys. Every key the stores write has a TTL, so any
 * {@code maxmemory-policy} but {@code noeviction} lets Redis delete them when it reaches
 * {@code maxmemory}: {@code allkeys-*} and {@code volatile-*} alike, and {@code volatile-ttl} picks
 * the keys closest to expiry first, which are the running claims. An evicted claim or completed
 * record lets its request run a second time; an evicted token reads as already used. Run the stores
 * on a Redis with {@code maxmemory-policy noeviction} (a full Redis then refuses writes, which the
 * stores report as {@link io.onlyonce.StoreUnavailableException}), or on an instance of their own.
 *
 * <pre>{@code
 * RedisEvictionPolicy.check(connection).ifPresent(log::warn);   // at start-up
 * }</pre>
 */
public final class RedisEvictionPolicy {

    private static final String SAFE_POLICY = "noeviction";

    private RedisEvictionPolicy() {
    }

    /**
     * Reads {@code maxmemory-policy} and {@code maxmemory} with {@code CONFIG GET}: from the server of
     * a standalone (or Sentinel) connection, from every master of a Cluster connection.
     *
     * @param connection a standalone, Sentinel or Cluster connection, with any codec
     * @return a warning in English, naming the policy, the server and what to do, when a
     *     server can evict the stores' keys (any policy but {@code noeviction}, whether or not
     *     {@code maxmemory} is set yet); empty when every server that answered runs
     *     {@code noeviction}. A server that does not answer {@code CONFIG GET} (managed services
     *     rename or forbid it, an ACL may deny it) or cannot be reached is skipped: this method never
     *     throws for what the server answers
     * @throws IllegalArgumentException for a connection that is neither standalone nor Cluster
     */
    public static Optional<String> check(StatefulConnection<?, ?> connection) {
        List<String> risks = new ArrayList<>();
        if (connection instanceof StatefulRedisClusterConnection<?, ?> cluster) {
            List<RedisClusterNode> masters;
            try {
                masters = cluster.getPartitions().stream()
                        .filter(node -> node.is(RedisClusterNode.NodeFlag.UPSTREAM))
                        .toList();
            } catch (RedisException e) {
                return Optional.empty();
            }
            for (RedisClusterNode master : masters) {
                String where = "Redis Cluster node " + master.getUri().getHost() + ":" + master.getUri().getPort();
                try {
                    risk(where, cluster.getConnection(master.getNodeId()).sync()).ifPresent(risks::add);
                } catch (RedisException | CancellationException unreachable) {
                    // skipped, as documented
                }
            }
        } else if (connection instanceof StatefulRedisConnection<?, ?> standalone) {
            risk("Redis", standalone.sync()).ifPresent(risks::add);
        } else {
            throw new IllegalArgumentException("a standalone or Cluster connection is required");
        }
        return warning(risks);
    }

    /**
     * The same check on settings read through another client (Jedis, Redisson, Spring Data Redis).
     *
     * @param configByServer for each server (its name as the warning should say it, for example
     *     {@code "Redis"} or {@code "Redis Cluster node 10.0.0.1:6379"}), what {@code CONFIG GET}
     *     answered for {@code maxmemory-policy} and {@code maxmemory}; a server that did not answer
     *     is left out
     * @return the warning {@link #check(StatefulConnection)} gives for the same settings
     */
    public static Optional<String> check(Map<String, Map<String, String>> configByServer) {
        List<String> risks = new ArrayList<>();
        configByServer.forEach((where, config) ->
                risk(where, value(config, "maxmemory-policy"), value(config, "maxmemory")).ifPresent(risks::add));
        return warning(risks);
    }

    private static Optional<String> warning(List<String> risks) {
        if (risks.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(String.join("; ", risks) + ". Every OnlyOnce key has a TTL, so when memory runs out Redis may"
                + " evict running claims, completed records and tokens, and an evicted record lets its request run twice."
                + " Set maxmemory-policy noeviction, or give OnlyOnce a Redis instance of its own that runs noeviction.");
    }

    /** What one server risks, or empty when it runs {@code noeviction} or does not tell. */
    private static Optional<String> risk(String where, RedisServerCommands<?, ?> server) {
        @Nullable String policy;
        @Nullable String maxmemory;
        try {
            policy = value(server.configGet("maxmemory-policy"), "maxmemory-policy");
            maxmemory = value(server.configGet("maxmemory"), "maxmemory");
        } catch (RedisException | CancellationException refused) {
            return Optional.empty();
        }
        return risk(where, policy, maxmemory);
    }

    private static Optional<String> risk(String where, @Nullable String policy, @Nullable String maxmemory) {
        if (policy == null || SAFE_POLICY.equalsIgnoreCase(policy)) {
            return Optional.empty();
        }
        String limit = maxmemory == null ? "maxmemory unknown"
                : "0".equals(maxmemory) ? "maxmemory 0, no limit yet: nothing is evicted until one is set"
                : "maxmemory " + maxmemory + " bytes";
        String order = policy.equalsIgnoreCase("volatile-ttl") ? ", which evicts the keys nearest to expiry, running claims first" : "";
        return Optional.of(where + " runs maxmemory-policy " + policy + " (" + limit + ")" + order);
    }

    private static @Nullable String value(Map<String, String> config, String name) {
        for (Map.Entry<String, String> entry : config.entrySet()) {
            if (name.equalsIgnoreCase(entry.getKey())) {
                return entry.getValue();
            }
        }
        return null;
    }
}
