package io.onlyonce.redis;

/** The idempotency store contract on a standalone Redis. */
class RedisIdempotencyStoreIT extends AbstractRedisIdempotencyStoreIT {

    RedisIdempotencyStoreIT() {
        super(RedisFixture.Topology.STANDALONE);
    }
}
