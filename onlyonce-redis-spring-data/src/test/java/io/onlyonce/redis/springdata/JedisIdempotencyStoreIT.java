package io.onlyonce.redis.springdata;

/** The idempotency store contract on Jedis through its Spring Data {@code RedisConnectionFactory}. */
class JedisIdempotencyStoreIT extends AbstractSpringDataIdempotencyStoreIT {

    JedisIdempotencyStoreIT() {
        super(Client.JEDIS);
    }
}
