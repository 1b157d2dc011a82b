package io.onlyonce.redis.springdata;

/** The idempotency store contract on Redisson through its Spring Data {@code RedisConnectionFactory}. */
class RedissonIdempotencyStoreIT extends AbstractSpringDataIdempotencyStoreIT {

    RedissonIdempotencyStoreIT() {
        super(Client.REDISSON);
    }
}
