package io.onlyonce.redis;

/** The window store contract on a 3-master Redis Cluster. */
class RedisClusterWindowStoreIT extends AbstractRedisWindowStoreIT {

    RedisClusterWindowStoreIT() {
        super(RedisFixture.Topology.CLUSTER);
    }
}
