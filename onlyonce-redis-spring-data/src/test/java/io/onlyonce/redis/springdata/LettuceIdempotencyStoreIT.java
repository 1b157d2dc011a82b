package io.onlyonce.redis.springdata;

import io.onlyonce.redis.AbstractRedisIdempotencyStoreIT;

/** The idempotency store contract on Lettuce through its Spring Data {@code RedisConnectionFactory}. */
class LettuceIdempotencyStoreIT extends AbstractRedisIdempotencyStoreIT {

    LettuceIdempotencyStoreIT() {
        super(() -> new ContractFixture(Client.LETTUCE));
    }
}
