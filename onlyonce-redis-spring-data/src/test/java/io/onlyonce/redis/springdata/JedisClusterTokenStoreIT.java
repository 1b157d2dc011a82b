package io.onlyonce.redis.springdata;

import io.onlyonce.redis.AbstractRedisTokenStoreIT;

/** The token store contract on a 3-master Redis Cluster through Jedis's Spring Data {@code RedisConnectionFactory}. */
class JedisClusterTokenStoreIT extends AbstractRedisTokenStoreIT {

    JedisClusterTokenStoreIT() {
        super(() -> new ContractFixture(Client.JEDIS, ContractFixture.Topology.CLUSTER));
    }
}
