package io.onlyonce.redis.springdata;

/** The window store contract on Lettuce through its Spring Data {@code RedisConnectionFactory}. */
class LettuceWindowStoreIT extends AbstractSpringDataWindowStoreIT {

    LettuceWindowStoreIT() {
        super(Client.LETTUCE);
    }
}
