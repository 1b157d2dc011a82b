package io.onlyonce.redis.springdata;

/** The token store contract on Jedis through its Spring Data {@code RedisConnectionFactory}. */
class JedisTokenStoreIT extends AbstractSpringDataTokenStoreIT {

    JedisTokenStoreIT() {
        super(Client.JEDIS);
    }
}
