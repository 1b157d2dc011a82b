package io.onlyonce.redis.springdata;

import io.onlyonce.redis.AbstractRedisTokenStoreIT;

/** The token store contract on Redisson through its Spring Data {@code RedisConnectionFactory}. */
class RedissonTokenStoreIT extends AbstractRedisTokenStoreIT {

    RedissonTokenStoreIT() {
        super(() -> new ContractFixture(Client.REDISSON));
    }
}
