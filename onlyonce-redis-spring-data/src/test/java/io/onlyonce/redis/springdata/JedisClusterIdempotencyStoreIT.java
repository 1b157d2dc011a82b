package io.onlyonce.redis.springdata;

import io.onlyonce.redis.AbstractRedisIdempotencyStoreIT;

/** The idempotency store contract on a 3-master Redis Cluster through Jedis's Spring Data {@code RedisConnectionFactory}. */
class JedisClusterIdempotencyStoreIT extends AbstractRedisIdempotencyStoreIT {

    JedisClusterIdempotencyStoreIT() {
        super(() -> new ContractFixture(Client.JEDIS, ContractFixture.Topology.CLUSTER));
    }
}
