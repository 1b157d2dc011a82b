package io.onlyonce.redis.springdata;

import io.onlyonce.redis.AbstractRedisTokenStoreIT;

/** The token store contract on Jedis through its Spring Data {@code RedisConnectionFactory}. */
class JedisTokenStoreIT extends AbstractRedisTokenStoreIT {

    JedisTokenStoreIT() {
        super(() -> new ContractFixture(Client.JEDIS));
    }
}
