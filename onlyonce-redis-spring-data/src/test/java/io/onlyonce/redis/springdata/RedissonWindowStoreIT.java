package io.onlyonce.redis.springdata;

import io.onlyonce.redis.AbstractRedisWindowStoreIT;

/** The window store contract on Redisson through its Spring Data {@code RedisConnectionFactory}. */
class RedissonWindowStoreIT extends AbstractRedisWindowStoreIT {

    RedissonWindowStoreIT() {
        super(() -> new ContractFixture(Client.REDISSON));
    }
}
