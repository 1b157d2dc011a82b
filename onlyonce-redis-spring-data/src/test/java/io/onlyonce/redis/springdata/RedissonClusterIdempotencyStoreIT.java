package io.onlyonce.redis.springdata;

import io.onlyonce.redis.AbstractRedisIdempotencyStoreIT;

/** The idempotency store contract on a 3-master Redis Cluster through Redisson's Spring Data {@code RedisConnectionFactory}. */
class RedissonClusterIdempotencyStoreIT extends AbstractRedisIdempotencyStoreIT {

    RedissonClusterIdempotencyStoreIT() {
        super(() -> new ContractFixture(Client.REDISSON, ContractFixture.Topology.CLUSTER));
    }
}
