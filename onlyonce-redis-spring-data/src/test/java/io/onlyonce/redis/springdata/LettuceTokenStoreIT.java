package io.onlyonce.redis.springdata;

import io.onlyonce.redis.AbstractRedisTokenStoreIT;

/** The token store contract on Lettuce through its Spring Data {@code RedisConnectionFactory}. */
class LettuceTokenStoreIT extends AbstractRedisTokenStoreIT {

    LettuceTokenStoreIT() {
        super(() -> new ContractFixture(Client.LETTUCE));
    }
}
