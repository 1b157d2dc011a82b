package io.onlyonce.redis;

/** The token store contract on a 3-master Redis Cluster. */
class RedisClusterTokenStoreIT extends AbstractRedisTokenStoreIT {

    RedisClusterTokenStoreIT() {
        super(RedisFixture.Topology.CLUSTER);
    }
}
