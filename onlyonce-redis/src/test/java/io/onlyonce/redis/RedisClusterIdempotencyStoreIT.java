package io.onlyonce.redis;

/** The idempotency store contract on a 3-master Redis Cluster. */
class RedisClusterIdempotencyStoreIT extends AbstractRedisIdempotencyStoreIT {

    RedisClusterIdempotencyStoreIT() {
        super(RedisFixture.Topology.CLUSTER);
    }
}
