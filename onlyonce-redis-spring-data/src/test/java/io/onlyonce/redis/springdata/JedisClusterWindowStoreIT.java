package io.onlyonce.redis.springdata;

import io.onlyonce.redis.AbstractRedisWindowStoreIT;

/** The window store contract on a 3-master Redis Cluster through Jedis's Spring Data {@code RedisConnectionFactory}. */
class JedisClusterWindowStoreIT extends AbstractRedisWindowStoreIT {

    JedisClusterWindowStoreIT() {
        super(() -> new ContractFixture(Client.JEDIS, ContractFixture.Topology.CLUSTER));
    }
}
