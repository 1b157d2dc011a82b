package io.onlyonce.redis.springdata;

/** The token store contract on Redisson through its Spring Data {@code RedisConnectionFactory}. */
class RedissonTokenStoreIT extends AbstractSpringDataTokenStoreIT {

    RedissonTokenStoreIT() {
        super(Client.REDISSON);
    }
}
