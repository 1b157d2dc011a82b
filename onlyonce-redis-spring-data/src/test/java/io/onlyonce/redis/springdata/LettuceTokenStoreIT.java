package io.onlyonce.redis.springdata;

/** The token store contract on Lettuce through its Spring Data {@code RedisConnectionFactory}. */
class LettuceTokenStoreIT extends AbstractSpringDataTokenStoreIT {

    LettuceTokenStoreIT() {
        super(Client.LETTUCE);
    }
}
