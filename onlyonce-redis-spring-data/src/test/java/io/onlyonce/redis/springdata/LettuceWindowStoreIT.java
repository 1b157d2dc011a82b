package io.onlyonce.redis.springdata;

import io.onlyonce.redis.AbstractRedisWindowStoreIT;

/** The window store contract on Lettuce through its Spring Data {@code RedisConnectionFactory}. */
class LettuceWindowStoreIT extends AbstractRedisWindowStoreIT {

    LettuceWindowStoreIT() {
        super(() -> new ContractFixture(Client.LETTUCE));
    }
}
