package io.onlyonce.redis;

/** The token store contract on a standalone Redis. */
class RedisTokenStoreIT extends AbstractRedisTokenStoreIT {

    RedisTokenStoreIT() {
        super(RedisFixture.Topology.STANDALONE);
    }
}
