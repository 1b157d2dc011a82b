package io.onlyonce.redis.springdata;

/** The window store contract on Jedis through its Spring Data {@code RedisConnectionFactory}. */
class JedisWindowStoreIT extends AbstractSpringDataWindowStoreIT {

    JedisWindowStoreIT() {
        super(Client.JEDIS);
    }
}
