package io.onlyonce.redis.springdata;

/** The idempotency store contract on Lettuce through its Spring Data {@code RedisConnectionFactory}. */
class LettuceIdempotencyStoreIT extends AbstractSpringDataIdempotencyStoreIT {

    LettuceIdempotencyStoreIT() {
        super(Client.LETTUCE);
    }
}
