package io.onlyonce.redis;

/** The window store contract on a standalone Redis. */
class RedisWindowStoreIT extends AbstractRedisWindowStoreIT {

    RedisWindowStoreIT() {
        super(RedisFixture.Topology.STANDALONE);
    }
}
