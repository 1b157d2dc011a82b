package io.onlyonce.redis.springdata;

import io.onlyonce.redis.AbstractRedisWindowStoreIT;

/** The window store contract on a 3-master Redis Cluster through Redisson's Spring Data {@code RedisConnectionFactory}. */
class RedissonClusterWindowStoreIT extends AbstractRedisWindowStoreIT {

    RedissonClusterWindowStoreIT() {
        super(() -> new ContractFixture(Client.REDISSON, ContractFixture.Topology.CLUSTER));
    }
}
