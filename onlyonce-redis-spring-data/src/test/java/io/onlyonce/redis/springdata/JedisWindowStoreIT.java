package io.onlyonce.redis.springdata;

import io.onlyonce.redis.AbstractRedisWindowStoreIT;

/** The window store contract on Jedis through its Spring Data {@code RedisConnectionFactory}. */
class JedisWindowStoreIT extends AbstractRedisWindowStoreIT {

    JedisWindowStoreIT() {
        super(() -> new ContractFixture(Client.JEDIS));
    }
}
