package io.onlyonce.redis.springdata;

/** The window store contract on Redisson through its Spring Data {@code RedisConnectionFactory}. */
class RedissonWindowStoreIT extends AbstractSpringDataWindowStoreIT {

    RedissonWindowStoreIT() {
        super(Client.REDISSON);
    }
}
