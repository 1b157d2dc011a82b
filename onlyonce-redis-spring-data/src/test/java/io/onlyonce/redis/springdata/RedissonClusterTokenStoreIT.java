package io.onlyonce.redis.springdata;

import io.onlyonce.redis.AbstractRedisTokenStoreIT;

/** The token store contract on a 3-master Redis Cluster through Redisson's Spring Data {@code RedisConnectionFactory}. */
class RedissonClusterTokenStoreIT extends AbstractRedisTokenStoreIT {

    RedissonClusterTokenStoreIT() {
        super(() -> new ContractFixture(Client.REDISSON, ContractFixture.Topology.CLUSTER));
    }
}
